/**
 * Seeds a fresh database through the service's own code where it has a path for it:
 *  - users: `upsertSignedInUser` (the sign-in path), 10 at a time;
 *  - sessions: the session store's `createSession`;
 *  - catalogue mods: `upsertWorkshopItems` (the import's bulk upsert), 1,000 per statement;
 *  - the modpacks the benchmark drives (the 1,000-mod one, the export one): `modpacksService.create`.
 * The service has no bulk path for modpacks, memberships or modpack links, so the other 10,000
 * modpacks, the members and the links are bulk-inserted through Kysely (the service's `Db`, its
 * table types and CamelCasePlugin), with varied timestamps the create path cannot set.
 */
import { createModpackInput } from "@modpack/contract";
import { upsertSignedInUser } from "@modpack/server/auth/accounts";
import { createSessionStore } from "@modpack/server/auth/sessions";
import type { Db } from "@modpack/server/db/database";
import { upsertWorkshopItems } from "@modpack/server/db/mods";
import { modpacksService } from "@modpack/server/services/modpacks";
import { sql } from "kysely";
import { int, modItem, modpackDescription, modpackName, pick, rng, userNames } from "./data.js";

export const SEED = {
  users: 200,
  modpacks: 10_000,
  publicModpacks: 8_000,
  mods: 20_000,
  bigModpackMods: 1_000,
  exportModpackMods: 100,
  /** Modpacks (besides the two above) that get 5-40 mods each. */
  modpacksWithMods: 2_000,
  /** Modpacks that get 1-4 members each. */
  modpacksWithMembers: 3_000,
};

export interface Seeded {
  userIds: string[];
  /** The user the signed-in requests come as: a `read` member of the big modpack, owner of the export one. */
  benchUser: { id: string; sessionToken: string };
  /** Private, owned by another user, 1,000 mods, the bench user a `read` member. */
  bigModpackId: string;
  /** Owned by the bench user, 100 mods: the server-file measurement's modpack. */
  exportModpackId: string;
  /** A public modpack (for the anonymous read checks). */
  publicModpackId: string;
  timings: Record<string, number>;
  counts: Record<string, number>;
}

async function inChunks<T>(items: T[], size: number, work: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await work(items.slice(start, start + size));
}

async function withConcurrency<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  return results;
}

/** Every tenth catalogue mod requires the one before it, so the modpack check has requirements to follow. */
function requirementsOf(workshopId: string): string[] {
  const number = Number(workshopId);
  return number % 10 === 3 ? [String(number - 1)] : [];
}

export async function seed(db: Db): Promise<Seeded> {
  const random = rng(20_261_121);
  const timings: Record<string, number> = {};
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await work();
    timings[name] = Math.round(performance.now() - started);
    return result;
  };

  // Users, through the sign-in path.
  const userIds = await timed("users", () =>
    withConcurrency(
      Array.from({ length: SEED.users }, (_, index) => index),
      10,
      async (index) => {
        const name = `${userNames[index % userNames.length]} ${Math.floor(index / userNames.length) + 1}`;
        const { userId } = await upsertSignedInUser(
          db,
          "bench",
          {
            id: `bench-${index}`,
            name,
            email: `bench${index}@example.com`,
            emailVerified: true,
            image: `https://cdn.example.com/avatars/${index}.png`,
          },
          [],
        );
        return userId;
      },
    ),
  );
  const benchUserId = userIds[0] as string;
  const bigOwnerId = userIds[1] as string;

  // Catalogue mods, through the import's bulk upsert.
  const modIds = await timed("mods", async () => {
    const ids: string[] = [];
    const items = Array.from({ length: SEED.mods }, (_, index) => modItem(random, index));
    await inChunks(items, 1_000, async (chunk) => {
      const rows = await upsertWorkshopItems(
        db,
        chunk.map((item) => ({
          workshopId: item.workshopId,
          title: item.title,
          description: item.description,
          previewUrl: `https://steamuserimages-a.akamaihd.net/ugc/${item.workshopId}/preview.jpg`,
          tags: item.tags,
          timeUpdated: item.timeUpdated,
          platformModIds: item.platformModIds,
          mapFolders: item.mapFolders,
          requiredWorkshopIds: requirementsOf(item.workshopId),
        })),
      );
      // upsert answers rows in no fixed order; keep catalogue order by workshop id.
      rows.sort((a, b) => a.workshopId.localeCompare(b.workshopId));
      for (const row of rows) ids.push(row.id);
    });
    return ids;
  });

  // The modpacks the benchmark drives, through the service's create.
  const service = modpacksService(db);
  const callerOf = (userId: string) => ({
    userId,
    role: "user" as const,
    sessionId: null,
    tokenId: null,
    expiresAt: new Date(Date.now() + 60_000),
  });
  const big = await service.create(
    callerOf(bigOwnerId),
    createModpackInput.parse({
      name: "Knox Country Everything Pack",
      description: "A thousand mods for the brave: every firearm, vehicle and map we could make work together.",
      isPublic: false,
    }),
  );
  const exported = await service.create(
    callerOf(benchUserId),
    createModpackInput.parse({
      name: "Bench Server: Raven Creek",
      description: "The bench user's own server pack, for server-file exports.",
      isPublic: false,
    }),
  );

  // The rest of the modpacks, bulk: 8,000 public, 2,000 private (10 % of those archived).
  const now = Date.now();
  const yearMs = 365 * 86_400_000;
  const modpackIds = await timed("modpacks", async () => {
    const ids: string[] = [];
    const rows = Array.from({ length: SEED.modpacks - 2 }, (_, index) => {
      const isPublic = index < SEED.publicModpacks;
      const createdAt = new Date(now - Math.floor(random() * 3 * yearMs));
      const updatedAt = new Date(Math.min(now, createdAt.getTime() + Math.floor(random() * yearMs)));
      return {
        name: modpackName(random),
        description: random() < 0.9 ? modpackDescription(random) : null,
        avatarUrl: random() < 0.5 ? `https://cdn.example.com/packs/${index}.png` : null,
        platformUrl:
          random() < 0.4 ? `https://steamcommunity.com/sharedfiles/filedetails/?id=${3_000_000_000 + index}` : null,
        ownerId: pick(random, userIds),
        isPublic,
        isVerified: random() < 0.05,
        isActive: isPublic || random() >= 0.1,
        metadata: JSON.stringify(random() < 0.3 ? { discord: `https://discord.gg/pack${index}`, maxPlayers: 32 } : {}),
        createdAt,
        updatedAt,
      };
    });
    // Shuffle public and private so neither clusters at one end of the table.
    for (let index = rows.length - 1; index > 0; index--) {
      const other = Math.floor(random() * (index + 1));
      [rows[index], rows[other]] = [rows[other] as (typeof rows)[number], rows[index] as (typeof rows)[number]];
    }
    await inChunks(rows, 1_000, async (chunk) => {
      const inserted = await db.insertInto("modpacks").values(chunk).returning("id").execute();
      for (const row of inserted) ids.push(row.id);
    });
    return ids;
  });
  const publicModpackId = (
    await db
      .selectFrom("modpacks")
      .select("id")
      .where("isPublic", "=", true)
      .where("isActive", "=", true)
      .orderBy("createdAt", "desc")
      .limit(1)
      .executeTakeFirstOrThrow()
  ).id;

  // Links: the big modpack's 1,000 mods, the export modpack's 100, and 5-40 for 2,000 others.
  const linkCount = await timed("modpackMods", async () => {
    const links: { modpackId: string; modId: string; addedBy: string; addedAt: Date }[] = [];
    const start = now - yearMs;
    for (let index = 0; index < SEED.bigModpackMods; index++) {
      const modId = modIds[(index * 17) % modIds.length] as string;
      links.push({ modpackId: big.id, modId, addedBy: bigOwnerId, addedAt: new Date(start + index * 60_000) });
    }
    for (let index = 0; index < SEED.exportModpackMods; index++) {
      const modId = modIds[(index * 193 + 7) % modIds.length] as string;
      links.push({ modpackId: exported.id, modId, addedBy: benchUserId, addedAt: new Date(start + index * 60_000) });
    }
    for (const modpackId of modpackIds.slice(0, SEED.modpacksWithMods)) {
      const count = int(random, 5, 40);
      const chosen = new Set<string>();
      while (chosen.size < count) chosen.add(pick(random, modIds));
      let at = start + Math.floor(random() * yearMs * 0.5);
      for (const modId of chosen) {
        at += int(random, 1_000, 3_600_000);
        links.push({ modpackId, modId, addedBy: benchUserId, addedAt: new Date(at) });
      }
    }
    await inChunks(links, 5_000, (chunk) => db.insertInto("modpackMods").values(chunk).execute());
    return links.length;
  });

  // Members: the bench user reads the big modpack (with 7 others); 1-4 members on 3,000 modpacks.
  const memberCount = await timed("members", async () => {
    const permissions = [["read"], ["read", "add-mod"], ["read", "add-mod", "remove-mod"], ["read", "configure"]];
    const members: { modpackId: string; userId: string; permission: string[] }[] = [
      { modpackId: big.id, userId: benchUserId, permission: ["read"] },
    ];
    for (const userId of userIds.slice(2, 9)) {
      members.push({ modpackId: big.id, userId, permission: pick(random, permissions) });
    }
    for (const modpackId of modpackIds.slice(0, SEED.modpacksWithMembers)) {
      const chosen = new Set<string>();
      const count = int(random, 1, 4);
      while (chosen.size < count) chosen.add(pick(random, userIds.slice(9)));
      for (const userId of chosen) members.push({ modpackId, userId, permission: pick(random, permissions) });
    }
    await inChunks(members, 5_000, (chunk) => db.insertInto("modpackMembers").values(chunk).execute());
    return members.length;
  });

  // The bench user's session, through the session store.
  const session = await timed("sessions", async () => {
    const store = createSessionStore(db);
    await withConcurrency(userIds.slice(1), 10, (userId) => store.createSession(userId));
    return store.createSession(benchUserId);
  });

  await timed("vacuumAnalyze", () => sql`vacuum analyze`.execute(db));

  return {
    userIds,
    benchUser: { id: benchUserId, sessionToken: session.token },
    bigModpackId: big.id,
    exportModpackId: exported.id,
    publicModpackId,
    timings,
    counts: {
      users: userIds.length,
      modpacks: modpackIds.length + 2,
      mods: modIds.length,
      modpackMods: linkCount,
      members: memberCount,
    },
  };
}
