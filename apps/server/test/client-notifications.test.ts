import { createClient, type Notification } from "@modpack/client";
import { EventSource } from "eventsource";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createNotifications } from "../src/db/notifications.js";
import { startTestService, type TestService } from "./support/service.js";
import { signIn } from "./support/users.js";

let service: TestService;
let baseUrl: string;

beforeAll(async () => {
  service = await startTestService();
  baseUrl = await service.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(() => service.stop());

it("pushes new notifications to onNotification over the tRPC subscription, with a Bearer token", async () => {
  const user = await signIn(service);
  const token = await service.app.inject({
    method: "POST",
    url: "/auth/tokens",
    headers: user.headers,
    payload: { name: "live" },
  });
  const client = createClient({ baseUrl, token: token.json().token, EventSource });
  const received: Notification[] = [];
  let stopListening: () => void = () => {};
  await new Promise<void>((resolve, reject) => {
    stopListening = client.onNotification((notification) => received.push(notification), {
      onStarted: resolve,
      onError: reject,
    });
  });
  await createNotifications(service.runtime.database.db, [
    { userId: user.userId, title: "Live one", content: "Pushed", type: "success", metadata: { n: 1 } },
  ]);
  const deadline = Date.now() + 5000;
  while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  stopListening();
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({ title: "Live one", type: "success", userId: user.userId, metadata: '{"n":1}' });

  const page = await client.notifications.list.query({ limit: 5 });
  expect(page.notifications[0]?.title).toBe("Live one");
});
