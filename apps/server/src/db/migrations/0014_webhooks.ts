import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * Webhooks on a modpack and the log of their delivery attempts. A secret is stored encrypted
 * (AES-256-GCM with the configured key); after a rotation the previous one keeps signing until
 * `previous_secret_expires_at`. `failing_since` is the first failed attempt since the last success:
 * a webhook failing for long enough is disabled. Each attempt is a row of its own, carrying the
 * body it sends so that every retry of an event sends the same bytes under the same event id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    create table webhooks (
      id uuid primary key default uuid_v7(),
      modpack_id uuid not null references modpacks (id) on delete cascade,
      url text not null,
      events text[] not null,
      format text not null check (format in ('standard', 'discord')),
      description text,
      is_active boolean not null default true,
      secret text not null,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      failing_since timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (modpack_id, url)
    );

    create table webhook_deliveries (
      id uuid primary key default uuid_v7(),
      webhook_id uuid not null references webhooks (id) on delete cascade,
      event_id text not null,
      event_type text not null,
      body text not null,
      attempt integer not null,
      status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
      response_status integer,
      error text,
      duration_ms integer,
      created_at timestamptz not null default now()
    );
    create index webhook_deliveries_webhook_idx on webhook_deliveries (webhook_id, created_at desc, id desc);
    create index webhook_deliveries_created_idx on webhook_deliveries (created_at);
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(db, "drop table webhook_deliveries, webhooks;");
}
