import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { useTRPC } from "../api";
import { Empty, ErrorNotice } from "../components";
import { ModpackList } from "../modpack-list";
import { navigate } from "../router";

const PAGE_SIZE = 12;

export function MyModpacksPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pages = useInfiniteQuery(
    trpc.modpacks.listMine.infiniteQueryOptions(
      { limit: PAGE_SIZE, sortBy: "updatedAt" },
      { getNextPageParam: (last) => last.pagination.nextCursor },
    ),
  );
  const create = useMutation(
    trpc.modpacks.create.mutationOptions({
      onSuccess: async (created) => {
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.modpacks.listMine.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.modpacks.listPublic.pathKey() }),
        ]);
        navigate(`/modpacks/${created.id}`);
      },
    }),
  );

  const onCreate = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const description = String(form.get("description") ?? "").trim();
    create.mutate({
      name: String(form.get("name") ?? ""),
      isPublic: form.get("isPublic") === "on",
      ...(description ? { description } : {}),
    });
  };

  return (
    <>
      <header className="page-header">
        <h1>My modpacks</h1>
        <p className="muted">The modpacks you own or help curate.</p>
      </header>

      <section className="panel" aria-labelledby="new-modpack">
        <h2 id="new-modpack">New modpack</h2>
        <form className="form-grid" onSubmit={onCreate}>
          <label>
            Name
            <input name="name" required placeholder="Brita's Apocalypse" autoComplete="off" />
          </label>
          <label>
            <span>
              Description <span className="muted">(optional)</span>
            </span>
            <input name="description" placeholder="Guns, vehicles and a bigger map." autoComplete="off" />
          </label>
          <label className="checkbox">
            <input type="checkbox" name="isPublic" /> Public: listed for everyone
          </label>
          <button type="submit" className="button-primary" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create modpack"}
          </button>
        </form>
        <ErrorNotice error={create.error} title="Could not create the modpack." />
      </section>

      <section aria-labelledby="mine">
        <h2 id="mine">Yours</h2>
        <ModpackList
          pages={pages}
          label="Your modpacks"
          linkTo={(modpack) => `/modpacks/${modpack.id}`}
          empty={
            <Empty title="No modpacks yet">Create your first one above, then add mods from the Steam Workshop.</Empty>
          }
        />
      </section>
    </>
  );
}
