import { type SqlBool, sql } from "kysely";
import type { FixedParameter } from "./paging.js";

/** `%` and `_` in user text match themselves in ILIKE patterns. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** The fewest characters a term needs for the trigram index to find it. */
const TRIGRAM = 3;

/**
 * The terms of a search: its words (what whitespace separates), each once, in any order. A word
 * shorter than a trigram is too unspecific alone and no index can find it: it stays with the word
 * before it, as typed (`mod 1`), or the word after it when it comes first.
 */
export function searchTerms(search: string): string[] {
  const words = search.split(/\s+/u).filter((word) => word.length > 0);
  const terms: string[] = [];
  let pending = "";
  for (const word of words) {
    const short = [...word].length < TRIGRAM;
    if (short && terms.length > 0) terms[terms.length - 1] += ` ${word}`;
    else if (short) pending = pending ? `${pending} ${word}` : word;
    else {
      terms.push(pending ? `${pending} ${word}` : word);
      pending = "";
    }
  }
  if (pending) terms.push(pending);
  return [...new Set(terms)];
}

/**
 * How each term of `search` (see `searchTerms`) is tested against a row's search text: a substring
 * `like` the trigram index answers, with its pattern, or, for a term too short for the index, a
 * `strpos` filter.
 */
function termTests(search: string): { like: boolean; value: string }[] {
  return searchTerms(search).map((term) =>
    [...term].length >= TRIGRAM ? { like: true, value: likePattern(term).slice(1, -1) } : { like: false, value: term },
  );
}

/**
 * Every term of `search` (see `searchTerms`) is somewhere in a row's `search_text` (migration 0012:
 * name, description and, for mods, the workshop id, lower-cased and without accents), in any
 * order. The terms are normalised the same way, by the same function, once per statement (an
 * immutable function of a constant), and matched as substrings with `like`, which the trigram
 * index answers. A search of short words alone is only a filter (`strpos`: no index can help).
 */
export function searchTextCondition(column: "mods.searchText" | "modpacks.searchText", search: string) {
  const tests = termTests(search);
  if (tests.length === 0) return sql<SqlBool>`true`;
  return sql<SqlBool>`(${sql.join(
    tests.map(({ like, value }) =>
      like
        ? sql`${sql.ref(column)} like '%' || search_normalize(${value}) || '%'`
        : sql`strpos(${sql.ref(column)}, search_normalize(${value})) > 0`,
    ),
    sql` and `,
  )})`;
}

/**
 * `searchTextCondition` as the text of a fixed statement: `column` is the search text's column as
 * the statement names it, and `parameter(n)` names the statement's parameter holding the nth of
 * `values` (from 0), in `values`' order.
 */
export function searchTextSql(column: string, search: string, parameter: FixedParameter) {
  const tests = termTests(search);
  const text = tests.map(({ like }, index) =>
    like
      ? `${column} like '%' || search_normalize(${parameter(index)}) || '%'`
      : `strpos(${column}, search_normalize(${parameter(index)})) > 0`,
  );
  return { text: text.length === 0 ? "true" : `(${text.join(" and ")})`, values: tests.map((test) => test.value) };
}
