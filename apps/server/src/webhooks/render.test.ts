import type { WebhookEvent } from "@modpack/contract";
import { describe, expect, it } from "vitest";
import { discordMessage, MAX_BODY_BYTES, renderEvent } from "./render.js";

const modpack = {
  id: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d",
  name: "Brita's **Apocalypse** [PvP](https://evil.example)",
};

function modsUpdated(updated: number, removed: number, findings: number, nameLength = 30): WebhookEvent {
  const mod = (index: number) => ({
    modId: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8e",
    workshopId: String(2_000_000_000 + index),
    name: `Mod ${index} ${"ü".repeat(nameLength)}`,
    timeUpdated: "2026-11-21T12:00:00.000Z",
  });
  const list = <T>(count: number, make: (index: number) => T) => ({
    items: Array.from({ length: Math.min(count, 50) }, (_, index) => make(index)),
    total: count,
  });
  const event: WebhookEvent = {
    type: "mods.updated",
    timestamp: "2026-11-21T12:00:00.000Z",
    data: {
      modpack,
      updated: list(updated, mod),
      removed: list(removed, mod),
      findings: list(findings, (index) => ({
        code: "missing-requirement" as const,
        severity: "error" as const,
        message: `"Mod ${index}" requires workshop item ${index}, which is not in the modpack. ${"x".repeat(nameLength)}`,
        requiredWorkshopId: String(index),
      })),
    },
  };
  return event;
}

/** Everything Discord counts towards an embed's 6,000 characters. */
function embedSize(embed: ReturnType<typeof discordMessage>["embeds"][number]): number {
  return (
    embed.title.length +
    embed.description.length +
    embed.footer.text.length +
    embed.fields.reduce((sum, field) => sum + field.name.length + field.value.length, 0)
  );
}

describe("the Discord format", () => {
  it.each([
    { case: "one update", event: modsUpdated(1, 0, 0) },
    { case: "updates, removals and findings", event: modsUpdated(3, 2, 4) },
    { case: "hundreds of long names", event: modsUpdated(800, 300, 120, 400) },
    { case: "no change at all", event: modsUpdated(0, 0, 0) },
  ])("stays within Discord's limits: $case", ({ event }) => {
    const [embed] = discordMessage(event).embeds;
    expect(embed).toBeDefined();
    expect(embed!.title.length).toBeLessThanOrEqual(256);
    expect(embed!.description.length).toBeLessThanOrEqual(4096);
    expect(embed!.fields.length).toBeLessThanOrEqual(25);
    for (const field of embed!.fields) {
      expect(field.name.length).toBeLessThanOrEqual(256);
      expect(field.value.length).toBeGreaterThan(0);
      expect(field.value.length).toBeLessThanOrEqual(1024);
    }
    expect(embedSize(embed!)).toBeLessThanOrEqual(6000);
    expect(Buffer.byteLength(renderEvent("discord", event))).toBeLessThan(MAX_BODY_BYTES);
  });

  it("links each mod to its workshop page, says how many were left out, and keeps names from rendering as markdown", () => {
    const [embed] = discordMessage(modsUpdated(120, 1, 1)).embeds;
    expect(embed!.title).toBe("Mods changed in Brita's \\*\\*Apocalypse\\*\\* \\[PvP\\]\\(https://evil.example\\)");
    const updated = embed!.fields.find((field) => field.name === "Updated on the workshop (120)")!;
    expect(updated.value).toContain("](https://steamcommunity.com/sharedfiles/filedetails/?id=2000000000)");
    expect(updated.value).toMatch(/… and \d+ more$/);
    expect(embed!.fields.map((field) => field.name)).toEqual([
      "Updated on the workshop (120)",
      "Removed, hidden or delisted (1)",
      "New problems (1)",
    ]);
  });
});

describe("the standard format", () => {
  it("is the envelope as JSON, lists cut until it fits, totals kept", () => {
    const event = modsUpdated(50, 50, 50, 400);
    const body = JSON.parse(renderEvent("standard", event));
    expect(Buffer.byteLength(renderEvent("standard", event))).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(body.type).toBe("mods.updated");
    expect(body.data.updated.total).toBe(50);
    expect(body.data.updated.items.length).toBeLessThan(50);
    expect(body.data.modpack).toEqual(modpack);

    const small = modsUpdated(2, 0, 0);
    expect(renderEvent("standard", small)).toBe(JSON.stringify(small));
  });
});
