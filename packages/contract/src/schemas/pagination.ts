import { z } from "zod";

/** A query-string integer: numbers from the typed client, digit strings from REST. */
const queryInt = (options: { min: number; max?: number; fallback: number; description: string }) => {
  let schema = z.coerce
    .number({ message: "Must be a whole number" })
    .int({ message: "Must be a whole number" })
    .min(options.min);
  if (options.max !== undefined) schema = schema.max(options.max);
  return schema.default(options.fallback).meta({ description: options.description });
};

/** A query-string boolean: `true`/`false` from REST, booleans from the typed client. */
export const queryBoolean = z
  .preprocess((value) => (value === "true" ? true : value === "false" ? false : value), z.boolean())
  .optional();

export const pageParam = queryInt({ min: 1, fallback: 1, description: "Page number, from 1" });
export const limitParam = (fallback: number) =>
  queryInt({ min: 1, max: 100, fallback, description: `Items per page, 1-100 (default ${fallback})` });
export const searchParam = z
  .string()
  .trim()
  .max(100)
  .optional()
  .meta({ description: "Case-insensitive match on name or description" });
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
  .meta({ description: "Comma-separated tags, or the parameter repeated; matches mods carrying any of them" });

export const paginationSchema = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
  })
  .meta({ id: "Pagination", example: { page: 1, limit: 10, total: 42, totalPages: 5 } });

export const paged = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), pagination: paginationSchema });

export type Pagination = z.infer<typeof paginationSchema>;
export interface Paged<T> {
  data: T[];
  pagination: Pagination;
}
