/**
 * The one rule deciding which text may go into a server file: in-game mod ids, map folders and
 * workshop ids as values of a `key=a;b;c` line, and any other text only inside a `#` comment line.
 * Pure functions only.
 */

/** Longest in-game mod id or map folder accepted. */
export const MAX_VALUE_LENGTH = 200;

/**
 * Characters that end or break a line for some reader of the file: control characters (C0, DEL and
 * C1, which includes U+0085 NEXT LINE) and the Unicode line and paragraph separators.
 */
const LINE_BREAKING = /[\p{Cc}\u2028\u2029]/gu;

export type UnsafeReason = "control-character" | "line-separator" | "semicolon" | "equals" | "too-long";

export interface RejectedValue {
  /** The value with line-breaking characters written as `\uXXXX` and cut to 100 characters, fit for a message. */
  value: string;
  reason: UnsafeReason;
}

const REASON_TEXT: Record<UnsafeReason, string> = {
  "control-character": "contains a control character",
  "line-separator": "contains a Unicode line or paragraph separator",
  semicolon: "contains ';'",
  equals: "contains '='",
  "too-long": `is longer than ${MAX_VALUE_LENGTH} characters`,
};

/** Why a (trimmed, non-empty) value may not be written as a server-file value; undefined when it may. */
export function unsafeReason(value: string): UnsafeReason | undefined {
  const breaking = value.match(LINE_BREAKING)?.[0];
  if (breaking !== undefined) return "\u2028\u2029\u0085".includes(breaking) ? "line-separator" : "control-character";
  if (value.includes(";")) return "semicolon";
  if (value.includes("=")) return "equals";
  if (value.length > MAX_VALUE_LENGTH) return "too-long";
  return undefined;
}

/** A sentence saying why a value was refused, e.g. `contains ';'`. */
export function describeReason(reason: UnsafeReason): string {
  return REASON_TEXT[reason];
}

/** `value` with line-breaking characters escaped as `\uXXXX` and cut to `max` characters, for messages. */
export function printable(value: string, max = 100): string {
  const escaped = value.replace(
    LINE_BREAKING,
    (character) => `\\u${character.codePointAt(0)!.toString(16).padStart(4, "0")}`,
  );
  const cut = [...escaped];
  return cut.length <= max ? escaped : `${cut.slice(0, max - 1).join("")}…`;
}

/**
 * Splits values into those that may be written (trimmed, without blanks or repeats, first occurrence
 * kept) and those refused, each with its reason. Blank values are dropped silently.
 */
export function partitionValues(values: Iterable<string>): { usable: string[]; rejected: RejectedValue[] } {
  const usable: string[] = [];
  const seen = new Set<string>();
  const rejected: RejectedValue[] = [];
  for (const raw of values) {
    const value = raw.trim();
    if (value === "") continue;
    const reason = unsafeReason(value);
    if (reason !== undefined) {
      rejected.push({ value: printable(value), reason });
    } else if (!seen.has(value)) {
      seen.add(value);
      usable.push(value);
    }
  }
  return { usable, rejected };
}

/**
 * Text for a `#` comment line: line-breaking characters (the same ones `unsafeReason` refuses in
 * values) are removed, so no text can start a new line of the file.
 */
export function commentText(value: string): string {
  return value.replace(LINE_BREAKING, "").trim();
}
