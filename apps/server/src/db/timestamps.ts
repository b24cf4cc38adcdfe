/** The value of the ASCII digit at `index`, or -1. */
function digitAt(text: string, index: number): number {
  const value = text.charCodeAt(index) - 48;
  return value >= 0 && value <= 9 ? value : -1;
}

/** The two-digit number at `index`, or -1. */
function twoDigitsAt(text: string, index: number): number {
  const high = digitAt(text, index);
  const low = digitAt(text, index + 1);
  return high < 0 || low < 0 ? -1 : high * 10 + low;
}

/**
 * Postgres's text form of a `timestamptz` under `DateStyle = ISO` (`2026-11-22 21:06:47.713+00`: a
 * four-digit year from 1000, a fraction of 1 to 6 digits, an offset of `±HH`, `±HH:MM` or
 * `±HH:MM:SS`) as a Date, read without regular expressions: every row of every list carries these.
 * The fraction is cut to milliseconds, as a Date holds them. Any other form (BC, years before 1000
 * or after 9999, `infinity`) answers undefined, for the general parser.
 */
export function parseIsoTimestamptz(text: string): Date | undefined {
  if (text.length < 22) return undefined;
  const century = twoDigitsAt(text, 0);
  const yearOfCentury = twoDigitsAt(text, 2);
  const year = century >= 10 && yearOfCentury >= 0 ? century * 100 + yearOfCentury : -1;
  const month = twoDigitsAt(text, 5);
  const day = twoDigitsAt(text, 8);
  const hour = twoDigitsAt(text, 11);
  const minute = twoDigitsAt(text, 14);
  const second = twoDigitsAt(text, 17);
  if (
    year < 0 ||
    month < 1 ||
    day < 1 ||
    hour < 0 ||
    minute < 0 ||
    second < 0 ||
    text[4] !== "-" ||
    text[7] !== "-" ||
    text[10] !== " " ||
    text[13] !== ":" ||
    text[16] !== ":"
  ) {
    return undefined;
  }
  let index = 19;
  let milliseconds = 0;
  if (text[index] === ".") {
    index += 1;
    let digits = 0;
    for (let value = digitAt(text, index); value >= 0; value = digitAt(text, index)) {
      if (digits < 3) milliseconds = milliseconds * 10 + value;
      digits += 1;
      index += 1;
    }
    if (digits === 0 || digits > 6) return undefined;
    for (let padded = Math.min(digits, 3); padded < 3; padded += 1) milliseconds *= 10;
  }
  const sign = text[index] === "+" ? 1 : text[index] === "-" ? -1 : 0;
  const offsetHours = twoDigitsAt(text, index + 1);
  if (sign === 0 || offsetHours < 0) return undefined;
  index += 3;
  let offsetSeconds = offsetHours * 3600;
  for (const unit of [60, 1]) {
    if (index === text.length) break;
    const value = text[index] === ":" ? twoDigitsAt(text, index + 1) : -1;
    if (value < 0) return undefined;
    offsetSeconds += value * unit;
    index += 3;
  }
  if (index !== text.length) return undefined;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, milliseconds) - sign * offsetSeconds * 1000);
}
