/*
 * Times as the API writes them (`toISOString`'s form: UTC, milliseconds), either from a `Date` a
 * read parsed or formatted by Postgres in the statement itself.
 */

/**
 * A timestamp column formatted as the API writes times, by Postgres: a read that only writes its
 * times back (a modpack's members, the hottest lists' pages) parses none into a Date. `MS` cuts the
 * microseconds as a Date parsed from the column would.
 */
export const isoTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A time as a read gives it: a `Date`, or text already in the API's form (`isoTime`). */
export type ReadTime = Date | string;

/** A read time as the API writes it. */
export const apiTime = (time: ReadTime): string => (typeof time === "string" ? time : time.toISOString());
