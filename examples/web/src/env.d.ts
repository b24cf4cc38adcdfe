/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Where the Modpack Collection Service runs (default http://localhost:3000). */
  readonly VITE_API_URL?: string;
}
