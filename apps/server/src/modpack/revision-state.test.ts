import { describe, expect, it } from "vitest";
import { byKey, type KeyedMod, movedIds, planRevision, type RevisionMod } from "./revision-state.js";

const mod = (id: string, extra: Partial<RevisionMod> = {}): RevisionMod => ({
  id,
  workshopId: `w-${id}`,
  name: `Mod ${id}`,
  selected: null,
  custom: [],
  idsB41: [id],
  idsB42: [id],
  mapFolders: [],
  requiredWorkshopIds: [],
  timeUpdated: null,
  ...extra,
});

/** Records `states` one after the other, as the service would, and answers each plan and the heads. */
function record(states: RevisionMod[][]) {
  let head: KeyedMod[] = [];
  const plans = states.map((live) => {
    const plan = planRevision(head, live);
    const closed = new Set(plan.close);
    head = [...head.filter((entry) => !closed.has(entry.id)), ...plan.open].sort(byKey);
    return { plan, order: head.map((entry) => entry.id) };
  });
  return plans;
}

describe("movedIds", () => {
  const cases: { name: string; before: string; after: string; moved: string }[] = [
    { name: "the same order", before: "abcde", after: "abcde", moved: "" },
    { name: "the last moved first", before: "abcde", after: "eabcd", moved: "e" },
    { name: "the first moved last", before: "abcde", after: "bcdea", moved: "a" },
    { name: "two swapped far apart", before: "abcdef", after: "aecdbf", moved: "be" },
    { name: "reversed", before: "abcd", after: "dcba", moved: "bcd" },
    { name: "added and removed mods do not count", before: "abcd", after: "xbyd", moved: "" },
    { name: "empty", before: "", after: "", moved: "" },
  ];
  it.each(cases)("$name", ({ before, after, moved }) => {
    expect([...movedIds([...before], [...after])].sort().join("")).toBe(moved);
  });
});

describe("planRevision", () => {
  it("keeps the keys of the mods that stayed, so one move stores one entry", () => {
    const ids = [..."abcdefghij"];
    const orders = [ids, [...ids.slice(1), "a"], ["j", ...ids.slice(1, 9), "a"], [..."jbcdefghia"]];
    const plans = record(orders.map((order) => order.map((id) => mod(id))));
    expect(plans.map(({ plan }) => plan.open.length)).toEqual([10, 1, 1, 0]);
    expect(plans.map(({ plan }) => plan.changed)).toEqual([true, true, true, false]);
    expect(plans.map(({ plan }) => plan.counts.moved)).toEqual([0, 1, 1, 0]);
    for (const [index, { order }] of plans.entries()) expect(order).toEqual(orders[index]);
  });

  const table: { name: string; change: (mods: RevisionMod[]) => RevisionMod[]; changed: boolean; counts: object }[] = [
    { name: "nothing", change: (mods) => mods, changed: false, counts: {} },
    {
      name: "a new name and date",
      change: (mods) => mods.map((m) => ({ ...m, name: "x", timeUpdated: new Date(1) })),
      changed: false,
      counts: {},
    },
    { name: "an added mod", change: (mods) => [...mods, mod("z")], changed: true, counts: { added: 1 } },
    { name: "a removed mod", change: (mods) => mods.slice(1), changed: true, counts: { removed: 1 } },
    {
      name: "a narrower selection",
      change: (mods) => [{ ...mods[0]!, selected: [], idsB41: [], idsB42: [] }, ...mods.slice(1)],
      changed: true,
      counts: { selectionChanged: 1 },
    },
    {
      name: "a custom id",
      change: (mods) => [{ ...mods[0]!, custom: ["c"], idsB41: ["a", "c"] }, ...mods.slice(1)],
      changed: true,
      counts: { selectionChanged: 1 },
    },
    {
      name: "new map folders",
      change: (mods) => [{ ...mods[0]!, mapFolders: ["Town"] }, ...mods.slice(1)],
      changed: true,
      counts: {},
    },
    {
      name: "new requirements",
      change: (mods) => [{ ...mods[0]!, requiredWorkshopIds: ["9"] }, ...mods.slice(1)],
      changed: true,
      counts: {},
    },
  ];
  it.each(table)("$name", ({ change, changed, counts }) => {
    const start = [..."abc"].map((id) => mod(id));
    const plan = record([start, change(start)])[1]!.plan;
    expect(plan.changed).toBe(changed);
    expect(plan.counts).toEqual({ added: 0, removed: 0, moved: 0, selectionChanged: 0, ...counts });
  });
});
