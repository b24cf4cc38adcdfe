import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../api";
import { Empty } from "../components";
import { ModpackList } from "../modpack-list";

const PAGE_SIZE = 12;

/** Everyone's public modpacks, newest first, loading more as the list scrolls. */
export function PublicModpacksPage({ userId }: { userId: string | null }) {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const pages = useInfiniteQuery(
    trpc.modpacks.listPublic.infiniteQueryOptions(
      { limit: PAGE_SIZE, ...(search.trim() ? { search: search.trim() } : {}) },
      { getNextPageParam: (last) => last.pagination.nextCursor },
    ),
  );

  return (
    <>
      <header className="page-header">
        <h1>Public modpacks</h1>
        <p className="muted">What other server owners share.</p>
      </header>
      <search className="search">
        <label>
          <span className="visually-hidden">Search public modpacks</span>
          <input
            type="search"
            placeholder="Search by name or description"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
        </label>
      </search>
      <ModpackList
        pages={pages}
        label="Public modpacks"
        linkTo={(modpack) => (modpack.owner === userId ? `/modpacks/${modpack.id}` : null)}
        empty={
          <Empty title={search.trim() ? "Nothing matches" : "No public modpacks yet"}>
            {search.trim() ? "Try other words." : "Make one of yours public and it shows here."}
          </Empty>
        }
      />
    </>
  );
}
