import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/** The app runs on its own origin (http://localhost:5173); the service must list it in ORIGIN_ALLOWED. */
export default defineConfig({
  plugins: [react()],
  server: { port: 5173, strictPort: true },
});
