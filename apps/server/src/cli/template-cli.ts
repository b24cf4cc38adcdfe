/**
 * Writes the embedded database template (see embedded-template.ts). `pnpm build` makes it beside
 * the built server; a new DATA_DIR then starts as a copy of it.
 *   node dist/cli/template-cli.js <out.tar.gz>
 */
import { writeEmbeddedTemplate } from "../embedded-template.js";

const out = process.argv[2];
if (!out) {
  process.stderr.write("usage: template-cli <out.tar.gz>\n");
  process.exit(2);
}
await writeEmbeddedTemplate(out);
