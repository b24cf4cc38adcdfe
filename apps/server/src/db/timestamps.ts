const DASH = 45;
const PLUS = 43;
const SPACE = 32;
const COLON = 58;
const DOT = 46;

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
  const length = text.length;
  if (length < 22) return undefined;
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
    text.charCodeAt(4) !== DASH ||
    text.charCodeAt(7) !== DASH ||
    text.charCodeAt(10) !== SPACE ||
    text.charCodeAt(13) !== COLON ||
    text.charCodeAt(16) !== COLON
  ) {
    return undefined;
  }
  let index = 19;
  let milliseconds = 0;
  if (text.charCodeAt(index) === DOT) {
    index += 1;
    let digits = 0;
    for (let value = digitAt(text, index); value >= 0; value = digitAt(text, index)) {
      if (digits < 3) milliseconds = milliseconds * 10 + value;
      digits += 1;
      index += 1;
    }
    if (digits === 0 || digits > 6) return undefined;
    if (digits === 1) milliseconds *= 100;
    else if (digits === 2) milliseconds *= 10;
  }
  const signCode = text.charCodeAt(index);
  const sign = signCode === PLUS ? 1 : signCode === DASH ? -1 : 0;
  const offsetHours = twoDigitsAt(text, index + 1);
  if (sign === 0 || offsetHours < 0) return undefined;
  index += 3;
  let offsetSeconds = offsetHours * 3600;
  // Then `:MM` and `:SS`, each optional after the one before.
  if (index < length) {
    const offsetMinutes = text.charCodeAt(index) === COLON ? twoDigitsAt(text, index + 1) : -1;
    if (offsetMinutes < 0) return undefined;
    offsetSeconds += offsetMinutes * 60;
    index += 3;
    if (index < length) {
      const extraSeconds = text.charCodeAt(index) === COLON ? twoDigitsAt(text, index + 1) : -1;
      if (extraSeconds < 0) return undefined;
      offsetSeconds += extraSeconds;
      index += 3;
    }
  }
  if (index !== length) return undefined;
  // Days from 1970-01-01 of the proleptic Gregorian date, in 400-year eras that start on March 1st
  // (as in isoString): integer arithmetic instead of a call to Date.UTC, the parse's costliest step.
  const yearFromMarch = month <= 2 ? year - 1 : year;
  const era = Math.floor(yearFromMarch / 400);
  const yearOfEra = yearFromMarch - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  const days = era * 146_097 + dayOfEra - 719_468;
  const time = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milliseconds;
  return new Date(time - sign * offsetSeconds * 1000);
}

const DAY_MS = 86_400_000;
/** The first and last milliseconds of years 1000 to 9999, the years written with four digits. */
const FOUR_DIGIT_YEARS = [Date.UTC(1000, 0, 1), Date.UTC(10000, 0, 1) - 1] as const;
const ZERO = 48;
const T = 84;
const Z = 90;

/** The character code of the decimal digit of `value` at `place` (1, 10, 100 or 1000). */
function digitOf(value: number, place: number): number {
  return ZERO + (Math.floor(value / place) % 10);
}

/**
 * A Date as `Date.prototype.toISOString` writes it (`2026-11-22T21:06:47.713Z`), computed from its
 * time value with integer arithmetic, which is cheaper than V8's own; every answer carries two or
 * more per row. The string is made in one piece from its character codes: joining its thirteen
 * parts would leave a chain of twelve intermediate strings per date for the collector. Years outside 1000 to 9999 (six-digit years) and invalid dates (a RangeError)
 * are left to `toISOString`.
 */
export function isoString(date: Date): string {
  const time = date.getTime();
  if (!(time >= FOUR_DIGIT_YEARS[0] && time <= FOUR_DIGIT_YEARS[1])) return date.toISOString();
  const days = Math.floor(time / DAY_MS);
  let rest = time - days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const milliseconds = rest - seconds * 1000;
  // The proleptic Gregorian date of a day count from 1970-01-01, in 400-year eras of 146,097 days
  // that start on March 1st (so a leap day falls at the end of its year).
  const fromEra = days + 719_468;
  const era = Math.floor(fromEra / 146_097);
  const dayOfEra = fromEra - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return String.fromCharCode(
    digitOf(year, 1000),
    digitOf(year, 100),
    digitOf(year, 10),
    digitOf(year, 1),
    DASH,
    digitOf(month, 10),
    digitOf(month, 1),
    DASH,
    digitOf(day, 10),
    digitOf(day, 1),
    T,
    digitOf(hours, 10),
    digitOf(hours, 1),
    COLON,
    digitOf(minutes, 10),
    digitOf(minutes, 1),
    COLON,
    digitOf(seconds, 10),
    digitOf(seconds, 1),
    DOT,
    digitOf(milliseconds, 100),
    digitOf(milliseconds, 10),
    digitOf(milliseconds, 1),
    Z,
  );
}
