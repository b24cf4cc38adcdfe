import { expect } from "vitest";
import type { TestService } from "./service.js";
import type { SignedIn } from "./users.js";

/** Adds a webhook to a modpack over HTTP as `who` (expecting `201`) and answers its id and secret. */
export async function addWebhook(
  service: TestService,
  who: SignedIn,
  modpackId: string,
  body: { url: string; events?: string[] },
): Promise<{ id: string; secret: string }> {
  const response = await service.app.inject({
    method: "POST",
    url: `/modpacks/${modpackId}/webhooks`,
    headers: who.headers,
    payload: body,
  });
  expect(response.statusCode, response.body).toBe(201);
  const { id, secret } = response.json();
  return { id, secret };
}
