import { httpError } from "../edge/errors.js";

/** How deep a request's JSON may nest; deeper bodies are refused before any code walks them. */
const MAX_JSON_DEPTH = 64;

/**
 * Parses a JSON request body, refusing with a 400 error one that is malformed or nests deeper than
 * `MAX_JSON_DEPTH`. The depth is measured on the text (brackets outside strings), so no recursive
 * code ever sees a hostile body.
 */
export function parseJsonBody(text: string): unknown {
  assertJsonDepth(text);
  try {
    return JSON.parse(text);
  } catch {
    throw httpError(400, "Malformed JSON in request body");
  }
}

function assertJsonDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b || char === 0x7b) {
      depth++;
      if (depth > MAX_JSON_DEPTH) {
        throw httpError(400, `JSON in request body nests deeper than ${MAX_JSON_DEPTH} levels`);
      }
    } else if (char === 0x5d || char === 0x7d) {
      depth--;
    }
  }
}

/** True when a parsed value holds a NUL character in any key or string, at any depth (walked without recursion). */
export function containsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") {
      if (item.includes("\u0000")) return true;
    } else if (item !== null && typeof item === "object") {
      for (const [key, child] of Object.entries(item)) {
        if (key.includes("\u0000")) return true;
        pending.push(child);
      }
    }
  }
  return false;
}

/**
 * True when a request body holds a NUL anywhere. A body the JSON parser left as text (the `/trpc`
 * routes parse their own) is depth-checked, and parsed only when it may hold an escaped NUL.
 */
export function bodyContainsNul(body: unknown): boolean {
  if (typeof body !== "string") return containsNul(body);
  assertJsonDepth(body);
  return (body.includes("\\u0000") || body.includes("\u0000")) && containsNul(parseJsonBody(body));
}
