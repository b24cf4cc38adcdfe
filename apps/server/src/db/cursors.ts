import { hash } from "node:crypto";
import { badRequest } from "@modpack/contract";

/** Where a page ends: the last row's sort value (as text) and id. */
export interface Position {
  value: string;
  id: string;
}

export type SortType = "text" | "timestamptz";

/** How a timestamp's sort value is written (`to_char`): UTC with its microseconds, as `isSortValue` reads it. */
export const SORT_TIME_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"';

/**
 * A short digest of a value: what a cursor checks its fields and its list's filters with. Node's
 * one-shot `hash` (the same SHA-256, so cursors made before still read) builds no hash object: a
 * page takes one or two of these, three when it is read at a cursor.
 */
export const digest = (value: unknown) => hash("sha256", JSON.stringify(value), "base64url").slice(0, 16);

/**
 * An opaque cursor: base64url JSON of the list's cursor key (the list, its sort and a digest of its
 * filters), the position, and a check over them, so a cursor edited by hand is told apart from one
 * this service made.
 */
export function encodeCursor(cursorKey: string, { value, id }: Position): string {
  return Buffer.from(JSON.stringify([cursorKey, value, id, digest([cursorKey, value, id])])).toString("base64url");
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A sort value as `sortValue` writes it, one Postgres reads back as the column's type. */
function isSortValue(value: string, type: SortType): boolean {
  if (type === "text") return !value.includes("\u0000");
  // `2026-11-22T21:06:47.713123Z`: the date part is a real day when a Date writes it back the same.
  const milliseconds = `${value.slice(0, 23)}Z`;
  const time = Date.parse(milliseconds);
  return (
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(value) &&
    !Number.isNaN(time) &&
    new Date(time).toISOString() === milliseconds
  );
}

/**
 * The position a cursor names, checked before any of it reaches a statement: 400 when it is not
 * one this service made for this list, sort and filters, or was edited since.
 */
export function decodeCursor(cursor: string, cursorKey: string, type: SortType): Position {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    fields = undefined;
  }
  const [key, value, id, check] =
    Array.isArray(fields) && fields.length === 4 && fields.every((field) => typeof field === "string")
      ? (fields as string[])
      : [];
  if (
    key !== cursorKey ||
    value === undefined ||
    id === undefined ||
    check !== digest([key, value, id]) ||
    !isSortValue(value, type) ||
    !UUID.test(id)
  ) {
    throw badRequest("Invalid cursor: pass pagination.nextCursor of a page read with the same sort and filters");
  }
  return { value, id };
}
