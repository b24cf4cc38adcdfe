/**
 * The process entry. V8's compile cache (in the OS temp directory) is on before the service's modules
 * load, so every start after the first compiles almost none of them again.
 */
import { enableCompileCache } from "node:module";

enableCompileCache();
await import("./serve.js");
