import { z } from "zod";

// A UUID is 36 characters; the bound is stated so the document says it too.
export const uuid = z.uuid({ message: "Must be a UUID" }).max(36, { message: "Must be a UUID" });
/** The identifier every example of the document uses. */
export const exampleId = "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d";
export const exampleTime = "2026-11-21T12:00:00.000Z";
// An ISO 8601 time as Date#toISOString writes it: 24 characters, 27 for years beyond 9999.
export const timestamp = z.string().max(30).meta({ format: "date-time", example: "2026-11-21T12:00:00.000Z" });
export const messageSchema = z.object({ message: z.string() }).meta({ id: "Message", example: { message: "Done" } });
export const idParams = z.object({ id: uuid.meta({ description: "Identifier (UUID)", example: exampleId }) });
/** The game versions a server file and a check are for. */
export const gameVersions = ["41x", "42x"] as const;
export type GameVersion = (typeof gameVersions)[number];
