import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNotifications } from "../src/db/notifications.js";
import {
  childEnv,
  npmInstall,
  packClient,
  type Run,
  repoRoot,
  run,
  tsc,
  typeErrors,
  typescriptVersion,
} from "./support/packed-client.js";
import { startTestService, type TestService } from "./support/service.js";
import { signIn } from "./support/users.js";

/**
 * The React path a front-end takes: the packed client installed beside the newest
 * `@trpc/tanstack-react-query` in a fresh app outside the workspace, a component using it
 * type-checked, and the same options run through TanStack Query's `QueryClient` in Node against
 * a live service.
 */

/** The TanStack Query stack this test installs: the newest versions when it was written. */
const tanstack = {
  "@trpc/tanstack-react-query": "11.22.1",
  "@tanstack/react-query": "5.108.0",
  react: "19.3.1",
  "@types/react": "19.3.0",
};
/** Node has no EventSource: the script uses the package the client's README names (the version the server tests with). */
const eventsourceVersion = (
  JSON.parse(readFileSync(path.join(repoRoot, "apps/server/node_modules/eventsource/package.json"), "utf8")) as {
    version: string;
  }
).version;

/** A React component on the client's types: the README's TanStack walkthrough, condensed. */
const component = `import { type AppRouter, createClient, type Notification, toApiError } from "@modpack/client";
import {
  QueryClient,
  QueryClientProvider,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { createTRPCContext, useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

export function App({ baseUrl }: { baseUrl: string }) {
  const [queryClient] = useState(() => new QueryClient());
  const [trpcClient] = useState(() => createClient({ baseUrl }));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <PublicModpacks />
        <NewModpack />
        <AllPublicModpacks />
        <LiveNotifications />
      </TRPCProvider>
    </QueryClientProvider>
  );
}

function PublicModpacks() {
  const trpc = useTRPC();
  const list = useQuery(trpc.modpacks.listPublic.queryOptions({ limit: 10, sortBy: "name" }));
  if (list.isPending) return <p>Loading…</p>;
  if (list.isError) return <p role="alert">{toApiError(list.error).message}</p>;
  return (
    <ul>
      {list.data.data.map((modpack) => (
        <li key={modpack.id}>{modpack.name}</li>
      ))}
    </ul>
  );
}

function NewModpack() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.modpacks.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.modpacks.listMine.queryKey() }),
    }),
  );
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate({ name: String(new FormData(event.currentTarget).get("name")), isPublic: true });
      }}
    >
      <input name="name" />
      <button type="submit" disabled={create.isPending}>
        Create
      </button>
      {create.error && <p role="alert">{toApiError(create.error).message}</p>}
      {create.data && <p>Created {create.data.name}</p>}
    </form>
  );
}

function AllPublicModpacks() {
  const trpc = useTRPC();
  const pages = useInfiniteQuery(
    trpc.modpacks.listPublic.infiniteQueryOptions({ limit: 20 }, { getNextPageParam: (last) => last.pagination.nextCursor }),
  );
  const modpacks = pages.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <section>
      <ul>
        {modpacks.map((modpack) => (
          <li key={modpack.id}>{modpack.name}</li>
        ))}
      </ul>
      {pages.hasNextPage && (
        <button type="button" onClick={() => pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          More
        </button>
      )}
    </section>
  );
}

function LiveNotifications() {
  const trpc = useTRPC();
  const [received, setReceived] = useState<Notification[]>([]);
  const stream = useSubscription(
    trpc.notifications.stream.subscriptionOptions(undefined, {
      onData: (notification) => setReceived((previous) => [notification, ...previous]),
    }),
  );
  return (
    <aside>
      {stream.status === "error" && <p role="alert">{toApiError(stream.error).message}</p>}
      <ul>
        {received.map((notification) => (
          <li key={notification.id}>
            {notification.title}: {notification.content}
          </li>
        ))}
      </ul>
    </aside>
  );
}

/** Mistakes the types catch: each line below must fail to compile, or tsc reports an unused directive. */
export function mistakes(trpc: ReturnType<typeof useTRPC>) {
  // @ts-expect-error: modpacks sort by createdAt, updatedAt or name
  trpc.modpacks.listPublic.queryOptions({ sortBy: "size" });
  // @ts-expect-error: the cursor is last.pagination.nextCursor
  trpc.modpacks.listPublic.infiniteQueryOptions({}, { getNextPageParam: (last) => last.nextCursor });
  // @ts-expect-error: a notification has no body
  trpc.notifications.stream.subscriptionOptions(undefined, { onData: (notification) => notification.body });
}
`;

/**
 * The same options outside React: what useQuery, useInfiniteQuery, useMutation and useSubscription
 * do, through TanStack Query's own QueryClient and observers. Prints one JSON line when it listens
 * for notifications and one with everything it got.
 */
const script = `import { type AppRouter, createClient, type Notification, toApiError } from "@modpack/client";
import { MutationObserver, QueryClient, QueryObserver } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { EventSource } from "eventsource";

declare const process: { env: Record<string, string | undefined> };

const queryClient = new QueryClient();
const trpc = createTRPCOptionsProxy<AppRouter>({
  client: createClient({ baseUrl: process.env.BASE_URL ?? "", token: process.env.TOKEN, EventSource }),
  queryClient,
});
const print = (line: object) => console.log(JSON.stringify(line));

// A query.
const byName = { limit: 2, sortBy: "name", sortOrder: "asc" } as const;
const firstPage = await queryClient.fetchQuery(trpc.modpacks.listPublic.queryOptions(byName));

// An infinite list: every page, each read from the previous one's pagination.nextCursor.
const everyPage = await queryClient.fetchInfiniteQuery({
  ...trpc.modpacks.listPublic.infiniteQueryOptions(byName, { getNextPageParam: (last) => last.pagination.nextCursor }),
  pages: 10,
});

// A mutation invalidating "my modpacks": a query observed with data that never goes stale by
// itself is fetched again because of the invalidation.
const mine = trpc.modpacks.listMine.queryOptions({ limit: 10 });
const before = await queryClient.fetchQuery(mine);
const observer = new QueryObserver(queryClient, { ...mine, staleTime: Number.POSITIVE_INFINITY });
const refetched = new Promise<number>((resolve) => {
  const stop = observer.subscribe((result) => {
    if (result.data && result.data.pagination.total !== before.pagination.total) {
      stop();
      resolve(result.data.pagination.total);
    }
  });
});
const create = new MutationObserver(
  queryClient,
  trpc.modpacks.create.mutationOptions({
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.modpacks.listMine.queryKey() }),
  }),
);
const created = await create.mutate({ name: "Made with TanStack Query" });
const totalAfter = await refetched;

// Errors as the service words them.
const invalid = await create.mutate({ name: "x" }).then(() => null, toApiError);
const missing = await queryClient
  .fetchQuery(trpc.modpacks.get.queryOptions({ id: "00000000-0000-4000-8000-000000000000" }))
  .then(() => null, toApiError);

// The live notification subscription.
const notification = await new Promise<Notification>((resolve, reject) => {
  const subscription = trpc.notifications.stream.subscriptionOptions(undefined).subscribe({
    onStarted: () => print({ listening: true }),
    onData: (data) => {
      subscription.unsubscribe();
      resolve(data);
    },
    onError: reject,
  });
});

queryClient.clear();
print({
  firstPage: firstPage.data.map((modpack) => modpack.name),
  pages: everyPage.pages.map((page) => page.data.map((modpack) => modpack.name)),
  created: created.name,
  totalBefore: before.pagination.total,
  totalAfter,
  invalid,
  missing: missing && { status: missing.status, code: missing.code },
  notification: { title: notification.title, type: notification.type },
});
`;

const tsconfig = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2022", "DOM", "DOM.Iterable", "ESNext.Disposable"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    jsx: "react-jsx",
    strict: true,
    // The client's bundled declarations are checked too; see typeErrors for tRPC 11.22.1's own.
    skipLibCheck: false,
    types: [],
    outDir: "out",
  },
  files: ["App.tsx", "live.ts"],
};

/**
 * The script in a child process, its output read as it comes. `waitFor` resolves when the output
 * matches, `exit` when the process has ended; both fail with the output so far when the process
 * ends first or after `boundMs` (a bound for a stuck run, not a pause).
 */
function startScript(appDir: string, env: Record<string, string>, boundMs = 60_000) {
  const child = spawn(process.execPath, ["out/live.js"], {
    cwd: appDir,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  // "close": the process has exited and its output is all read.
  const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
  const bound = <T>(what: string, settled: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${boundMs} ms:\n${output}`)), boundMs);
    });
    return Promise.race([settled, late]).finally(() => clearTimeout(timer));
  };
  return {
    output: () => output,
    waitFor(pattern: RegExp): Promise<void> {
      const seen = new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(output)) return;
          child.stdout.off("data", check);
          resolve();
        };
        child.stdout.on("data", check);
        void closed.then((code) => reject(new Error(`the script ended (${code}) before ${pattern}:\n${output}`)));
        check();
      });
      return bound(String(pattern), seen);
    },
    exit: () => bound("exit", closed),
    kill: () => child.kill("SIGKILL"),
  };
}

// It installs from the npm registry and needs little of the database: one of CI's two runs (the
// embedded database's, which is also a bare `pnpm test`) is enough.
const onPostgres = Boolean(process.env.DATABASE_URL);
if (onPostgres) console.info("client-tanstack: runs on the embedded database only (DATABASE_URL is set)");

describe.skipIf(onPostgres)("the packed client with @trpc/tanstack-react-query", () => {
  let workDir: string;
  let appDir: string;
  let install: Run;
  let service: TestService;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), "mcs-client-tanstack-"));
    appDir = path.join(workDir, "app");
    await mkdir(appDir);
    const [, started] = await Promise.all([
      (async () => {
        const tarball = await packClient(workDir);
        await writeFile(
          path.join(appDir, "package.json"),
          JSON.stringify({ name: "tanstack-app", private: true, type: "module" }),
        );
        // As a new user would: the client and the TanStack stack, with the peers left to npm.
        install = await npmInstall(appDir, [
          "--save-exact",
          tarball,
          ...Object.entries(tanstack).map(([name, version]) => `${name}@${version}`),
          `typescript@${typescriptVersion}`,
          `eventsource@${eventsourceVersion}`,
        ]);
        await writeFile(path.join(appDir, "App.tsx"), component);
        await writeFile(path.join(appDir, "live.ts"), script);
        await writeFile(path.join(appDir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
      })(),
      startTestService(),
    ]);
    service = started;
  }, 300_000);

  afterAll(async () => {
    await service?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("installs beside the newest @trpc/tanstack-react-query with no peer conflict or warning", async () => {
    expect(install.code, install.output).toBe(0);
    expect(install.output).not.toMatch(/ERESOLVE|\bpeer\b|overriding|conflict|invalid/i);
    const version = (name: string) =>
      (JSON.parse(readFileSync(path.join(appDir, "node_modules", name, "package.json"), "utf8")) as { version: string })
        .version;
    // npm put in the @trpc/* that @trpc/tanstack-react-query requires, one copy shared with the client.
    const required = JSON.parse(
      readFileSync(path.join(appDir, "node_modules/@trpc/tanstack-react-query/package.json"), "utf8"),
    ) as { peerDependencies: Record<string, string> };
    expect(version("@trpc/client")).toBe(required.peerDependencies["@trpc/client"]);
    expect(version("@trpc/server")).toBe(required.peerDependencies["@trpc/server"]);
    expect(existsSync(path.join(appDir, "node_modules/@modpack/client/node_modules"))).toBe(false);
    // npm's own check of the tree: exit 1 on a missing or unmet peer.
    const tree = await run("npm", ["ls", "--all"], { cwd: appDir, timeoutMs: 60_000 });
    expect(tree.code, tree.output).toBe(0);
  });

  it("type-checks a component with queries, a mutation with invalidation, an infinite list and the subscription", async () => {
    const result = await tsc(appDir);
    expect(typeErrors(result.output)).toBe("");
  }, 120_000);

  it("runs the same options through a QueryClient against the live service", async () => {
    const owner = await signIn(service);
    const other = await signIn(service);
    const publicNames = ["Alpha pack", "Bravo pack", "Charlie pack", "Delta pack", "Echo pack"];
    for (const name of publicNames) {
      const response = await service.app.inject({
        method: "POST",
        url: "/modpacks",
        headers: other.headers,
        payload: { name, isPublic: true },
      });
      expect(response.statusCode).toBe(201);
    }
    const token = await service.app.inject({
      method: "POST",
      url: "/auth/tokens",
      headers: owner.headers,
      payload: { name: "tanstack" },
    });
    expect(token.statusCode).toBe(201);
    const baseUrl = await service.app.listen({ port: 0, host: "127.0.0.1" });

    const live = startScript(appDir, { BASE_URL: baseUrl, TOKEN: (token.json() as { token: string }).token });
    try {
      await live.waitFor(/"listening":true/);
      await createNotifications(service.runtime.database.db, [
        { userId: owner.userId, title: "Server file ready", content: "Ready", type: "success", metadata: {} },
      ]);
      expect(await live.exit(), live.output()).toBe(0);
    } finally {
      live.kill();
    }
    const printed = JSON.parse(live.output().trim().split("\n").at(-1) ?? "{}");
    expect(printed).toEqual({
      firstPage: ["Alpha pack", "Bravo pack"],
      pages: [["Alpha pack", "Bravo pack"], ["Charlie pack", "Delta pack"], ["Echo pack"]],
      created: "Made with TanStack Query",
      totalBefore: 0,
      totalAfter: 1,
      invalid: {
        status: 400,
        code: "BAD_REQUEST",
        message: "Invalid input: name: Must be 3-50 characters",
        issues: [{ path: "name", message: "Must be 3-50 characters" }],
      },
      missing: { status: 404, code: "NOT_FOUND" },
      notification: { title: "Server file ready", type: "success" },
    });
  }, 120_000);
});
