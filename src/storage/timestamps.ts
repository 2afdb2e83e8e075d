let lastMillis = Number.NaN;
let lastIso = "";

/**
 * The current time as ISO 8601 (`new Date().toISOString()`), formatted once per millisecond: a burst
 * of appends within the same millisecond shares one string instead of formatting a date each.
 */
export function isoNow(): string {
  const millis = Date.now();
  if (millis !== lastMillis) {
    lastMillis = millis;
    lastIso = new Date(millis).toISOString();
  }
  return lastIso;
}
