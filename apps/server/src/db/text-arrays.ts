/** The type id of `text[]` (pg names no constant for array types). */
export const TEXT_ARRAY = 1009;

/**
 * Postgres's text form of a one-dimensional `text[]` as `array_out` writes it, read in one pass:
 * `{3100000001,Brita,"Build 42","say \"hi\""}`. An element is quoted when it is empty, holds
 * whitespace or one of `{},"\`, or reads `NULL`; inside quotes `\` escapes the next character.
 * Every catalogue row carries six of these, and pg's general parser builds an object for each
 * character; this one slices the text between delimiters.
 *
 * Anything else answers undefined, for the general parser: a NULL element, nested arrays,
 * explicit bounds (`[0:1]={a,b}`), or text that is not an array.
 */
export function parseTextArray(text: string): string[] | undefined {
  const end = text.length - 1;
  if (end < 1 || text.charCodeAt(0) !== OPEN || text.charCodeAt(end) !== CLOSE) return undefined;
  const items: string[] = [];
  if (end === 1) return items;
  let index = 1;
  // The next backslash at or after where the reading is, found again only once passed.
  let backslash = text.indexOf("\\", 1);
  for (;;) {
    if (text.charCodeAt(index) === QUOTE) {
      let value = "";
      let from = index + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote === -1) return undefined;
        if (backslash !== -1 && backslash < from) backslash = text.indexOf("\\", from);
        if (backslash === -1 || quote < backslash) {
          value += text.slice(from, quote);
          index = quote + 1;
          break;
        }
        if (backslash + 1 >= end) return undefined;
        value += text.slice(from, backslash) + text[backslash + 1];
        from = backslash + 2;
      }
      items.push(value);
    } else {
      let stop = text.indexOf(",", index);
      if (stop === -1 || stop > end) stop = end;
      const value = text.slice(index, stop);
      if (value === "" || value === "NULL" || /["{}\\]/.test(value)) return undefined;
      items.push(value);
      index = stop;
    }
    const next = text.charCodeAt(index);
    if (index === end && next === CLOSE) return items;
    if (next !== COMMA) return undefined;
    index += 1;
  }
}

const OPEN = 123; // {
const CLOSE = 125; // }
const QUOTE = 34; // "
const COMMA = 44; // ,
