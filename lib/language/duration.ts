import { show } from './problems.js';

/** Duration grammar shared by `duration`, windows, `phase_offset`, `after.delay` and retry backoffs. */

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
/** The grammar of a duration (the JSON Schema's pattern too). */
export const DURATION_PATTERN = '^(\\d+(?:\\.\\d+)?)(ms|s|m|h)$';
const DURATION = new RegExp(DURATION_PATTERN);

/**
 * The durations parseDuration reads as 0 (it counts whole microseconds, half a microsecond up):
 * 0, and below 0.0005ms, 0.0000005s, 0.000000008m and 0.00000000013h, so the JSON Schema refuses
 * them where a length must be above 0. The last two bounds stop short of the true ones
 * (0.00000000833…m, 0.000000000138…h): the few values between are left to validation.
 */
export const ZERO_DURATION_PATTERN = [
  '0+(?:\\.0+)?(?:ms|s|m|h)',
  '0+\\.000[0-4]\\d*ms',
  '0+\\.000000[0-4]\\d*s',
  '0+\\.00000000[0-7]\\d*m',
  '0+\\.000000000(?:0|1[0-2])\\d*h',
]
  .map((zero) => `^${zero}$`)
  .join('|');

/**
 * Parses `<number><unit>` (units ms, s, m, h; fractions allowed, `1.5s` = 1500) into milliseconds; 0 only
 * with `zero` (a moment such as `gap_windows[].at`, not a length).
 * Throws a RangeError saying what was expected. The result is rounded to the microsecond so that
 * decimal inputs such as `1.1s` give 1100, not 1100.0000000000002.
 */
export function parseDuration(text: string, { zero = false }: { zero?: boolean } = {}): number {
  const match = DURATION.exec(text);
  if (!match) {
    // `7d` is what a start_time (`-7d`) and PromQL take: say what a duration takes instead.
    const days = /^(\d+(?:\.\d+)?)d$/.exec(text)?.[1];
    const hint =
      days === undefined ? '' : `: a duration has no d unit, write ${Math.round(Number(days) * 24e6) / 1e6}h`;
    throw new RangeError(
      `expected a duration such as 500ms, 1.5s, 2m or 1h (units ms, s, m, h), got ${show(text)}${hint}`,
    );
  }
  const ms = Math.round(asWritten(match) * 1000) / 1000;
  // A length below half a microsecond rounds to 0: "expected a positive duration" would read as a contradiction.
  if (ms === 0 && !zero && Number(match[1]) > 0) {
    throw new RangeError(
      `expected a duration of at least 0.001ms (durations count whole microseconds), got ${show(text)}`,
    );
  }
  if (!(ms > 0 || (zero && ms === 0)) || !Number.isFinite(ms)) {
    throw new RangeError(`expected a ${zero ? 'finite' : 'positive, finite'} duration, got ${show(text)}`);
  }
  return ms;
}

/** The milliseconds of a matched duration as written, before rounding to the microsecond. */
function asWritten(match: RegExpExecArray): number {
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/**
 * The milliseconds `text` writes, before {@link parseDuration} rounds them to the microsecond (`0.0005ms` is 0.0005,
 * not 0.001); NaN when `text` is not a duration.
 */
export function writtenMs(text: unknown): number {
  const match = typeof text === 'string' ? DURATION.exec(text) : null;
  return match ? asWritten(match) : Number.NaN;
}
