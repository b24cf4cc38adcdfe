import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/** The app runs on its own origin (http://localhost:5173); the service must list it in ORIGIN_ALLOWED. */
export default defineConfig({
  plugins: [react()],
  server: { port: 5173, strictPort: true },
  // One copy of tRPC in the page, the app's own (the version @trpc/tanstack-react-query asks for), as
  // in an app that installed the client from the registry; the workspace client has its own for building.
  resolve: { dedupe: ["@trpc/client", "@trpc/server"] },
});
