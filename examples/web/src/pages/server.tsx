import type { CurrentServerFile, GameVersion, IdForm, ServerImage } from "@modpack/client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import serverStartDoc from "../../../../docs/server-start.md?raw";
import { API_URL, fetchServerFile, useTRPC } from "../api";
import {
  CodeBlock,
  checkVerdict,
  ErrorNotice,
  FindingList,
  formatDate,
  GameVersionSelect,
  Loading,
  ModpackCrumbs,
  ModpackUnavailable,
  ShownOnce,
} from "../components";

/** The start script exactly as docs/server-start.md shows it: the sh block after its marker. */
const START_SCRIPT = /<!-- start-script -->\s*```sh\n([\s\S]*?)```/.exec(serverStartDoc)?.[1] ?? "";

/** Where a dedicated server keeps its settings, as the start script's guide gives it. */
const PZ_INI = "/home/steam/Zomboid/Server/servertest.ini";

/** Shown in the start command until a token is created here. */
const NO_TOKEN = "<your read token>";

/** A value as `sh` reads it back unchanged: bare when it holds nothing the shell would read, else single-quoted. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The server images whose start step the env form can be encoded for, as the service names them. */
const IMAGES: { value: ServerImage | ""; label: string }[] = [
  { value: "", label: "Any (MODS, WORKSHOP_ITEMS, MAP, verbatim)" },
  { value: "danixu", label: "Danixu/project-zomboid-server-docker" },
  { value: "pepecitron", label: "PepeCitron/projectzomboid-server" },
  { value: "renegade-master", label: "Renegade-Master/zomboid-dedicated-server" },
  { value: "indifferentbroccoli", label: "indifferentbroccoli/projectzomboid-server-docker" },
];

/** How a Build 42 file names each mod on `Mods=`. */
const ID_FORMS: { value: IdForm; label: string }[] = [
  { value: "backslash", label: "\\ModID (default)" },
  { value: "plain", label: "ModID" },
  { value: "workshop", label: "WorkshopID\\ModID (pzmod)" },
];

/**
 * The server's start command behind the script, with what the script reads from its environment:
 * the build (the script's default is Build 42) and the id form, when they are not the defaults.
 */
function startCommand(id: string, token: string | null, version: GameVersion, idForm: IdForm): string {
  const form = version === "42x" && idForm !== "backslash" ? ` ID_FORM=${idForm}` : "";
  return [
    `MODPACK_URL=${shellWord(API_URL)} MODPACK_ID=${shellWord(id)} \\`,
    `MODPACK_TOKEN=${shellWord(token ?? NO_TOKEN)} \\`,
    `PZ_INI=${shellWord(PZ_INI)}${version === "41x" ? " PZ_VERSION=41x" : ""}${form} \\`,
    "start-modpack.sh ./start-server.sh -servername servertest",
  ].join("\n");
}

/**
 * A modpack on a game server: its current server file for a build, the start script that keeps
 * the server's `servertest.ini` in step with it and reports its starts, and a server token for that script.
 */
export function ServerPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const [version, setVersion] = useState<GameVersion>("42x");
  const [idForm, setIdForm] = useState<IdForm>("backslash");
  const [token, setToken] = useState<string | null>(null);
  const modpack = useQuery(trpc.modpacks.get.queryOptions({ id }));

  if (modpack.isPending) return <Loading label="Loading the modpack…" />;
  if (modpack.isError) return <ModpackUnavailable error={modpack.error} />;

  return (
    <>
      <header className="page-header">
        <ModpackCrumbs id={id} name={modpack.data.name} />
        <h1>Server</h1>
        <p className="card-meta">
          <GameVersionSelect value={version} onChange={setVersion} />
          {version === "42x" && (
            <label className="inline-field">
              Mod ids
              <select value={idForm} onChange={(event) => setIdForm(event.target.value as IdForm)}>
                {ID_FORMS.map((form) => (
                  <option key={form.value} value={form.value}>
                    {form.label}
                  </option>
                ))}
              </select>
            </label>
          )}
        </p>
      </header>
      <div className="modpack-layout">
        <CurrentFileSection id={id} version={version} idForm={version === "42x" ? idForm : undefined} />
        <section className="panel" aria-labelledby="start-heading">
          <h2 id="start-heading">Start script</h2>
          <p className="muted">
            Save the script as an executable <code>start-modpack.sh</code> on the server's <code>PATH</code> and start
            the server through it: on every start it writes this pack's <code>Mods=</code>, <code>WorkshopItems=</code>{" "}
            and <code>Map=</code> into <code>servertest.ini</code>, keeps every other line, and sends the server's log
            of the start to the service, which tells you when a start fails. When the service cannot be reached, the
            server starts with the file it had.
          </p>
          <CodeBlock label="start-modpack.sh" text={START_SCRIPT} />
          <CodeBlock label="Start command" text={startCommand(id, token, version, idForm)} />
          {!token && (
            <p className="muted">
              The script reads the pack with a token: create a server token below and it is put into the command.
            </p>
          )}
        </section>
        <TokenSection id={id} onCreated={setToken} />
      </div>
    </>
  );
}

/** The file as the service answers it now, as `ini` or `env`, with the check's findings from the `json` form. */
function CurrentFileSection({ id, version, idForm }: { id: string; version: GameVersion; idForm: IdForm | undefined }) {
  const [format, setFormat] = useState<"ini" | "env">("ini");
  const [image, setImage] = useState<ServerImage | "">("");
  const forImage = format === "env" && image !== "" ? { image } : {};
  const form = idForm === undefined ? {} : { idForm };
  const file = useQuery({
    queryKey: ["server-file", id, version, format, idForm, forImage],
    queryFn: ({ signal }) => fetchServerFile(id, { version, format, ...forImage, ...form }, signal),
  });
  const details = useQuery({
    queryKey: ["server-file", id, version, "json", idForm],
    queryFn: async ({ signal }) =>
      JSON.parse((await fetchServerFile(id, { version, format: "json", ...form }, signal)).body) as CurrentServerFile,
  });
  const build = `Build ${version.slice(0, 2)}`;
  const findings = details.data?.findings ?? [];

  return (
    <section className="panel" aria-labelledby="current-file-heading">
      <h2 id="current-file-heading">Current server file</h2>
      <p className="muted">
        What a server of {build} reads now: the pack's mods in load order, rendered on every request.
      </p>
      <fieldset className="segmented">
        <legend className="visually-hidden">Form of the file</legend>
        {(["ini", "env"] as const).map((each) => (
          <label key={each}>
            <input
              type="radio"
              name="server-file-format"
              value={each}
              checked={format === each}
              onChange={() => setFormat(each)}
            />
            {each === "ini" ? "servertest.ini" : "Environment (--env-file)"}
          </label>
        ))}
      </fieldset>
      {format === "env" && (
        <p>
          <label className="inline-field">
            Server image
            <select value={image} onChange={(event) => setImage(event.target.value as ServerImage | "")}>
              {IMAGES.map((each) => (
                <option key={each.value} value={each.value}>
                  {each.label}
                </option>
              ))}
            </select>
          </label>
        </p>
      )}

      {details.isPending ? (
        <Loading label="Checking the modpack…" />
      ) : details.isError ? (
        <ErrorNotice error={details.error} title="Could not check the server file." />
      ) : (
        <div
          className={`check ${findings.some((finding) => finding.severity === "error") ? "check-bad" : "check-ok"}`}
          role="status"
          aria-label="Check"
        >
          <strong>{checkVerdict(version, findings)}</strong>
          {findings.length > 0 && <FindingList findings={findings} label="Findings" />}
        </div>
      )}

      {file.isPending ? (
        <Loading label="Loading the server file…" />
      ) : file.isError ? (
        <ErrorNotice error={file.error} title="Could not load the server file." />
      ) : (
        <>
          <CodeBlock label={format === "ini" ? "Server file" : "Environment file"} text={file.data.body} />
          <p className="muted file-headers">
            <code>Modpack-Check-Errors: {file.data.checkErrors}</code>
            {file.data.etag && <code>ETag: {file.data.etag}</code>}
          </p>
        </>
      )}
    </section>
  );
}

/** A server token for this pack alone: its secret is shown once, here, and goes into the start command. */
function TokenSection({ id, onCreated }: { id: string; onCreated: (token: string) => void }) {
  const trpc = useTRPC();
  const create = useMutation(
    trpc.auth.createToken.mutationOptions({ onSuccess: (created) => onCreated(created.token) }),
  );

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "");
    create.mutate({ name, scopes: ["read", "report"], modpackIds: [id] });
  };

  return (
    <section className="panel" aria-labelledby="token-heading">
      <h2 id="token-heading">Server token</h2>
      <p className="muted">
        A token that can read this pack and its server file and report the server's starts, and nothing else: it changes
        nothing and reaches no other private pack. It is what the start script on a game server should hold.
      </p>
      <form className="add-mod" onSubmit={onSubmit}>
        <label>
          Token name
          <input name="name" required maxLength={100} defaultValue="server start" autoComplete="off" />
        </label>
        <button type="submit" className="button-primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create a server token"}
        </button>
      </form>
      <ErrorNotice error={create.error} title="Could not create the token." />
      {create.data && (
        <ShownOnce secret={create.data.token} label="New token" copyLabel="Copy the token">
          <strong>Copy it now: it is shown only this once.</strong> It reads this pack until{" "}
          {formatDate(create.data.expiresAt)}.
        </ShownOnce>
      )}
    </section>
  );
}
