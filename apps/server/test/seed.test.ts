import { afterAll, beforeAll, expect, it } from "vitest";
import { seedDemo } from "../src/cli/seed.js";
import { startTestService, type TestService } from "./support/service.js";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

it("fills an empty database with public modpacks and mods, and changes nothing the second time", async () => {
  const first = await seedDemo(service.runtime.database.db);
  expect(first).toEqual({ users: 3, modpacks: 3, mods: 12 });
  const second = await seedDemo(service.runtime.database.db);
  expect(second).toEqual({ users: 3, modpacks: 0, mods: 12 });
  const list = await service.app.inject({ method: "GET", url: "/modpacks/public?sortBy=name&sortOrder=asc" });
  expect(list.json().data.map((modpack: { name: string }) => modpack.name)).toEqual([
    "Build 42 Quality of Life",
    "Hard Survival",
    "Kentucky Roadtrip",
  ]);
  const maps = await service.app.inject({ method: "GET", url: "/mods?tags=Map" });
  expect(maps.json().pagination.total).toBe(3);
});
