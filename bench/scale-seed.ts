/**
 * The `--scale` data set: about ten times a realistic catalogue and user base, seeded with set-based
 * SQL (`generate_series`) into a database the service's own migrations created. Ids are derived from
 * each row's number, so rows refer to each other without lookups and every run seeds the same data.
 *
 * Skew: five 5,000-mod modpacks; the bench user owns 3,000 modpacks, is a member of 500 more and has
 * 50,000 notifications; modpack sizes, mod popularity and tags follow long tails. Words cluster as
 * in real catalogues: "Raven" begins the names of 5 % of the mods and 3 % of the modpacks (a map's
 * series of add-ons) and appears nowhere else, so its matches sit together in name order; the tag
 * `Weapons` is on a third of the mods.
 */
import pg from "pg";

/**
 * `BENCH_SCALE_FACTOR` (default 1) multiplies the catalogue, the modpacks, the users and the
 * notifications but keeps the skew (the big packs, the busy user): 0.1 seeds about the ordinary
 * bench's size, so the same rows at both sizes show what grows with the catalogue.
 * `BENCH_SCALE_SIZE=mid` seeds the ordinary bench's proportions instead: 10,000 modpacks and
 * 20,000 mods (the factor 0.1 for everything but the catalogue).
 */
const mid = process.env.BENCH_SCALE_SIZE === "mid";
const factor = mid ? 0.1 : Number(process.env.BENCH_SCALE_FACTOR ?? 1);
const scaled = (size: number) => Math.round(size * factor);

export const SCALE = {
  users: scaled(200_000),
  modpacks: scaled(100_000),
  mods: mid ? 20_000 : scaled(300_000),
  /** Modpack-mod links, approximately (the per-pack sizes are drawn). */
  modpackMods: scaled(3_000_000),
  notifications: scaled(2_000_000),
  bigModpacks: 5,
  bigModpackMods: 5_000,
  busyUserModpacks: 3_000,
  busyUserNotifications: 50_000,
};

/** The uuid of row `n` of a table, by table prefix (users 1, modpacks 2, mods 3, links 4, notifications 5). */
export const rowId = (prefix: number, n: number) =>
  `${String(prefix).padStart(8, "0")}-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;
const idSql = (prefix: number, expression: string) =>
  `('${String(prefix).padStart(8, "0")}-0000-7000-8000-' || lpad(to_hex(${expression}), 12, '0'))::uuid`;

export interface ScaleSeeded {
  /** User 1: owner of 3,000 modpacks, member of 500, 50,000 notifications, admin. */
  busyUserId: string;
  /** Modpack 1: public, 5,000 mods, owned by user 2. */
  bigModpackId: string;
  /** Mod 1. */
  modId: string;
  counts: Record<string, number>;
  timings: Record<string, number>;
}

const TABLES = ["users", "modpacks", "modpack_members", "mods", "modpack_mods", "notifications"];

export async function seedScale(client: pg.Client, connectionString: string): Promise<ScaleSeeded> {
  const timings: Record<string, number> = {};
  const timed = async (name: string, text: string) => {
    const started = performance.now();
    await client.query(text);
    timings[name] = Math.round(performance.now() - started);
  };
  await client.query("set maintenance_work_mem = '512MB'");
  await client.query("set synchronous_commit = off");
  // The rows are consistent by construction: foreign-key triggers would only double the load time.
  await client.query("set session_replication_role = replica");
  await client.query("select setseed(0.2026)");

  // Bulk loading into indexed tables is several times slower than building the indexes afterwards:
  // the migrations' secondary indexes are dropped here and re-created from their own definitions.
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `select i.indexname as name, i.indexdef as definition
     from pg_indexes i
     where i.schemaname = 'public' and i.tablename = any($1)
       and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`,
    [TABLES],
  );
  for (const index of indexes) await client.query(`drop index ${index.name}`);

  const n = SCALE;
  await timed(
    "users",
    `insert into users (id, name, email, image, role, created_at, updated_at)
     select ${idSql(1, "i")},
       (array['Kate','Baldspot','Marina','Spiffo','Bob','Lemmy','Nolan','Kira','Diego','Aiko','Sven','Priya','Olu','Mateus','Hanna','Yuri','Chen','Fatima','Liam','Noor'])[1 + i % 20] || ' ' || i,
       'user' || i || '@example.com', 'https://cdn.example.com/avatars/' || i || '.png',
       case when i = 1 then 'admin' else 'user' end,
       now() - (i) * interval '1 minute', now() - (i) * interval '1 minute'
     from generate_series(1, ${n.users}) as i`,
  );

  // Mods: names from a topic list (every twentieth begins with "Raven Creek"), descriptions with a
  // sentence on generators in about a third, tags: a build tag, `Weapons` on every third, 1-2
  // popular ones (skewed towards the first) and now and then a rare one.
  await timed(
    "mods",
    `insert into mods (id, workshop_id, name, description, avatar_url, platform_mod_ids, map_folders, tags, time_updated, created_at, updated_at)
     select ${idSql(3, "i")}, (2000000000 + i)::text,
       case when i % 20 = 7 then 'Raven Creek' else
         (array['Better','Extended','Simple','Immersive','Authentic','More','Realistic','Expanded','Brita''s','Tsar''s','KI5''s','True','Advanced','Easy','Improved','Filibuster''s'])[1 + (i * 7) % 16] end
         || ' ' || topic || case when i % 5 = 0 then ' (Build 42)' else '' end,
       '[h1]' || topic || '[/h1] ' ||
         (array['This mod adds new items and recipes that fit the vanilla style.','Compatible with multiplayer; every client needs the same version.','Works on existing saves, but a new world is recommended for loot changes.','Sandbox options let server owners tune spawn rates and difficulty.','Translations: English, Spanish, Portuguese, Russian, German and French.','Textures were redrawn at twice the vanilla resolution.','Balanced around the default Apocalypse settings.'])[1 + i % 7]
         || case when i % 3 = 0 then ' Keeps your generator running through the winter.' else ' Report bugs in the discussion thread with your console.txt attached.' end
         || ' Workshop ID: ' || (2000000000 + i) || ' Mod ID: ' || replace(topic, ' ', '') || i,
       'https://steamuserimages-a.akamaihd.net/ugc/' || (2000000000 + i) || '/preview.jpg',
       array[replace(topic, ' ', '') || i], '{}',
       array_remove(array[
         case when i % 5 < 3 then 'Build 41' else 'Build 42' end,
         case when i % 3 = 1 then 'Weapons' end,
         (array['Tools','Items','Vehicles','Clothing','QoL','Map','Building','Multiplayer','Animals','Audio','Food','Interface','Literature','Models','Textures','Traits','Professions','Medical','Farming','Fishing'])[1 + floor(20 * power(random(), 2))::int],
         case when random() < 0.5 then (array['Tools','Items','Vehicles','Clothing','QoL','Map','Building','Multiplayer','Animals','Audio','Food','Interface','Literature','Models','Textures','Traits','Professions','Medical','Farming','Fishing'])[1 + floor(20 * random())::int] end,
         case when random() < 0.1 then 'Rare ' || floor(3000 * power(random(), 3))::int end
       ]::text[], null),
       timestamptz '2022-01-01' + (random() * 1400) * interval '1 day',
       now() - ((${n.mods} - i)) * interval '1 second', now() - (random() * 300) * interval '1 day'
     from generate_series(1, ${n.mods}) as i,
       lateral (select (array['Firearms','Vehicles','Hairstyles','Backpacks','Generators','Farming','Fishing','Radio','Medical','Helicopter Events','Lockpicking','Sprinters','Weather','Furniture','Loot Tables','Skill Books','Night Vision','Trailers','Bicycles','Cooking','Knives','Armour','Traps','Water Pumps','Military Gear','Tailoring','Horses','Mechanics','Boats','Barricades'])[1 + (i * 13 + i / 30) % 30] as topic) t`,
  );

  // Modpacks: 80 % public, 5 % archived; the bench user owns packs 1,001-4,000; others skewed owners;
  // every 33rd name begins with "Raven".
  await timed(
    "modpacks",
    `insert into modpacks (id, name, description, avatar_url, platform_url, owner_id, is_public, is_verified, is_active, metadata, created_at, updated_at)
     select ${idSql(2, "i")},
       case when i % 33 = 5 then 'Raven' else
         (array['Hardcore','Casual','Vanilla+','Brutal','Cozy','Realistic','Lore-friendly','Ultimate','Chill','Tactical','Rusty','Silent','Frozen','Lonely','Rural','Urban'])[1 + (i * 3) % 16] end
         || ' ' || (array['Knox Country','Louisville','Muldraugh','West Point','Riverside','Rosewood','March Ridge','Doe Valley','Ekron','Brandenburg','Irvington','Fort Knox','Valley Station','Echo Creek','Dixie','Fallas Lake','Crossroads Mall','Bedford Falls','Chestown','Grapeseed'])[1 + floor(20 * power(random(), 1.5))::int]
         || ' ' || (array['Survival','Roleplay','Server Pack','Collection','Apocalypse','Outbreak','Experience','Overhaul','Run','Community','PvE','PvP','Co-op','Sandbox'])[1 + i % 14],
       case when i % 10 = 0 then null else 'A modpack for ' || (array['small groups of friends','long multiplayer seasons','solo players who want a challenge','roleplay communities'])[1 + i % 4] || ': ' ||
         (array['more firearms and ammunition','a helicopter event every few days','working generators and electricity','hundreds of new vehicles','expanded farming and cooking','huge hordes that migrate at night'])[1 + (i / 7) % 6] || '.' end,
       case when i % 2 = 0 then 'https://cdn.example.com/packs/' || i || '.png' end,
       case when i % 5 = 0 then 'https://steamcommunity.com/sharedfiles/filedetails/?id=' || (3000000000 + i) end,
       case when i = 1 then ${idSql(1, "2")}
            when i between 1001 and ${1000 + n.busyUserModpacks} then ${idSql(1, "1")}
            else ${idSql(1, `2 + floor(${n.users - 2} * power(random(), 3))::int`)} end,
       i = 1 or i % 5 <> 0, i % 20 = 0, i = 1 or i % 20 <> 7, '{}'::jsonb,
       now() - ((${n.modpacks} - i) * 300) * interval '1 second',
       now() - (random() * 400) * interval '1 day'
     from generate_series(1, ${n.modpacks}) as i`,
  );

  // Members: the bench user is a member of packs 5,001-5,500; 1-3 members on every tenth pack.
  await timed(
    "modpackMembers",
    `insert into modpack_members (modpack_id, user_id, permission)
     select ${idSql(2, "i")}, ${idSql(1, "1")}, array['read','add-mod'] from generate_series(5001, 5500) as i
     union all
     select distinct on (p, u) ${idSql(2, "p")}, ${idSql(1, "u")}, array['read']
     from generate_series(10, ${n.modpacks}, 10) as p, generate_series(1, 1 + p % 3) as k,
       lateral (select 3 + ((p * 7919 + k * 104729) % ${n.users - 3}) as u) chosen`,
  );

  // Links: the big packs 5,000 each, the others 1-59 (about 30 on average); within a pack the mods
  // are offset + k * stride (mod the catalogue size), distinct for any k below the catalogue size.
  // Offsets favour the start of the catalogue: some mods are in thousands of packs, most in few.
  // Each link carries its mod's name and tags, as the triggers (off while seeding) would copy them;
  // the catalogue fits one hash table, so the links are written in the order they are generated.
  await client.query("set work_mem = '256MB'");
  await timed(
    "modpackMods",
    `insert into modpack_mods (id, modpack_id, mod_id, added_by, added_at, created_at, updated_at, mod_name, mod_tags)
     select link.*, mods.name, mods.tags
     from (
       select ${idSql(4, `(p::bigint * 6000 + k)`)} as id, ${idSql(2, "p")} as modpack_id,
         ${idSql(3, `1 + ((offset_ + k::bigint * 7) % ${n.mods})`)} as mod_id, null::uuid as added_by,
         now() - interval '400 days' + (k) * interval '1 minute' as added_at, now() as created_at, now() as updated_at
       from generate_series(1, ${n.modpacks}) as p,
         lateral (select case when p <= ${n.bigModpacks} then ${n.bigModpackMods} else 1 + floor(random() * 58 + p * 0)::int end as size,
                         floor(${n.mods} * power(random() + p * 0, 2))::bigint as offset_) s,
         lateral generate_series(1, size) as k
     ) as link
     join mods on mods.id = link.mod_id`,
  );
  await client.query("reset work_mem");

  // Notifications: the bench user 50,000 (a fifth unread); the rest over skewed users.
  await timed(
    "notifications",
    `insert into notifications (id, user_id, title, content, type, is_read, metadata, created_at, updated_at)
     select ${idSql(5, "i")},
       case when i <= ${n.busyUserNotifications} then ${idSql(1, "1")} else ${idSql(1, `2 + floor(${n.users - 2} * power(random(), 2))::int`)} end,
       (array['Import finished','Mod updated','Modpack verified','Export ready'])[1 + i % 4],
       'Notification ' || i || ': something happened to one of your modpacks.',
       (array['info','success','warning','error'])[1 + i % 4],
       i % 5 <> 0, '{}'::jsonb,
       now() - ((${n.notifications} - i)) * interval '1 second', now()
     from generate_series(1, ${n.notifications}) as i`,
  );

  // The stored search text (migration 0012) is a trigger's work, off with the foreign keys' in
  // replica mode: the rows fire it once, by naming a column it reads in an update.
  await client.query("set session_replication_role = origin");
  await timed("searchText", "update mods set name = name; update modpacks set name = name");
  await client.query("set session_replication_role = replica");

  const started = performance.now();
  // Two at a time: the machine has two cores.
  const queue = [...indexes];
  const worker = async () => {
    const own = new pg.Client({ connectionString });
    await own.connect();
    await own.query("set maintenance_work_mem = '512MB'");
    try {
      for (let index = queue.shift(); index; index = queue.shift()) await own.query(index.definition);
    } finally {
      await own.end();
    }
  };
  await Promise.all([worker(), worker()]);
  timings.indexes = Math.round(performance.now() - started);
  await timed("vacuumAnalyze", "vacuum analyze");

  const { rows } = await client.query<Record<string, number>>(
    `select ${TABLES.map((table) => `(select count(*) from ${table})::int as ${table}`).join(", ")}`,
  );
  return {
    busyUserId: rowId(1, 1),
    bigModpackId: rowId(2, 1),
    modId: rowId(3, 1),
    counts: rows[0] ?? {},
    timings,
  };
}
