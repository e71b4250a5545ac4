import { show } from './problems.js';

/**
 * Duration grammar shared by `duration`, windows, `phase_offset`, `after.delay`, retry backoffs, `start_time` offsets
 * and the duration flags and query fields of the CLI and server.
 *
 * Prometheus' form (`1h30m`, `2m500ms`, `7d`): one or more `<number><unit>`, units largest first, each at most once;
 * each number may have a fraction (`1.5s`, `1h2m3.5s`), which is how svc prints durations back.
 */

/** The units, largest first, as Prometheus names and sizes them (a year is 365 days). */
const UNITS = [
  ['y', 31_536_000_000],
  ['w', 604_800_000],
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
] as const;
type Unit = (typeof UNITS)[number][0];
const NUMBER = '\\d+(?:\\.\\d+)?';

/** From the `from`th unit to before the `to`th, each unit's optional `<number><unit>` part, in order; `part(unit)` gives its number. */
function optionalParts(part: (unit: Unit) => string, from = 0, to: number = UNITS.length): string {
  return UNITS.slice(from, to)
    .map(([unit]) => `(?:${part(unit)}${unit})?`)
    .join('');
}

/**
 * At least one part: an alternation on the first unit written, then the optional parts after it. Not a lookahead for
 * a digit before optional parts: JSON Schema's patterns should keep to the regex subset it recommends, which has none
 * (RE2-based validators refuse it).
 */
function someParts(part: (unit: Unit) => string): string {
  return `(?:${UNITS.map(([unit], i) => `${part(unit)}${unit}${optionalParts(part, i + 1)}`).join('|')})`;
}

/** A duration, unanchored and without capture groups: for grammars that hold one (a start_time's offset). */
export const DURATION_GRAMMAR = someParts(() => NUMBER);
/** The grammar of a duration (the JSON Schema's pattern too). */
export const DURATION_PATTERN = `^${DURATION_GRAMMAR}$`;
/** The same, each unit's number captured (the lookahead refuses the empty string; this one is not in the schema). */
const DURATION = new RegExp(`^(?=\\d)${optionalParts(() => `(${NUMBER})`)}$`);

/**
 * The numbers below which a part alone reads as 0 (parseDuration counts whole microseconds, half a microsecond up):
 * 0.0005ms, 0.0000005s, 0.000000008m, 0.00000000013h, 0.000000000005d, 0.0000000000008w, 0.000000000000015y.
 * From the minute up they stop short of the true ones (0.00000000833…m, 0.000000000138…h): the few values between
 * are left to validation.
 */
const BELOW_HALF_MICROSECOND: Record<Unit, string> = {
  y: '0+\\.0000000000000(?:0\\d*|1(?:[0-4]\\d*)?)',
  w: '0+\\.000000000000[0-7]\\d*',
  d: '0+\\.00000000000[0-4]\\d*',
  h: '0+\\.000000000(?:0\\d*|1(?:[0-2]\\d*)?)',
  m: '0+\\.00000000[0-7]\\d*',
  s: '0+\\.000000[0-4]\\d*',
  ms: '0+\\.000[0-4]\\d*',
};
const ZERO = '0+(?:\\.0+)?';

/**
 * The durations parseDuration reads as 0, so the JSON Schema refuses them where a length must be above 0: every part
 * 0 but at most one, below half a microsecond. Two such parts that add up to 0 (`0.0000002s0.0002ms`) are left to
 * validation.
 */
export const ZERO_DURATION_PATTERN = UNITS.map(
  // All parts optional: the empty string it also matches is no duration anyway (DURATION_PATTERN beside it).
  ([tiny]) => `^${optionalParts((unit) => (unit === tiny ? `(?:${ZERO}|${BELOW_HALF_MICROSECOND[unit]})` : ZERO))}$`,
).join('|');

/** A number whose whole part is at least `least`, leading zeros and a fraction allowed: compared digit by digit. */
function numberFrom(least: number): string {
  const digits = String(least);
  const longer = `[1-9]\\d{${digits.length},}`;
  // Equal up to the ith digit, greater there, any digits after it.
  const greater = [...digits].flatMap((digit, i) => {
    const after = digits.length - i - 1;
    return digit === '9' ? [] : [`${digits.slice(0, i)}[${Number(digit) + 1}-9]${after ? `\\d{${after}}` : ''}`];
  });
  return `0*(?:${[longer, ...greater, digits].join('|')})(?:\\.\\d+)?`;
}

/**
 * The durations longer than `maxMs` ms by one part alone (`400d`, `2h` above 1h), unanchored: the whole number of one
 * part reaches the count of its unit that passes the limit. The JSON Schema refuses them; one longer only by its
 * parts together or a fraction (`1y1d`, `1.5y` above 365 days) is left to validation, as a regular expression
 * cannot add numbers up. `maxMs` is whole milliseconds, so a refused one passes it by at least 1ms, which rounding
 * to the microsecond does not undo.
 */
export function longerPartGrammar(maxMs: number): string {
  const any = () => NUMBER;
  return `(?:${UNITS.map(
    ([unit, size], i) =>
      `${optionalParts(any, 0, i)}${numberFrom(Math.floor(maxMs / size) + 1)}${unit}${optionalParts(any, i + 1)}`,
  ).join('|')})`;
}

const EXPECTED =
  'expected a duration such as 500ms, 1.5s, 1m30s or 7d (units y, w, d, h, m, s, ms: largest first, each at most once)';

/**
 * Parses a duration (`1h30m`, `1.5s`, `2m500ms`; see the module comment) into milliseconds; 0 only with `zero`
 * (a moment such as `gap_windows[].at`, not a length).
 * Throws a RangeError saying what was expected. The result is rounded to the microsecond so that
 * decimal inputs such as `1.1s` give 1100, not 1100.0000000000002.
 */
export function parseDuration(text: string, { zero = false }: { zero?: boolean } = {}): number {
  const written = writtenMs(text);
  if (Number.isNaN(written)) throw new RangeError(`${EXPECTED}, got ${show(text)}`);
  const ms = Math.round(written * 1000) / 1000;
  // A length below half a microsecond rounds to 0: "expected a positive duration" would read as a contradiction.
  if (ms === 0 && !zero && written > 0) {
    throw new RangeError(
      `expected a duration of at least 0.001ms (durations count whole microseconds), got ${show(text)}`,
    );
  }
  if (!(ms > 0 || (zero && ms === 0)) || !Number.isFinite(ms)) {
    throw new RangeError(`expected a ${zero ? 'finite' : 'positive, finite'} duration, got ${show(text)}`);
  }
  return ms;
}

/**
 * The milliseconds `text` writes, before {@link parseDuration} rounds them to the microsecond (`0.0005ms` is 0.0005,
 * not 0.001); NaN when `text` is not a duration.
 */
export function writtenMs(text: unknown): number {
  const match = typeof text === 'string' ? DURATION.exec(text) : null;
  return match
    ? UNITS.reduce((ms, [, size], i) => ms + (match[i + 1] === undefined ? 0 : Number(match[i + 1]) * size), 0)
    : Number.NaN;
}
