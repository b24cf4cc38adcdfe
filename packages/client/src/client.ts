import type { AppRouter, Notification } from "@modpack/contract";
import {
  createTRPCClient,
  httpBatchLink,
  httpSubscriptionLink,
  splitLink,
  type TRPCClient,
  type TRPCLink,
} from "@trpc/client";
// tRPC's own name for "an EventSource class"; it is exported only from this entry.
import type { EventSourceLike } from "@trpc/server/unstable-core-do-not-import";
import { checkResponse } from "./errors.js";

/** Request headers: plain name → value pairs. */
export type ClientHeaders = Record<string, string>;

/** Whether the browser sends cookies with a request (the standard `RequestInit.credentials`). */
export type ClientCredentials = "include" | "same-origin" | "omit";

type MaybePromise<T> = T | Promise<T>;

export interface ClientOptions {
  /** Where the service runs, e.g. `https://api.example.com` (the client calls `${baseUrl}/trpc`). */
  baseUrl: string;
  /** The `fetch` to call instead of the global one (tests, polyfills, instrumentation). */
  fetch?: typeof globalThis.fetch;
  /** Extra request headers, or a function (possibly async) called before every request. */
  headers?: ClientHeaders | (() => MaybePromise<ClientHeaders>);
  /**
   * Whether the session cookie goes along. Defaults to `"include"` so a front-end on another
   * origin (allowed by the service's CORS settings) stays signed in.
   */
  credentials?: ClientCredentials;
  /**
   * An API token (or a function returning one) sent as `Authorization: Bearer <token>`, for
   * scripts and servers that have no session cookie. Nothing is sent when it is empty.
   */
  token?: string | (() => MaybePromise<string | null | undefined>);
  /**
   * The `EventSource` class for live notifications, where the runtime has none (Node.js): for
   * example the `eventsource` package, whose `fetch` option also carries the Bearer token.
   * Browsers use their own and send the session cookie.
   */
  EventSource?: EventSourceLike.AnyConstructor;
}

export interface NotificationSubscriptionOptions {
  /** Called when the stream fails for good (for example, signed out); it is not retried after that. */
  onError?: (error: unknown) => void;
  /** Called once the stream is connected. */
  onStarted?: () => void;
}

export interface NotificationStream {
  /**
   * Calls `listener` with each notification created for the caller from now on, pushed over
   * Server-Sent Events as it happens. Returns the function that stops listening.
   */
  onNotification(listener: (notification: Notification) => void, options?: NotificationSubscriptionOptions): () => void;
}

/** The typed client: `client.modpacks.create.mutate(...)`, `client.modpacks.get.query(...)`, ... */
export type ModpackClient = TRPCClient<AppRouter> & NotificationStream;

/** Creates a typed tRPC client of the Modpack Collection Service. */
export function createClient(options: ClientOptions): ModpackClient {
  const trpc = createTRPCClient<AppRouter>({ links: createLinks(options) });
  const onNotification: NotificationStream["onNotification"] = (listener, subscription) => {
    const handle = trpc.notifications.stream.subscribe(undefined, { ...subscription, onData: listener });
    return () => handle.unsubscribe();
  };
  // The tRPC client is a proxy over procedure paths; `onNotification` is answered beside it.
  return new Proxy(trpc, {
    get: (target, key, receiver) => (key === "onNotification" ? onNotification : Reflect.get(target, key, receiver)),
  }) as ModpackClient;
}

/** The tRPC endpoint under a base URL (`https://api.example.com/` → `https://api.example.com/trpc`). */
export function trpcUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/trpc`;
}

/**
 * The link chain, in one place: subscriptions (the notification stream) over Server-Sent Events,
 * everything else batched over HTTP; both share the URL, the headers and the credentials.
 */
function createLinks(options: ClientOptions): TRPCLink<AppRouter>[] {
  const url = trpcUrl(options.baseUrl);
  const headers = () => requestHeaders(options);
  const fetchWithHeaders = requestFetch(options);
  const withCredentials = (options.credentials ?? "include") === "include";
  return [
    splitLink<AppRouter>({
      condition: (op) => op.type === "subscription",
      true: httpSubscriptionLink<AppRouter, EventSourceLike.AnyConstructor>({
        url,
        EventSource:
          options.EventSource ?? (globalThis as { EventSource?: EventSourceLike.AnyConstructor }).EventSource,
        // Browsers read `withCredentials`; fetch-based ponyfills (the `eventsource` package) read `fetch`.
        eventSourceOptions: async () => {
          const extra = await headers();
          return {
            withCredentials,
            fetch: (input: string | URL, init?: RequestInit) =>
              fetchWithHeaders(String(input), { ...init, headers: { ...(init?.headers as ClientHeaders), ...extra } }),
          } as EventSourceLike.InitDictOf<EventSourceLike.AnyConstructor>;
        },
      }),
      // maxURLLength: batched queries go as one GET up to this length, then split or fall back to POST.
      false: httpBatchLink<AppRouter>({ url, headers, fetch: fetchWithHeaders, maxURLLength: 2083 }),
    }),
  ];
}

/** The headers of every request: the caller's own, and the Bearer token (when there is one) in place of theirs. */
async function requestHeaders(options: ClientOptions): Promise<ClientHeaders> {
  const own = typeof options.headers === "function" ? await options.headers() : (options.headers ?? {});
  const token = typeof options.token === "function" ? await options.token() : options.token;
  if (!token) return { ...own };
  const rest = Object.fromEntries(Object.entries(own).filter(([name]) => name.toLowerCase() !== "authorization"));
  return { ...rest, authorization: `Bearer ${token}` };
}

type LinkFetch = NonNullable<Parameters<typeof httpBatchLink>[0]["fetch"]>;

/**
 * `fetch` with the credentials mode applied (the global `fetch` is looked up per call, unbound),
 * and failed answers that are not tRPC's turned into errors that keep their status.
 */
function requestFetch(options: ClientOptions): LinkFetch {
  const credentials = options.credentials ?? "include";
  return async (input, init) => {
    const request = { ...(init as RequestInit | undefined), credentials };
    const url = input as string;
    return checkResponse(await (options.fetch ? options.fetch(url, request) : globalThis.fetch(url, request)));
  };
}
