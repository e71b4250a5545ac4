/**
 * Epoch times as the text protocols write them: milliseconds, ISO 8601, nanoseconds. The encoders and the framings
 * (the log store's push) share them, so a time is written one way.
 */

/** "000" … "999". */
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/**
 * `String(ms)` of epoch milliseconds, built from the cached text of its second: timestamps of one
 * second differ in their last three digits only, and converting a 13-digit number is ten times
 * the cost of a table lookup. Each encoder keeps its own (the cache is one second).
 */
export function millisecondsText(): (ms: number) => string {
  let second = NaN;
  let head = '';
  return (ms) => {
    if (!(ms >= 1000 && Number.isInteger(ms))) return String(ms);
    const s = Math.floor(ms / 1000);
    if (s !== second) {
      second = s;
      head = String(s);
    }
    return head + THREE_DIGITS[ms - s * 1000]!;
  };
}

/**
 * `new Date(ms).toISOString()` of epoch milliseconds, built from the cached text of its second
 * (`2026-03-04T05:06:07.`), as {@link millisecondsText} does for the digits. Each encoder keeps its own.
 */
export function isoMillisecondsText(): (ms: number) => string {
  let second = NaN;
  let head = '';
  return (ms) => {
    // Past the Date range (±8.64e15) a millisecond can still fall in a valid second: toISOString refuses it.
    if (!(Number.isInteger(ms) && Math.abs(ms) <= 8.64e15)) return new Date(ms).toISOString();
    const s = Math.floor(ms / 1000);
    if (s !== second) {
      head = new Date(s * 1000).toISOString().slice(0, -4);
      second = s;
    }
    return `${head}${THREE_DIGITS[ms - s * 1000]!}Z`;
  };
}

/**
 * Epoch nanoseconds as text, from millisecond `ms` and `nanos` past it (0 to 999 999): the digits of `ms`
 * ({@link millisecondsText}) then six of `nanos`. Before 1970 through BigInt, where the nanoseconds count back
 * towards 0. Each encoder keeps its own.
 */
export function nanosecondsText(): (ms: number, nanos: number) => string {
  const millis = millisecondsText();
  return (ms, nanos) => {
    if (ms < 0) return String(BigInt(ms) * 1_000_000n + BigInt(nanos));
    const micros = Math.floor(nanos / 1000);
    return millis(ms) + THREE_DIGITS[micros]! + THREE_DIGITS[nanos - micros * 1000]!;
  };
}
