import { isDeepStrictEqual } from "node:util";
import { generateNKeysBetween } from "fractional-indexing";

/*
 * A modpack's revision state and the differences between two states. Pure, and importing no
 * service: the service that records revisions and the one that reads them share these pieces.
 */

/** One mod of a revision: what its server file writes, and what the catalogue knew of it then. */
export interface RevisionMod {
  id: string;
  workshopId: string;
  name: string;
  /** The selected in-game ids; null: all of the mod's ids. */
  selected: string[] | null;
  custom: string[];
  /** The ids the Build 41 and Build 42 files write for the mod. */
  idsB41: string[];
  idsB42: string[];
  mapFolders: string[];
  requiredWorkshopIds: string[];
  timeUpdated: Date | null;
}

/** A stored entry: a mod of a revision with the key that orders it. */
export interface KeyedMod extends RevisionMod {
  sortKey: string;
}

/** Orders entries by their keys, compared as plain strings (code unit order). */
export function byKey(a: { sortKey: string }, b: { sortKey: string }): number {
  return a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0;
}

/**
 * Which of `after`'s ids (those also in `before`) changed their place relative to the others: the
 * complement of a longest run the two orders share (a longest increasing subsequence of the old
 * positions, read in the new order). Moving one mod moves only that mod, however far it goes.
 */
export function movedIds(before: readonly string[], after: readonly string[]): Set<string> {
  const oldIndex = new Map(before.map((id, index) => [id, index]));
  const kept = after.filter((id) => oldIndex.has(id));
  // Patience sorting: tails[k] is the index in `kept` of the smallest tail of a run of length k + 1.
  const tails: number[] = [];
  const previous = new Array<number>(kept.length).fill(-1);
  kept.forEach((id, index) => {
    const value = oldIndex.get(id)!;
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (oldIndex.get(kept[tails[middle]!]!)! < value) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[index] = tails[low - 1]!;
    tails[low] = index;
  });
  const stay = new Set<string>();
  for (let index = tails.at(-1) ?? -1; index >= 0; index = previous[index]!) stay.add(kept[index]!);
  return new Set(kept.filter((id) => !stay.has(id)));
}

/** Whether two entries of one mod write the same lines, whatever the catalogue's name or date. */
function sameChoice(a: RevisionMod, b: RevisionMod): boolean {
  return (
    isDeepStrictEqual(a.selected, b.selected) &&
    isDeepStrictEqual(a.custom, b.custom) &&
    isDeepStrictEqual(a.idsB41, b.idsB41) &&
    isDeepStrictEqual(a.idsB42, b.idsB42)
  );
}

function sameCatalogue(a: RevisionMod, b: RevisionMod): boolean {
  return (
    isDeepStrictEqual(a.mapFolders, b.mapFolders) &&
    isDeepStrictEqual(a.requiredWorkshopIds, b.requiredWorkshopIds) &&
    a.workshopId === b.workshopId
  );
}

export interface RevisionCounts {
  added: number;
  removed: number;
  moved: number;
  selectionChanged: number;
}

/** What recording `live` after `head` stores: the counts, the entries it closes and those it opens. */
export interface RevisionPlan {
  /** False when `live` writes what `head` writes: no revision. */
  changed: boolean;
  counts: RevisionCounts;
  /** Mods whose open entry ends at the new revision. */
  close: string[];
  /** Entries the new revision opens. */
  open: KeyedMod[];
}

/**
 * Plans a revision of `live` (the pack's mods in load order) after `head` (the newest revision's
 * entries, in key order). Mods that kept their place keep their keys; the others get keys between
 * their neighbours', so only the mods that were added, moved or changed get new entries.
 */
export function planRevision(head: readonly KeyedMod[], live: readonly RevisionMod[]): RevisionPlan {
  const headById = new Map(head.map((entry) => [entry.id, entry]));
  const liveIds = new Set(live.map((mod) => mod.id));
  const moved = movedIds(
    head.map((entry) => entry.id),
    live.map((mod) => mod.id),
  );
  const removed = head.filter((entry) => !liveIds.has(entry.id)).map((entry) => entry.id);

  // Keys: a mod that stays keeps its key; each run of the others between two that stay is spread
  // between their keys.
  const keys = new Map<string, string>();
  let run: string[] = [];
  let before: string | null = null;
  const flush = (next: string | null) => {
    if (run.length === 0) return;
    const fresh = generateNKeysBetween(before, next, run.length);
    for (const [index, id] of run.entries()) keys.set(id, fresh[index]!);
    run = [];
  };
  for (const mod of live) {
    const old = headById.get(mod.id);
    if (old && !moved.has(mod.id)) {
      flush(old.sortKey);
      keys.set(mod.id, old.sortKey);
      before = old.sortKey;
    } else {
      run.push(mod.id);
    }
  }
  flush(null);

  const counts: RevisionCounts = { added: 0, removed: removed.length, moved: moved.size, selectionChanged: 0 };
  let catalogueChanged = false;
  const close = [...removed];
  const open: KeyedMod[] = [];
  for (const mod of live) {
    const sortKey = keys.get(mod.id)!;
    const old = headById.get(mod.id);
    if (!old) {
      counts.added += 1;
    } else {
      if (!sameChoice(old, mod)) counts.selectionChanged += 1;
      if (!sameCatalogue(old, mod)) catalogueChanged = true;
      if (
        old.sortKey === sortKey &&
        old.name === mod.name &&
        old.timeUpdated?.getTime() === mod.timeUpdated?.getTime() &&
        sameChoice(old, mod) &&
        sameCatalogue(old, mod)
      ) {
        continue;
      }
      close.push(mod.id);
    }
    open.push({ ...mod, sortKey });
  }
  const changed = counts.added + counts.removed + counts.moved + counts.selectionChanged > 0 || catalogueChanged;
  return { changed, counts, close, open };
}

/** A mod as a comparison names it. */
export interface ModRef {
  id: string;
  workshopId: string;
  name: string;
}

export interface StateComparison {
  added: ModRef[];
  removed: ModRef[];
  /** Positions count from 1. */
  moved: (ModRef & { fromPosition: number; toPosition: number })[];
  selectionChanged: (ModRef & {
    before: { "41x": string[]; "42x": string[] };
    after: { "41x": string[]; "42x": string[] };
  })[];
}

const refOf = (mod: RevisionMod): ModRef => ({ id: mod.id, workshopId: mod.workshopId, name: mod.name });
const idsOf = (mod: RevisionMod) => ({ "41x": mod.idsB41, "42x": mod.idsB42 });

/** What changed from `from` to `to` (each in load order), in `to`'s order (removed ones in `from`'s). */
export function compareStates(from: readonly RevisionMod[], to: readonly RevisionMod[]): StateComparison {
  const fromById = new Map(from.map((mod, index) => [mod.id, { mod, position: index + 1 }]));
  const toIds = new Set(to.map((mod) => mod.id));
  const moved = movedIds(
    from.map((mod) => mod.id),
    to.map((mod) => mod.id),
  );
  const comparison: StateComparison = { added: [], removed: [], moved: [], selectionChanged: [] };
  to.forEach((mod, index) => {
    const old = fromById.get(mod.id);
    if (!old) {
      comparison.added.push(refOf(mod));
      return;
    }
    if (moved.has(mod.id)) comparison.moved.push({ ...refOf(mod), fromPosition: old.position, toPosition: index + 1 });
    if (!sameChoice(old.mod, mod)) {
      comparison.selectionChanged.push({ ...refOf(mod), before: idsOf(old.mod), after: idsOf(mod) });
    }
  });
  for (const mod of from) if (!toIds.has(mod.id)) comparison.removed.push(refOf(mod));
  return comparison;
}
