import { z } from "zod";

const wholeNumber = /^(?:0|[1-9][0-9]{0,14})$/;

/**
 * A query-string integer: a number from the typed client, or a string of decimal digits from
 * REST. Nothing else is read as a number (no `""`, `" 1"`, `1e2`, `0x10` or `true`).
 */
export const queryInt = (options: { min: number; max?: number; fallback: number; description: string }) => {
  let schema = z
    .number({ message: "Must be a whole number" })
    .int({ message: "Must be a whole number" })
    .min(options.min, { message: `Must be ${options.min} or more` });
  if (options.max !== undefined) schema = schema.max(options.max, { message: `Must be ${options.max} or less` });
  return z
    .preprocess((value) => (typeof value === "string" && wholeNumber.test(value) ? Number(value) : value), schema)
    .default(options.fallback)
    .meta({ description: options.description });
};

/** A query-string boolean: exactly `true` or `false` from REST, booleans from the typed client. */
export const queryBoolean = z
  .preprocess(
    (value) => (value === "true" ? true : value === "false" ? false : value),
    z.boolean({ message: "Must be true or false" }),
  )
  .optional();

/** The deepest row `page` reaches: `page × limit` may not exceed it; the cursor reads further. */
export const MAX_PAGE_DEPTH = 10_000;

export const pageParam = queryInt({
  min: 1,
  fallback: 1,
  description: `Page number, from 1. \`page × limit\` may not exceed ${MAX_PAGE_DEPTH} (400 beyond it): read further with \`cursor\``,
});
/** An opaque position from `pagination.nextCursor`: the page after it, in the same sort. */
/**
 * A cursor's longest form: base64url of the list's key, the last row's sort value (a mod's name of
 * up to 255 characters, each written as up to six characters of JSON) and its id.
 */
export const MAX_CURSOR_LENGTH = 4096;
export const cursorParam = z.string().max(MAX_CURSOR_LENGTH).optional().meta({
  description:
    "Opaque position from `pagination.nextCursor` of the previous page: answers the page after it, in the same sort and filters (stable while rows are added). With a cursor, `page` only labels the answer. A cursor from another sort answers 400",
});
export const limitParam = (fallback: number) =>
  queryInt({ min: 1, max: 100, fallback, description: `Items per page, 1-100 (default ${fallback})` });
/** How a search or filter page counts its matches (`pagination.totalExact`), said once for every list. */
export const SEARCH_TOTAL_RULE =
  "A search or filter counts its matches only as far as the page reads them, as search engines do: `pagination.total` is exact (`totalExact: true`) when the page's own read saw every match (the page reaches the last match, or the matches were few enough to read and sort them all), and otherwise the database's estimate (`totalExact: false`). Counting every match of a common word would read all of them to answer a page of twenty; the page, its order and `nextCursor` are exact either way";

export const searchParam = z
  .string()
  .trim()
  .max(100)
  .optional()
  .meta({
    description: `Words, each found in the name or the description, in any order, ignoring case and accents (\`pokemon\` finds \`Pokémon\`); a word shorter than three characters is matched with the word before it (\`mod 1\`). ${SEARCH_TOTAL_RULE}`,
  });
/** The sort field of a list: `createdAt`, `updatedAt` or `name`. */
export const sortByParam = (fallback: "createdAt" | "updatedAt" | "name", meaning?: string) =>
  z
    .enum(["createdAt", "updatedAt", "name"])
    .default(fallback)
    .meta({ description: `Sort field (default ${fallback}${meaning ? `: ${meaning}` : ""})` });
export const sortOrderParam = (fallback: "asc" | "desc") =>
  z
    .enum(["asc", "desc"])
    .default(fallback)
    .meta({ description: `Sort direction (default ${fallback})` });

/** Tags as a comma-separated string (`tags=a,b`) or repeated (`tags=a&tags=b`); matches any of them. */
export const tagsParam = z
  .union([z.string().max(500), z.array(z.string().max(100)).max(50)])
  .optional()
  .transform((value) => {
    const list = value === undefined ? [] : Array.isArray(value) ? value : value.split(",");
    return [...new Set(list.map((tag) => tag.trim()).filter((tag) => tag.length > 0))];
  })
  .meta({
    description: `Comma-separated tags, or the parameter repeated; matches mods carrying any of them. ${SEARCH_TOTAL_RULE}`,
  });

export const paginationSchema = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
    totalExact: z.boolean().optional().meta({
      description:
        "false when `total` (and `totalPages`) is the database's estimate, true when exact. A search or filter (`search`, `tags`) is exact only when the page's own read saw every match: the page reaches the last match, or the matches were few enough to read and sort them all; otherwise the page stopped once it had its rows, and counting the rest would read every match of a common word for a page of twenty (as `track_total_hits` and `estimatedTotalHits` do in search engines). An unfiltered list counts exactly up to 1,000 rows and estimates above. The rows, their order and `nextCursor` are exact either way. Absent on lists without cursors",
    }),
    nextCursor: z.string().max(MAX_CURSOR_LENGTH).nullable().optional().meta({
      description: "Pass as `cursor` for the page after this one; null on the last page",
    }),
  })
  .meta({
    id: "Pagination",
    example: { page: 1, limit: 10, total: 42, totalPages: 5, totalExact: true, nextCursor: "WyJ...In0" },
  });

/** A page of a list: at most 100 items, the largest `limit`. */
export const paged = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item).max(100), pagination: paginationSchema });

export type Pagination = z.infer<typeof paginationSchema>;
export interface Paged<T> {
  data: T[];
  pagination: Pagination;
}
