import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

// Migrations run against the database as it was at their time, not the current table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    create function uuid_v7() returns uuid language sql volatile as $$
      select encode(
        set_bit(set_bit(
          overlay(uuid_send(gen_random_uuid())
            placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
            from 1 for 6),
          52, 1), 53, 1),
        'hex')::uuid
    $$;

    create table users (
      id uuid primary key default uuid_v7(),
      name text not null,
      email text,
      image text,
      role text not null default 'user' check (role in ('user', 'admin')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index users_email_idx on users (lower(email));
    create index users_created_at_idx on users (created_at desc, id desc);

    create table accounts (
      provider text not null,
      provider_user_id text not null,
      user_id uuid not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (provider, provider_user_id)
    );
    create index accounts_user_id_idx on accounts (user_id);

    create table sessions (
      id uuid primary key default uuid_v7(),
      token_hash text not null unique,
      user_id uuid not null references users (id) on delete cascade,
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    );
    create index sessions_user_id_idx on sessions (user_id);
    create index sessions_expires_at_idx on sessions (expires_at);

    create table api_tokens (
      id uuid primary key default uuid_v7(),
      user_id uuid not null references users (id) on delete cascade,
      name text not null,
      token_hash text not null unique,
      expires_at timestamptz,
      last_used_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index api_tokens_user_id_idx on api_tokens (user_id, created_at desc);

    create table modpacks (
      id uuid primary key default uuid_v7(),
      name text not null,
      description text,
      avatar_url text,
      platform_url text,
      owner_id uuid not null references users (id) on delete cascade,
      is_public boolean not null default false,
      is_verified boolean not null default false,
      is_active boolean not null default true,
      metadata jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index modpacks_public_created_idx on modpacks (created_at desc, id desc) where is_public and is_active;
    create index modpacks_public_updated_idx on modpacks (updated_at desc, id desc) where is_public and is_active;
    create index modpacks_public_name_idx on modpacks (name, id) where is_public and is_active;
    create index modpacks_owner_idx on modpacks (owner_id, created_at desc);

    create table modpack_members (
      modpack_id uuid not null references modpacks (id) on delete cascade,
      user_id uuid not null references users (id) on delete cascade,
      permission text[] not null default '{}',
      is_active boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (modpack_id, user_id)
    );
    create index modpack_members_user_idx on modpack_members (user_id) where is_active;

    create table mods (
      id uuid primary key default uuid_v7(),
      workshop_id text not null unique,
      name text not null,
      description text not null default '',
      avatar_url text,
      platform_mod_ids text[] not null default '{}',
      map_folders text[] not null default '{}',
      required_workshop_ids text[] not null default '{}',
      tags text[] not null default '{}',
      time_updated timestamptz,
      is_active boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index mods_tags_idx on mods using gin (tags);
    create index mods_platform_mod_ids_idx on mods using gin (platform_mod_ids);
    create index mods_created_at_idx on mods (created_at desc, id desc);
    create index mods_name_idx on mods (name, id);

    create table modpack_mods (
      id uuid primary key default uuid_v7(),
      modpack_id uuid not null references modpacks (id) on delete cascade,
      mod_id uuid not null references mods (id) on delete cascade,
      is_active boolean not null default true,
      added_by uuid references users (id) on delete set null,
      added_at timestamptz not null default now(),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (modpack_id, mod_id)
    );
    create index modpack_mods_mod_idx on modpack_mods (mod_id) where is_active;
    create index modpack_mods_order_idx on modpack_mods (modpack_id, added_at, id) where is_active;

    create table notifications (
      id uuid primary key default uuid_v7(),
      user_id uuid not null references users (id) on delete cascade,
      title text not null,
      content text not null,
      type text not null check (type in ('info', 'success', 'warning', 'error')),
      is_read boolean not null default false,
      metadata jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index notifications_user_idx on notifications (user_id, created_at desc, id desc);
    create index notifications_unread_idx on notifications (user_id, created_at desc) where not is_read;

    create table imports (
      id uuid primary key default uuid_v7(),
      modpack_id uuid not null references modpacks (id) on delete cascade,
      requested_by uuid not null references users (id) on delete cascade,
      platform_url text not null,
      collection_id text not null,
      status text not null default 'pending' check (status in ('pending', 'running', 'completed', 'failed')),
      mods_imported integer not null default 0,
      mods_failed integer not null default 0,
      items_total integer,
      items_done integer not null default 0,
      failures jsonb not null default '[]'::jsonb,
      error text,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz
    );
    create unique index imports_one_running_idx on imports (modpack_id) where status in ('pending', 'running');
    create index imports_modpack_idx on imports (modpack_id, created_at desc);
    create index imports_status_idx on imports (status);

    create table exports (
      id uuid primary key default uuid_v7(),
      modpack_id uuid not null references modpacks (id) on delete cascade,
      requested_by uuid not null references users (id) on delete cascade,
      version text not null check (version in ('41x', '42x')),
      status text not null default 'pending' check (status in ('pending', 'running', 'completed', 'failed')),
      file_name text,
      content text,
      error text,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    );
    create index exports_modpack_idx on exports (modpack_id, created_at desc);
    create index exports_status_idx on exports (status);

    create table export_configurations (
      modpack_id uuid primary key references modpacks (id) on delete cascade,
      mods_order uuid[] not null default '{}',
      mod_config jsonb not null default '{}'::jsonb,
      updated_by uuid references users (id) on delete set null,
      updated_at timestamptz not null default now()
    );
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    drop table export_configurations, exports, imports, notifications, modpack_mods, mods,
      modpack_members, modpacks, api_tokens, sessions, accounts, users;
    drop function uuid_v7();
  `,
  );
}
