import { workshopTextLimits } from "@modpack/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeSteam, fakeItem, startFakeSteam } from "../../test/fixtures/steam-api.js";
import {
  cleanDescription,
  cleanLine,
  cleanTags,
  cleanUrl,
  createWorkshopClient,
  WORKSHOP_ENDPOINTS,
  type WorkshopClientOptions,
  WorkshopError,
} from "./client.js";

const API_KEY = "0123456789ABCDEF0123456789ABCDEF";

let steam: FakeSteam;

beforeAll(async () => {
  steam = await startFakeSteam();
});
afterAll(() => steam.close());
beforeEach(() => steam.reset());

function client(options: Partial<WorkshopClientOptions> = {}) {
  return createWorkshopClient({ baseUrl: steam.url, retryBaseMs: 5, ...options });
}

function addItems(...ids: string[]) {
  for (const id of ids) steam.items.set(id, fakeItem(id));
}

async function caught(promise: Promise<unknown>): Promise<WorkshopError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WorkshopError) return error;
    throw error;
  }
  throw new Error("expected a WorkshopError");
}

describe("getItems", () => {
  it("reads an item and parses its description", async () => {
    steam.items.set(
      "2169435993",
      fakeItem("2169435993", {
        title: "Mod Options (Build 41)",
        description: "[b]Workshop ID:[/b] 2169435993\r\n[b]Mod ID:[/b] modoptions\r\nMap Folder: Muldraugh, KY",
        tags: ["Build 41", "Framework"],
        timeUpdated: 1_700_000_123,
      }),
    );
    const [result] = await client().getItems(["2169435993"]);
    expect(result).toEqual({
      ok: true,
      item: {
        workshopId: "2169435993",
        title: "Mod Options (Build 41)",
        description: "[b]Workshop ID:[/b] 2169435993\n[b]Mod ID:[/b] modoptions\nMap Folder: Muldraugh, KY",
        previewUrl: steam.previewUrl("2169435993"),
        tags: ["Build 41", "Framework"],
        timeUpdated: new Date(1_700_000_123_000),
        platformModIds: ["modoptions"],
        buildModIds: { "41x": ["modoptions"], "42x": ["modoptions"] },
        mapFolders: ["Muldraugh, KY"],
        rejectedValues: [],
        requiredWorkshopIds: [],
      },
    });
    expect(steam.calls).toEqual([{ endpoint: WORKSHOP_ENDPOINTS.publishedFileDetails, ids: ["2169435993"] }]);
  });

  it("batches 250 ids into 3 calls of at most 100 and keeps input order", async () => {
    const ids = Array.from({ length: 250 }, (_, index) => String(3_000_000_000 + index)).reverse();
    addItems(...ids);
    const results = await client().getItems(ids);
    expect(steam.calls.map((call) => call.endpoint)).toEqual(Array(3).fill(WORKSHOP_ENDPOINTS.publishedFileDetails));
    expect(steam.calls.map((call) => call.ids.length).sort((a, b) => b - a)).toEqual([100, 100, 50]);
    expect(results.map((result) => (result.ok ? result.item.workshopId : result.workshopId))).toEqual(ids);
    expect(results.every((result) => result.ok)).toBe(true);
  });

  it("coerces numbers sent as strings", async () => {
    steam.items.set("1510950729", fakeItem("1510950729", { numbersAsStrings: true, timeUpdated: 1_650_000_999 }));
    steam.items.set("1510950730", fakeItem("1510950730", { numbersAsStrings: true, banned: true }));
    const [first, second] = await client().getItems(["1510950729", "1510950730"]);
    expect(first).toMatchObject({ ok: true, item: { timeUpdated: new Date(1_650_000_999_000) } });
    expect(second).toEqual({ ok: false, workshopId: "1510950730", reason: "banned" });
  });

  it("classifies missing, wrong game, collection and banned items", async () => {
    addItems("100");
    steam.items.set("200", fakeItem("200", { consumerAppId: 4000 }));
    steam.items.set("300", fakeItem("300", { fileType: 2 }));
    steam.collections.set("350", ["100"]);
    steam.items.set("400", fakeItem("400", { banned: true }));
    const results = await client().getItems(["100", "999", "200", "300", "350", "400", "not-a-number", "100"]);
    expect(results.map((result) => (result.ok ? "ok" : result.reason))).toEqual([
      "ok",
      "missing",
      "wrong_game",
      "collection",
      "collection",
      "banned",
      "missing",
      "ok",
    ]);
    expect(results[1]).toEqual({ ok: false, workshopId: "999", reason: "missing" });
    expect(steam.calls).toEqual([
      { endpoint: WORKSHOP_ENDPOINTS.publishedFileDetails, ids: ["100", "999", "200", "300", "350", "400"] },
    ]);
  });

  it("makes no call for an empty list", async () => {
    expect(await client().getItems([])).toEqual([]);
    expect(steam.calls).toEqual([]);
  });

  it("uses GetDetails with an API key and reports required items", async () => {
    steam.items.set(
      "2875848298",
      fakeItem("2875848298", {
        description: "Workshop ID: 2875848298\nMod ID: GunFighter\nRequires: Workshop ID: 2392709985 Mod ID: tsarslib",
        children: ["2392709985", "2169435993"],
      }),
    );
    steam.items.set("300", fakeItem("300", { fileType: 2 }));
    const results = await client({ apiKey: API_KEY }).getItems(["2875848298", "300", "404"]);
    expect(results[0]).toMatchObject({
      ok: true,
      item: {
        workshopId: "2875848298",
        platformModIds: ["GunFighter"],
        requiredWorkshopIds: ["2392709985", "2169435993"],
        tags: ["Build 41", "Misc"],
      },
    });
    expect(results[1]).toEqual({ ok: false, workshopId: "300", reason: "collection" });
    expect(results[2]).toEqual({ ok: false, workshopId: "404", reason: "missing" });
    expect(steam.calls).toEqual([{ endpoint: WORKSHOP_ENDPOINTS.details, ids: ["2875848298", "300", "404"] }]);
  });

  it("batches GetDetails too", async () => {
    const ids = Array.from({ length: 150 }, (_, index) => String(1000 + index));
    addItems(...ids);
    const results = await client({ apiKey: API_KEY }).getItems(ids);
    expect(steam.calls.map((call) => call.ids.length).sort((a, b) => b - a)).toEqual([100, 50]);
    expect(results.map((result) => (result.ok ? result.item.workshopId : null))).toEqual(ids);
  });
});

describe("workshop text is cleaned where it enters", () => {
  it.each([{ apiKey: undefined }, { apiKey: API_KEY }])(
    "strips NUL and other controls from an item (key: $apiKey)",
    async ({ apiKey }) => {
      steam.items.set(
        "2200148440",
        fakeItem("2200148440", {
          title: "Nul\u0000 Title\r\nwith\u0007 bell\u2028and separator",
          description:
            "Intro\u0000 text\u0001\r\nWorkshop ID: 2200148440\r\nMod ID (b41): Clean\u0000Id\u001b\nB42 Mod ID: Clean42\tkeep\u0085Mod ID: Evil=Id\n\u007fEnd\u009b",
          tags: ["Build\u0000 41", "Build 41", "  ", "Tab\tTag", "Line\nTag"],
          previewUrl: "https://example.test/p\u0000.png",
        }),
      );
      const [result] = await client(apiKey === undefined ? {} : { apiKey }).getItems(["2200148440"]);
      expect(result).toMatchObject({
        ok: true,
        item: {
          title: "Nul Title  with bell and separator",
          description:
            "Intro text\nWorkshop ID: 2200148440\nMod ID (b41): CleanId\nB42 Mod ID: Clean42\tkeep\nMod ID: Evil=Id\nEnd",
          tags: ["Build 41", "Tab Tag", "Line Tag"],
          previewUrl: null,
          platformModIds: ["CleanId", "Clean42"],
          buildModIds: { "41x": ["CleanId"], "42x": ["Clean42"] },
          rejectedValues: [{ field: "modId", value: "Evil=Id", reason: "equals" }],
        },
      });
    },
  );

  it("bounds the title, the description and the tags", async () => {
    steam.items.set(
      "2200148441",
      fakeItem("2200148441", {
        title: "T".repeat(1000),
        description: `Mod ID: Bounded\n${"d".repeat(200_000)}`,
        tags: Array.from({ length: 80 }, (_, index) => `${index}${"g".repeat(300)}`),
      }),
    );
    const [result] = await client().getItems(["2200148441"]);
    if (!result?.ok) throw new Error("expected an item");
    expect(result.item.title).toBe("T".repeat(workshopTextLimits.title));
    expect(result.item.description).toHaveLength(workshopTextLimits.description);
    expect(result.item.platformModIds).toEqual(["Bounded"]);
    expect(result.item.tags).toHaveLength(workshopTextLimits.tags);
    expect(result.item.tags.every((tag) => tag.length === workshopTextLimits.tag)).toBe(true);
  });
});

describe("cleanDescription", () => {
  it.each([
    { name: "plain text unchanged", input: "Mod ID: A\n\tindented", expected: "Mod ID: A\n\tindented" },
    { name: "NUL removed", input: "a\u0000b", expected: "ab" },
    { name: "C0, DEL and C1 removed", input: "a\u0001\u0008\u000b\u000c\u001f\u007f\u0080\u009fb", expected: "ab" },
    { name: "every line break becomes LF", input: "a\r\nb\rc\u0085d\u2028e\u2029f", expected: "a\nb\nc\nd\ne\nf" },
    { name: "lone surrogates replaced", input: "a\ud800b\udc00c🧟", expected: "a\ufffdb\ufffdc🧟" },
    {
      name: "bounded without splitting a surrogate pair",
      input: `${"x".repeat(workshopTextLimits.description - 1)}🧟`,
      expected: "x".repeat(workshopTextLimits.description - 1),
    },
  ])("$name", ({ input, expected }) => {
    expect(cleanDescription(input)).toBe(expected);
  });
});

describe("cleanLine", () => {
  it.each([
    { input: "  Title  ", max: 255, expected: "Title" },
    { input: "Two\nlines\r\nhere", max: 255, expected: "Two lines  here" },
    { input: "Nul\u0000\u0085\u2028end", max: 255, expected: "Nul  end" },
    { input: "abcdef", max: 3, expected: "abc" },
    { input: "ab cd", max: 3, expected: "ab" },
  ])("$input", ({ input, max, expected }) => {
    expect(cleanLine(input, max)).toBe(expected);
  });
});

describe("cleanUrl", () => {
  it.each([
    { input: "https://example.test/a.png", expected: "https://example.test/a.png" },
    { input: "http://example.test/a.png", expected: "http://example.test/a.png" },
    { input: undefined, expected: null },
    { input: "", expected: null },
    { input: "javascript:alert(1)", expected: null },
    { input: "not a url", expected: null },
    { input: "https://example.test/\u0000", expected: null },
    { input: "https://example.test/\u2028", expected: null },
    { input: `https://example.test/${"a".repeat(workshopTextLimits.previewUrl)}`, expected: null },
  ])("$input", ({ input, expected }) => {
    expect(cleanUrl(input)).toBe(expected);
  });
});

describe("cleanTags", () => {
  it.each([
    { name: "kept", input: ["Build 41", "Map"], expected: ["Build 41", "Map"] },
    { name: "cleaned, blank dropped, repeats merged", input: [" Map ", "Ma\u0000p", "", "\u0007"], expected: ["Map"] },
    {
      name: "count bounded",
      input: Array.from({ length: 60 }, (_, i) => `t${i}`),
      expected: Array.from({ length: 50 }, (_, i) => `t${i}`),
    },
  ])("$name", ({ input, expected }) => {
    expect(cleanTags(input)).toEqual(expected);
  });
});

describe("getCollections", () => {
  it("returns children in sort order and reports private or missing collections", async () => {
    steam.collections.set("5000", ["102", "101", "5001"]);
    steam.collections.set("5001", []);
    addItems("101", "102");
    const results = await client().getCollections(["5000", "101", "5999"]);
    expect(results).toEqual([
      {
        ok: true,
        collectionId: "5000",
        children: [
          { workshopId: "102", fileType: 0, sortOrder: 1 },
          { workshopId: "101", fileType: 0, sortOrder: 2 },
          { workshopId: "5001", fileType: 2, sortOrder: 3 },
        ],
      },
      { ok: false, collectionId: "101", reason: "missing" },
      { ok: false, collectionId: "5999", reason: "missing" },
    ]);
    expect(steam.calls).toEqual([{ endpoint: WORKSHOP_ENDPOINTS.collectionDetails, ids: ["5000", "101", "5999"] }]);
  });

  it("sorts children by sortorder when Steam lists them out of order", async () => {
    const fetchStub: typeof fetch = async () =>
      Response.json({
        response: {
          result: 1,
          resultcount: 1,
          collectiondetails: [
            {
              publishedfileid: "7",
              result: 1,
              children: [
                { publishedfileid: "3", sortorder: "3", filetype: "0" },
                { publishedfileid: "1", sortorder: 1, filetype: 0 },
                { publishedfileid: "2", sortorder: 2, filetype: 2 },
              ],
            },
          ],
        },
      });
    const [result] = await client({ fetch: fetchStub }).getCollections(["7"]);
    expect(result).toEqual({
      ok: true,
      collectionId: "7",
      children: [
        { workshopId: "1", fileType: 0, sortOrder: 1 },
        { workshopId: "2", fileType: 2, sortOrder: 2 },
        { workshopId: "3", fileType: 0, sortOrder: 3 },
      ],
    });
  });
});

describe("expandCollection", () => {
  it("follows nested collections breadth-first, survives a cycle and skips a missing one", async () => {
    steam.collections.set("9000", ["1", "9001", "2", "9002", "9404"]);
    steam.collections.set("9001", ["3", "1", "9003"]);
    steam.collections.set("9002", ["4", "9000"]);
    steam.collections.set("9003", ["5", "9001"]);
    steam.items.set("9404", fakeItem("9404", { fileType: 2 }));
    addItems("1", "2", "3", "4", "5");
    const expansion = await client().expandCollection("9000");
    expect(expansion).toEqual({
      ok: true,
      itemIds: ["1", "2", "3", "4", "5"],
      nestedCollections: ["9001", "9002", "9003"],
    });
    expect(steam.calls).toEqual([
      { endpoint: WORKSHOP_ENDPOINTS.collectionDetails, ids: ["9000"] },
      { endpoint: WORKSHOP_ENDPOINTS.collectionDetails, ids: ["9001", "9002", "9404"] },
      { endpoint: WORKSHOP_ENDPOINTS.collectionDetails, ids: ["9003"] },
    ]);
  });

  it("reports a missing root collection", async () => {
    addItems("1");
    expect(await client().expandCollection("1")).toEqual({ ok: false, reason: "missing" });
    expect(await client().expandCollection("424242")).toEqual({ ok: false, reason: "missing" });
  });
});

describe("robustness", () => {
  it("retries after 500s and then succeeds", async () => {
    addItems("100");
    steam.failNext(2, "500");
    const [result] = await client().getItems(["100"]);
    expect(result?.ok).toBe(true);
    expect(steam.calls).toHaveLength(3);
  });

  it("gives up after maxRetries on 500s as unavailable", async () => {
    addItems("100");
    steam.failNext(5, "500");
    const error = await caught(client({ maxRetries: 2 }).getItems(["100"]));
    expect(error.kind).toBe("unavailable");
    expect(error.status).toBe(500);
    expect(error.endpoint).toBe(WORKSHOP_ENDPOINTS.publishedFileDetails);
    expect(steam.calls).toHaveLength(3);
  });

  it("honours Retry-After on 429", async () => {
    addItems("100");
    steam.failNext(1, "429", 1);
    const started = performance.now();
    const [result] = await client().getItems(["100"]);
    const elapsed = performance.now() - started;
    expect(result?.ok).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(steam.calls).toHaveLength(2);
  });

  it("reports persistent 429s as rate_limited", async () => {
    steam.failNext(2, "429");
    const error = await caught(client({ maxRetries: 1 }).getCollections(["1"]));
    expect(error.kind).toBe("rate_limited");
    expect(error.endpoint).toBe(WORKSHOP_ENDPOINTS.collectionDetails);
  });

  it("times out a hanging upstream and then fails as unavailable", async () => {
    addItems("100");
    steam.failNext(2, "hang");
    const started = performance.now();
    const error = await caught(client({ timeoutMs: 1000, maxRetries: 1 }).getItems(["100"]));
    expect(performance.now() - started).toBeGreaterThanOrEqual(1980);
    expect(error.kind).toBe("unavailable");
    expect(error.message).toMatch(/1000 ms/);
    expect(steam.calls).toHaveLength(2);
  });

  it("recovers when only the first attempt hangs", async () => {
    addItems("100");
    steam.failNext(1, "hang");
    // The answered attempt has a second to arrive, however loaded the machine.
    const [result] = await client({ timeoutMs: 1000, maxRetries: 1 }).getItems(["100"]);
    expect(result?.ok).toBe(true);
  });

  it("reports non-JSON answers as bad_response after retrying", async () => {
    steam.failNext(3, "garbage");
    const error = await caught(client({ maxRetries: 2 }).getItems(["100"]));
    expect(error.kind).toBe("bad_response");
    expect(steam.calls).toHaveLength(3);
  });

  it("reports JSON without a response object as bad_response", async () => {
    let attempts = 0;
    const fetchStub: typeof fetch = async () => {
      attempts++;
      return Response.json({ error: "nope" });
    };
    const error = await caught(client({ fetch: fetchStub, maxRetries: 1 }).getItems(["100"]));
    expect(error.kind).toBe("bad_response");
    expect(attempts).toBe(2);
  });

  it("fails at once on other 4xx answers", async () => {
    let attempts = 0;
    const fetchStub: typeof fetch = async () => {
      attempts++;
      return new Response("Bad Request", { status: 400 });
    };
    const error = await caught(client({ fetch: fetchStub }).getItems(["100"]));
    expect(error).toMatchObject({ kind: "bad_response", status: 400 });
    expect(attempts).toBe(1);
  });

  it("fails as unavailable when nothing listens", async () => {
    const closed = await startFakeSteam();
    await closed.close();
    const error = await caught(
      createWorkshopClient({ baseUrl: closed.url, maxRetries: 1, retryBaseMs: 5 }).getItems(["1"]),
    );
    expect(error.kind).toBe("unavailable");
  });

  it("never puts the API key in error messages", async () => {
    const errors: WorkshopError[] = [];
    steam.failNext(2, "500");
    errors.push(await caught(client({ apiKey: API_KEY, maxRetries: 1 }).getItems(["1"])));
    steam.failNext(2, "garbage");
    errors.push(await caught(client({ apiKey: API_KEY, maxRetries: 1 }).getItems(["1"])));
    steam.failNext(2, "hang");
    errors.push(await caught(client({ apiKey: API_KEY, maxRetries: 1, timeoutMs: 100 }).getItems(["1"])));
    const rejecting: typeof fetch = async (input) => {
      throw new TypeError(`fetch failed for ${String(input)}`, { cause: new Error(`while fetching ${String(input)}`) });
    };
    errors.push(await caught(client({ apiKey: API_KEY, maxRetries: 0, fetch: rejecting }).getItems(["1"])));
    const forbidden: typeof fetch = async () => new Response("Forbidden", { status: 403 });
    errors.push(await caught(client({ apiKey: API_KEY, fetch: forbidden }).getItems(["1"])));
    expect(errors.map((error) => error.kind)).toEqual([
      "unavailable",
      "bad_response",
      "unavailable",
      "unavailable",
      "bad_response",
    ]);
    for (const error of errors) {
      expect(error.message).not.toContain(API_KEY);
      expect(String(error.stack)).not.toContain(API_KEY);
      expect(JSON.stringify(error)).not.toContain(API_KEY);
    }
  });

  it("answers GetDetails without a key with 403", async () => {
    const response = await fetch(`${steam.url}/IPublishedFileService/GetDetails/v1/?publishedfileids[0]=1`);
    expect(response.status).toBe(403);
    await response.body?.cancel();
  });
});
