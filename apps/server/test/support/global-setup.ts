import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { loadConfig } from "../../src/config.js";
import { writeEmbeddedTemplate } from "../../src/embedded-template.js";
import { startRuntime } from "../../src/runtime.js";
import { asAdmin, databaseUrlOf } from "./database.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The tarball every test file's embedded database starts from (no DATABASE_URL). */
    embeddedTemplate: string | undefined;
    /** The migrated database every test file's Postgres database is a copy of (DATABASE_URL). */
    postgresTemplate: string | undefined;
  }
}

/**
 * Migrates a database once for the whole run, the way the service's start does (every migration,
 * the job queue's schema, queues and schedules), and gives each test file a copy of it instead of
 * migrating its own: on Postgres a database created from it as a template, on the embedded database
 * a tarball written as `pnpm build` writes the built server's. A test that needs an empty database
 * asks for one (`createTestDatabase({ empty: true })`).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const adminUrl = process.env.DATABASE_URL;
  project.provide("embeddedTemplate", undefined);
  project.provide("postgresTemplate", undefined);
  if (!adminUrl) {
    const directory = await mkdtemp(path.join(tmpdir(), "mcs-test-template-"));
    const template = path.join(directory, "embedded-template.tar.gz");
    await writeEmbeddedTemplate(template).catch(async (error: unknown) => {
      await rm(directory, { recursive: true, force: true });
      throw error;
    });
    project.provide("embeddedTemplate", template);
    return () => rm(directory, { recursive: true, force: true });
  }
  const name = `mcs_test_template_${randomBytes(6).toString("hex")}`;
  const admin = (statement: string) => asAdmin(adminUrl, statement);
  await admin(`create database ${name}`);
  try {
    const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", DATABASE_URL: databaseUrlOf(adminUrl, name) });
    const runtime = await startRuntime(config, { role: "api" });
    await runtime.close();
  } catch (error) {
    await admin(`drop database if exists ${name} with (force)`);
    throw error;
  }
  project.provide("postgresTemplate", name);
  return () => admin(`drop database if exists ${name} with (force)`);
}
