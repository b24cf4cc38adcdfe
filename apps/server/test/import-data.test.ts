/**
 * Workshop data as the world makes it, through a whole import: control characters in every text,
 * unusable in-game ids, timestamps no date can hold, and an item the database refuses. Each item
 * is stored or reported on its own; the counts are exact (`modsImported + modsFailed` = items seen).
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { createModpack, startImport, waitForImport } from "./support/modpacks.js";
import { linkedWorkshopIds } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let steam: FakeSteam;
let service: TestService;
let owner: SignedIn;

/** The item the database refuses (a trigger stands in for any value Postgres will not store). */
const REFUSED = "7999";

beforeAll(async () => {
  steam = await startFakeSteam();
  service = await startTestService({ env: { WORKSHOP_API_URL: steam.url, WORKSHOP_MAX_RETRIES: "0" } });
  owner = await signIn(service, { name: "Import owner" });
  const { db } = service.runtime.database;
  await sql
    .raw(`
      create function refuse_item() returns trigger language plpgsql as $$
      begin
        if new.workshop_id = '${REFUSED}' then
          raise exception 'value refused' using errcode = '22023';
        end if;
        return new;
      end $$
    `)
    .execute(db);
  await sql
    .raw("create trigger refuse_item before insert or update on mods for each row execute function refuse_item()")
    .execute(db);
});

afterAll(async () => {
  await service?.stop();
  await steam?.close();
});

describe("an import of messy workshop data", () => {
  it("stores every storable item, reports the rest, and counts exactly", async () => {
    const ids: string[] = [];
    for (let index = 0; index < 150; index += 1) {
      const workshopId = String(7000 + index);
      ids.push(workshopId);
      steam.items.set(workshopId, fakeItem(workshopId));
    }
    steam.items.set(
      "7001",
      fakeItem("7001", {
        title: "Nul\u0000Title\u0007",
        description: "Intro\u0000 text\u001b[31m\nMod ID: Good\u0000Id\nMod ID: Bad=Id\nMap Folder: Map;Evil",
        tags: ["Build 42\u0000", "Weapons\u0085"],
      }),
    );
    steam.items.set("7002", fakeItem("7002", { timeUpdated: 1e14 }));
    steam.items.set(REFUSED, fakeItem(REFUSED));
    ids.push(REFUSED);
    steam.collections.set("7777", ids);

    const modpackId = await createModpack(service, owner, { name: "Messy import" });
    await startImport(service, owner, modpackId, "7777");
    const status = await waitForImport(service, owner, modpackId);

    expect(status.status).toBe("completed");
    expect(status.modsImported).toBe(150);
    expect(status.modsFailed).toBe(1);
    expect(Number(status.modsImported) + Number(status.modsFailed)).toBe(ids.length);
    const { failures } = status;
    expect(failures.find((failure) => failure.reason === "unstorable")).toMatchObject({ workshopId: REFUSED });
    const rejected = failures.find((failure) => failure.reason === "ids_rejected");
    expect(rejected?.workshopId).toBe("7001");
    expect(rejected?.detail).toContain("Bad=Id");

    const { db } = service.runtime.database;
    const messy = await db
      .selectFrom("mods")
      .select(["name", "description", "tags", "platformModIds", "mapFolders", "timeUpdated"])
      .where("workshopId", "in", ["7001", "7002"])
      .orderBy("workshopId")
      .execute();
    const [first, second] = messy;
    expect(first?.name).toBe("NulTitle");
    const control = (text: string) =>
      [...text].filter((char) => {
        const code = char.codePointAt(0) ?? 0;
        return (code < 0x20 && char !== "\n" && char !== "\t") || code === 0x7f || code === 0x85;
      });
    for (const text of [first?.name ?? "", first?.description ?? "", ...(first?.tags ?? [])]) {
      expect(control(text), JSON.stringify(text)).toEqual([]);
    }
    expect(first?.platformModIds).toEqual(["GoodId"]);
    expect(first?.mapFolders.join("")).not.toContain(";");
    expect(second?.timeUpdated).toBeNull();

    expect(await linkedWorkshopIds(service, modpackId)).toHaveLength(150);
  });
});
