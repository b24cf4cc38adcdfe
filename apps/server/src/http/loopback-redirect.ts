import type { FastifyPluginAsync } from "fastify";
import type { RouteModule } from "../edge/routes.js";

const loopbackNames = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;
/**
 * Where a person's browser lands and the cookies of PUBLIC_URL's host matter: sign-in, the docs, the
 * index. Not /dev-idp/: the service calls its own token and userinfo endpoints at its listening address.
 */
const browserPaths = /^\/(?:$|\?|docs(?:$|[/?])|auth\/idp(?:$|[/?]))/;

/**
 * On a machine's own service, `http://127.0.0.1:3000` and `http://localhost:3000` are one server but
 * two sites to a browser: sign-in keeps its state cookie on one and comes back to PUBLIC_URL's. A
 * browser that opens the service under another loopback name is sent to PUBLIC_URL first, so sign-in
 * and the docs work whichever name was typed. API calls are answered under any name.
 */
export function loopbackRedirect(publicUrl: string): RouteModule {
  const target = new URL(publicUrl);
  const plugin: FastifyPluginAsync = async (app) => {
    if (!loopbackNames.test(target.hostname)) return;
    app.addHook("onRequest", async (request, reply) => {
      if (request.method !== "GET" && request.method !== "HEAD") return;
      if (!browserPaths.test(request.url)) return;
      const host = `http://${request.headers.host}`;
      const requested = URL.canParse(host) ? new URL(host) : null;
      // The same server under another loopback name: same port, another host.
      if (!requested || !loopbackNames.test(requested.hostname) || requested.hostname === target.hostname) return;
      if (portOf(requested) !== portOf(target)) return;
      return reply.redirect(`${target.origin}${target.pathname.replace(/\/$/, "")}${request.url}`, 302);
    });
  };
  // Not encapsulated: the hook applies to every route registered after it, the docs and sign-in too.
  Object.assign(plugin, { [Symbol.for("skip-override")]: true });
  return { plugin, paths: {} };
}

function portOf(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}
