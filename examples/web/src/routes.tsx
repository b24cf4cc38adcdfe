import type { SessionInfo } from "@modpack/client";
import type { ReactNode } from "react";
import { ModpackPage } from "./pages/modpack";
import { MyModpacksPage } from "./pages/my-modpacks";
import { PublicModpacksPage } from "./pages/public-modpacks";
import { ServerPage } from "./pages/server";
import { WebhooksPage } from "./pages/webhooks";

export interface Page {
  /** A path, with `:name` for a segment the page reads (`/modpacks/:id`). */
  path: string;
  /** The document title, and the navigation label when `nav` is set. */
  title: string;
  /** Listed in the navigation bar. */
  nav?: boolean;
  /** Open to visitors who are not signed in. */
  public?: boolean;
  render: (params: Record<string, string>, session: SessionInfo | null) => ReactNode;
}

/** Every page of the app: add one here and, with `nav`, it is in the navigation bar too. */
export const pages: Page[] = [
  { path: "/", title: "My modpacks", nav: true, render: () => <MyModpacksPage /> },
  {
    path: "/public",
    title: "Public modpacks",
    nav: true,
    public: true,
    render: (_params, session) => <PublicModpacksPage userId={session?.user.id ?? null} />,
  },
  {
    path: "/modpacks/:id",
    title: "Modpack",
    render: ({ id = "" }, session) => <ModpackPage key={id} id={id} userId={session?.user.id ?? null} />,
  },
  { path: "/modpacks/:id/server", title: "Server", render: ({ id = "" }) => <ServerPage key={id} id={id} /> },
  { path: "/modpacks/:id/webhooks", title: "Webhooks", render: ({ id = "" }) => <WebhooksPage key={id} id={id} /> },
];
