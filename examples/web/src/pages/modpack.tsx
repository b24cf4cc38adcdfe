import type { GameVersion, ModpackMod, RouterOutputs } from "@modpack/client";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type DragEvent, type FormEvent, useEffect, useState } from "react";
import { serviceUrl, useTRPC } from "../api";
import {
  checkVerdict,
  Empty,
  ErrorNotice,
  type Finding,
  FindingList,
  GameVersionSelect,
  Loading,
  ModpackUnavailable,
  Thumbnail,
} from "../components";
import { Link } from "../router";

/** The most mods one page of the list holds; a bigger pack is read page after page. */
const MOD_PAGE = 100;

/**
 * One modpack: its mods in load order with the check's findings beside them, and its server file.
 * Its owner (`userId`) also finds its webhooks here, which the service shows no one else.
 */
export function ModpackPage({ id, userId }: { id: string; userId: string | null }) {
  const trpc = useTRPC();
  const [version, setVersion] = useState<GameVersion>("42x");
  const modpack = useQuery(trpc.modpacks.get.queryOptions({ id }));

  if (modpack.isPending) return <Loading label="Loading the modpack…" />;
  if (modpack.isError) return <ModpackUnavailable error={modpack.error} />;

  return (
    <>
      <header className="page-header">
        <p className="crumbs">
          <Link to="/">My modpacks</Link> /
        </p>
        <h1>{modpack.data.name}</h1>
        {modpack.data.description && <p className="muted">{modpack.data.description}</p>}
        <p className="card-meta">
          <span className={`badge ${modpack.data.isPublic ? "badge-public" : ""}`}>
            {modpack.data.isPublic ? "Public" : "Private"}
          </span>
          <Link to={`/modpacks/${encodeURIComponent(id)}/server`} className="button button-small">
            Server
          </Link>
          {modpack.data.owner === userId && (
            <Link to={`/modpacks/${encodeURIComponent(id)}/webhooks`} className="button button-small">
              Webhooks
            </Link>
          )}
          <GameVersionSelect value={version} onChange={setVersion} />
        </p>
      </header>
      <div className="modpack-layout">
        <ModsSection id={id} version={version} />
        <ServerFileSection id={id} version={version} />
      </div>
    </>
  );
}

function ModsSection({ id, version }: { id: string; version: GameVersion }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const modPages = useInfiniteQuery(
    trpc.modpackMods.list.infiniteQueryOptions(
      { id, limit: MOD_PAGE },
      { getNextPageParam: (last) => last.pagination.nextCursor },
    ),
  );
  // The load order is the whole pack's: read every page of mods before anything can be moved.
  const { hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage } = modPages;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !isFetchNextPageError) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage]);
  const allLoaded = modPages.isSuccess && !hasNextPage;
  const configuration = useQuery(trpc.exports.getConfiguration.queryOptions({ id }));
  const check = useQuery(trpc.checks.get.queryOptions({ id, version }));

  /** Everything a change of mods or order makes stale: the list, the load order and the check. */
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.modpackMods.list.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.exports.getConfiguration.queryKey({ id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.checks.get.queryKey({ id }) }),
    ]);

  const add = useMutation(trpc.modpackMods.add.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.modpackMods.remove.mutationOptions({ onSuccess: refresh }));
  const configurationKey = trpc.exports.getConfiguration.queryKey({ id });
  const saveOrder = useMutation(
    trpc.exports.saveConfiguration.mutationOptions({
      // The list moves at once; the saved order replaces it, or the old one comes back on failure.
      onMutate: async (input) => {
        await queryClient.cancelQueries({ queryKey: configurationKey });
        const previous = queryClient.getQueryData(configurationKey);
        if (previous) queryClient.setQueryData(configurationKey, { ...previous, modsOrder: input.modsOrder });
        return { previous };
      },
      onError: (_error, _input, context) => {
        if (context?.previous) queryClient.setQueryData(configurationKey, context.previous);
      },
      onSettled: refresh,
    }),
  );

  const onAdd = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const modAtribute = String(new FormData(form).get("mod") ?? "");
    add.mutate({ id, modAtribute }, { onSuccess: () => form.reset() });
  };

  const ordered = inLoadOrder(
    modPages.data?.pages.flatMap((page) => page.data) ?? [],
    configuration.data?.modsOrder ?? [],
  );
  const move = (from: number, to: number) => {
    if (!configuration.data || !allLoaded || to < 0 || to >= ordered.length || from === to) return;
    const order = ordered.map((mod) => mod.id);
    const [moved] = order.splice(from, 1);
    if (moved) order.splice(to, 0, moved);
    saveOrder.mutate({ id, modsOrder: order, modConfig: configuration.data.modConfig });
  };

  const byMod = new Map<string, Finding[]>();
  for (const finding of check.data?.findings ?? []) {
    if (finding.modId) byMod.set(finding.modId, [...(byMod.get(finding.modId) ?? []), finding]);
  }
  const general = (check.data?.findings ?? []).filter((finding) => !finding.modId);
  const suggested = check.data?.suggestedOrder ?? [];
  const canApplySuggestion =
    suggested.length === ordered.length && suggested.some((modId, index) => ordered[index]?.id !== modId);

  return (
    <section className="panel" aria-labelledby="mods-heading">
      <h2 id="mods-heading">Mods</h2>
      <form className="add-mod" onSubmit={onAdd}>
        <label>
          Workshop URL or id
          <input
            name="mod"
            required
            autoComplete="off"
            inputMode="url"
            placeholder="https://steamcommunity.com/sharedfiles/filedetails/?id=2169435993"
          />
        </label>
        <button type="submit" className="button-primary" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Add mod"}
        </button>
      </form>
      <ErrorNotice error={add.error} title="Could not add the mod." />
      {add.data && add.data.dependenciesAdded.length > 0 && (
        <p className="notice" role="status">
          Also added {add.data.dependenciesAdded.length} required{" "}
          {add.data.dependenciesAdded.length === 1 ? "mod" : "mods"}:{" "}
          {add.data.dependenciesAdded.map((link) => link.workshopId).join(", ")}.
        </p>
      )}

      {check.isPending ? (
        <Loading label="Checking the modpack…" />
      ) : check.isError ? (
        <ErrorNotice error={check.error} title="Could not check the modpack." />
      ) : (
        <CheckSummary check={check.data} general={general} />
      )}
      {canApplySuggestion && allLoaded && configuration.data && (
        <button
          type="button"
          className="button-quiet"
          disabled={saveOrder.isPending}
          onClick={() =>
            configuration.data &&
            saveOrder.mutate({ id, modsOrder: suggested, modConfig: configuration.data.modConfig })
          }
        >
          Apply the suggested load order
        </button>
      )}
      <ErrorNotice error={saveOrder.error} title="Could not save the load order." />
      <ErrorNotice error={remove.error} title="Could not remove the mod." />

      {modPages.isPending || configuration.isPending ? (
        <Loading label="Loading mods…" />
      ) : !modPages.data || configuration.isError ? (
        <ErrorNotice error={modPages.error ?? configuration.error} />
      ) : ordered.length === 0 ? (
        <Empty title="No mods yet">
          Paste a Steam Workshop link or a workshop id above; the mods it requires come along.
        </Empty>
      ) : (
        <LoadOrder
          mods={ordered}
          findings={byMod}
          version={version}
          busy={saveOrder.isPending || !allLoaded}
          onMove={move}
          onRemove={(mod) => remove.mutate({ id, modId: mod.id })}
        />
      )}
      {hasNextPage && <Loading label={`Loading more mods (${ordered.length} so far)…`} />}
      {isFetchNextPageError && <ErrorNotice error={modPages.error} title="Could not load every mod." />}
    </section>
  );
}

/** The mods in the saved load order; mods the order does not list yet follow, as added. */
function inLoadOrder(mods: ModpackMod[], order: string[]): ModpackMod[] {
  const byId = new Map(mods.map((mod) => [mod.id, mod]));
  const listed = order.flatMap((modId) => byId.get(modId) ?? []);
  const seen = new Set(order);
  return [...listed, ...mods.filter((mod) => !seen.has(mod.id))];
}

/** The check's verdict for the version, and the findings about no one mod. */
function CheckSummary({ check, general }: { check: RouterOutputs["checks"]["get"]; general: Finding[] }) {
  return (
    <div className={`check ${check.ok ? "check-ok" : "check-bad"}`} role="status" aria-label="Check">
      <strong>{checkVerdict(check.version, check.findings)}</strong>
      {general.length > 0 && <FindingList findings={general} />}
    </div>
  );
}

function LoadOrder({
  mods,
  findings,
  version,
  busy,
  onMove,
  onRemove,
}: {
  mods: ModpackMod[];
  findings: Map<string, Finding[]>;
  version: GameVersion;
  busy: boolean;
  onMove: (from: number, to: number) => void;
  onRemove: (mod: ModpackMod) => void;
}) {
  const [dragging, setDragging] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);

  const onDrop = (event: DragEvent, index: number) => {
    event.preventDefault();
    if (dragging !== null) onMove(dragging, index);
    setDragging(null);
    setOver(null);
  };

  return (
    <ol className="load-order" aria-label="Load order">
      {mods.map((mod, index) => {
        const modFindings = findings.get(mod.id) ?? [];
        const ids = mod.buildModIds[version].length > 0 ? mod.buildModIds[version] : mod.platformModId;
        return (
          <li
            key={mod.id}
            className={`mod${dragging === index ? " mod-dragging" : ""}${over === index && dragging !== index ? " mod-over" : ""}`}
            draggable={!busy}
            aria-label={mod.name}
            onDragStart={(event) => {
              event.dataTransfer.effectAllowed = "move";
              event.dataTransfer.setData("text/plain", mod.id);
              setDragging(index);
            }}
            onDragOver={(event) => {
              event.preventDefault();
              setOver(index);
            }}
            onDragEnd={() => {
              setDragging(null);
              setOver(null);
            }}
            onDrop={(event) => onDrop(event, index)}
          >
            <span className="mod-handle" aria-hidden="true">
              ⋮⋮
            </span>
            <span className="mod-position">{index + 1}</span>
            <Thumbnail src={mod.avatarUrl} name={mod.name} size={44} />
            <div className="mod-text">
              <p className="mod-name">
                <a
                  className="mod-link"
                  href={`https://steamcommunity.com/sharedfiles/filedetails/?id=${mod.workshopId}`}
                  rel="noreferrer"
                  target="_blank"
                >
                  {mod.name}
                </a>
              </p>
              <p className="mod-ids muted">
                Workshop {mod.workshopId}
                {ids.length > 0 && <> · {ids.join(", ")}</>}
              </p>
              {modFindings.length > 0 && <FindingList findings={modFindings} />}
            </div>
            <div className="mod-actions">
              <button
                type="button"
                className="icon-button"
                aria-label={`Move ${mod.name} up`}
                disabled={busy || index === 0}
                onClick={() => onMove(index, index - 1)}
              >
                ↑
              </button>
              <button
                type="button"
                className="icon-button"
                aria-label={`Move ${mod.name} down`}
                disabled={busy || index === mods.length - 1}
                onClick={() => onMove(index, index + 1)}
              >
                ↓
              </button>
              <button
                type="button"
                className="icon-button icon-danger"
                aria-label={`Remove ${mod.name}`}
                onClick={() => onRemove(mod)}
              >
                ✕
              </button>
            </div>
          </li>
        );
      })}
    </ol>
  );
}

function ServerFileSection({ id, version }: { id: string; version: GameVersion }) {
  const trpc = useTRPC();
  const [exportId, setExportId] = useState<string | null>(null);
  const request = useMutation(
    trpc.exports.requestServerFile.mutationOptions({ onSuccess: (requested) => setExportId(requested.exportId) }),
  );
  // Until the file is done, ask now and then; the "Server file ready" notification refreshes it sooner.
  const status = useQuery(
    trpc.exports.status.queryOptions(
      { exportId: exportId ?? "" },
      {
        enabled: exportId !== null,
        refetchInterval: (query) =>
          query.state.data && ["pending", "running"].includes(query.state.data.status) ? 2000 : false,
      },
    ),
  );
  const file = exportId ? status.data : undefined;
  const working = request.isPending || (file !== undefined && ["pending", "running"].includes(file.status));

  return (
    <section className="panel" aria-labelledby="server-file-heading">
      <h2 id="server-file-heading">Server file</h2>
      <p className="muted">
        A <code>servertest.ini</code> with the mods in this load order, for Build {version.slice(0, 2)}.
      </p>
      <button
        type="button"
        className="button-primary"
        disabled={working}
        onClick={() => request.mutate({ id, version })}
      >
        {working ? "Generating…" : `Generate server file (${version})`}
      </button>
      <ErrorNotice error={request.error} title="Could not start the server file." />
      {exportId && status.isError && <ErrorNotice error={status.error} />}
      {file?.status === "failed" && (
        <p role="alert" className="notice notice-error">
          {file.error ?? "The server file could not be generated."}
        </p>
      )}
      {file?.status === "completed" && file.downloadUrl && (
        <div className="download">
          <a className="button button-primary" href={serviceUrl(file.downloadUrl)}>
            Download {file.fileName}
          </a>
          {file.findings.length > 0 && <FindingList findings={file.findings} />}
        </div>
      )}
    </section>
  );
}
