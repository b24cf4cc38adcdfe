import type { ModpackSummary, Paged } from "@modpack/client";
import type { InfiniteData, UseInfiniteQueryResult } from "@tanstack/react-query";
import { type ReactNode, useEffect, useRef } from "react";
import { ErrorNotice, formatDate, Loading, Thumbnail } from "./components";
import { Link } from "./router";

/** Pages of modpacks from `listMine` or `listPublic`, each read after the cursor of the one before. */
type ModpackPages = UseInfiniteQueryResult<InfiniteData<Paged<ModpackSummary>, string | null>, unknown>;

/**
 * The modpacks of an infinite query on the list's keyset cursor: the next page loads when the end
 * of the list scrolls into view (or with the button, where scrolling is not how the reader moves).
 */
export function ModpackList({
  pages,
  label,
  empty,
  linkTo,
}: {
  pages: ModpackPages;
  label: string;
  empty: ReactNode;
  /** Where a modpack's card leads, if anywhere. */
  linkTo?: (modpack: ModpackSummary) => string | null;
}) {
  const end = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;

  useEffect(() => {
    const sentinel = end.current;
    if (!sentinel || !hasNextPage) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
    });
    observer.observe(sentinel);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  if (pages.isPending) return <Loading label="Loading modpacks…" />;
  // A later page that fails keeps the earlier ones on screen, with the error under them.
  if (!pages.data) return <ErrorNotice error={pages.error} />;
  const modpacks = pages.data.pages.flatMap((page) => page.data);
  if (modpacks.length === 0) return <>{empty}</>;

  return (
    <>
      <ul className="card-grid" aria-label={label}>
        {modpacks.map((modpack) => (
          <li key={modpack.id}>
            <ModpackCard modpack={modpack} to={linkTo?.(modpack) ?? null} />
          </li>
        ))}
      </ul>
      <div ref={end} className="list-end">
        {pages.isFetchNextPageError && <ErrorNotice error={pages.error} />}
        {hasNextPage ? (
          <button type="button" className="button-quiet" disabled={isFetchingNextPage} onClick={() => fetchNextPage()}>
            {isFetchingNextPage ? "Loading more…" : "Load more"}
          </button>
        ) : (
          <p className="muted">{modpacks.length === 1 ? "The only one" : `All ${modpacks.length} shown`}</p>
        )}
      </div>
    </>
  );
}

function ModpackCard({ modpack, to }: { modpack: ModpackSummary; to: string | null }) {
  const body = (
    <>
      <Thumbnail src={modpack.avatarUrl} name={modpack.name} size={56} />
      <div className="card-text">
        <h3>{modpack.name}</h3>
        {modpack.description && <p className="card-description">{modpack.description}</p>}
        <p className="card-meta">
          <span className={`badge ${modpack.isPublic ? "badge-public" : ""}`}>
            {modpack.isPublic ? "Public" : "Private"}
          </span>
          {!modpack.isActive && <span className="badge badge-warning">Archived</span>}
          <span>Updated {formatDate(modpack.updatedAt)}</span>
        </p>
      </div>
    </>
  );
  return to ? (
    <Link to={to} className="card card-link">
      {body}
    </Link>
  ) : (
    <div className="card">{body}</div>
  );
}
