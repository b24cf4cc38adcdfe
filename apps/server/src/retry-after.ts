/**
 * The wait a `Retry-After` header asks for, in seconds from `now`: delta seconds or an HTTP date
 * (one already past is no wait); null when absent or unreadable. The Steam client and webhook
 * delivery each bound it their own way.
 */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  // An HTTP date names its weekday and month; `Date.parse` alone would read `-5` as the year -5.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}
