/**
 * Figures as text: durations (in two precisions, and as Prometheus writes them), byte counts and rates,
 * for compile messages, dry-run output and progress lines; values on the axes of charts.
 */

/**
 * Rounded, for progress lines and the dry-run summary: `850ms`, `1.5s`, `2m05s`, `1h02m03s`
 * (whole seconds past a minute, in fixed width, so a ticking progress line keeps its shape).
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const totalSeconds = ms / 1000;
  if (totalSeconds < 60) return `${trim(totalSeconds.toFixed(1))}s`;
  const seconds = Math.floor(totalSeconds % 60);
  const minutes = Math.floor(totalSeconds / 60) % 60;
  const hours = Math.floor(totalSeconds / 3600);
  const mmss = `${String(minutes).padStart(hours ? 2 : 1, '0')}m${String(seconds).padStart(2, '0')}s`;
  return hours ? `${hours}h${mmss}` : mmss;
}

/**
 * Exact, for compile messages and dry-run timing: `250ms`, `1.25s`, `1m30s`, `1h`, `1h2m3.5s`,
 * `333.333ms`: milliseconds to at most three decimals, zero parts left out.
 */
export function formatMs(ms: number): string {
  const exact = (n: number) => String(Math.round(n * 1000) / 1000);
  if (ms < 1000) return `${exact(ms)}ms`;
  if (ms < 60_000) return `${exact(ms / 1000)}s`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor(ms / 60_000) % 60;
  const seconds = Math.round(ms % 60_000) / 1000;
  return `${hours ? `${hours}h` : ''}${minutes ? `${minutes}m` : ''}${seconds ? `${exact(seconds)}s` : ''}`;
}

/**
 * As Prometheus and promtool write a duration (whole units, `0s` for none): `1h30m`, `15s`, `7s500ms`, for
 * PromQL and the PASS and FAIL lines of `svc test`.
 */
export function promDuration(ms: number): string {
  const units: [string, number][] = [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  let rest = Math.round(ms);
  let text = '';
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) text += `${n}${unit}`;
    rest -= n * size;
  }
  return text || '0s';
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** `512 B`, `1.5 KiB`, `12.3 MiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${trim(value.toFixed(1))} ${UNITS[unit]}`;
}

/**
 * Events per second with at most one decimal: `10/s`, `0.5/s`, `1234.5/s`; below 1, two significant digits, so a
 * slow rate is not rounded to another or to none (`0.067/s`, one event every 15 s; `0.01/s`).
 */
export function formatRate(perSecond: number): string {
  if (perSecond > 0 && perSecond < 1) return `${Number(perSecond.toPrecision(2))}/s`;
  return `${trim(perSecond.toFixed(1))}/s`;
}

const compact = new Map<number, Intl.NumberFormat>();

/**
 * From here on a value is written with an exponent: compact notation has no unit past T and writes the rest in full
 * (1e20 as `100,000,000T`, 1e308 as 400 characters).
 */
const LARGEST_COMPACT = 1e15;

/**
 * A value as a chart's axis writes it (`svc plot` and the console), to `digits` significant digits (3 unless
 * given; an exponent keeps one less): `0.125`, `79.9`, `12.3K`, `301M`, `4.5e-5`, `1.4e308`.
 */
export function formatValue(value: number, digits = 3): string {
  // The notation is that of the value as rounded: 9.9996e14 is written 1.0e15, as 1e15 is, not 1000T.
  const size = Math.abs(Number(value.toPrecision(digits)));
  // A number rounded past the largest one (1.797e308 to 1.80e308) is still written with an exponent; ±∞ is not.
  if (Number.isFinite(value) && ((size !== 0 && size < 0.001) || size >= LARGEST_COMPACT))
    return value.toExponential(digits - 2).replace('e+', 'e');
  if (size < 1000) return String(Number(value.toPrecision(digits)));
  let format = compact.get(digits);
  if (!format) {
    format = new Intl.NumberFormat('en', { notation: 'compact', maximumSignificantDigits: digits });
    compact.set(digits, format);
  }
  return format.format(value);
}

function trim(fixed: string): string {
  return fixed.endsWith('.0') ? fixed.slice(0, -2) : fixed;
}

/** `cpu > 75`: an `after` or `while` condition as a scenario file writes it. */
export function formatCondition({ ref, op, value }: { ref: string; op: string; value: number }): string {
  return `${ref} ${op} ${value}`;
}

/**
 * How the entry an `after` condition watches came to end the wait: by its own end (`duration`), an error that
 * stopped it, a DELETE of it (svc-server), or the whole run stopped (a signal).
 */
export type WatchedEnd = 'ended' | 'failed' | 'deleted' | 'run stopped';

/**
 * Why an `after` entry never started, for its end line: `src > 10 did not happen before src failed`. An entry
 * whose watched entry is gone waits for nothing more: it ends with no event, and this says why.
 */
export function afterNeverHeld(after: { ref: string; op: string; value: number }, end: WatchedEnd): string {
  const before = { ended: `${after.ref} ended`, failed: `${after.ref} failed`, deleted: `${after.ref} was deleted` };
  return `${formatCondition(after)} did not happen before ${end === 'run stopped' ? 'the run was stopped' : before[end]}`;
}

/**
 * Events of an entry's `total` not delivered, as `svc run` and svc-server say them: `3 of its 40 events were not
 * delivered`; with `where` they were, `35 of its 35 events, still in its sink, were not delivered` (what a signal
 * during the stop's flush left).
 */
export function undelivered(count: number, total: number, where?: string): string {
  const at = where === undefined ? '' : `, ${where},`;
  return `${count} of its ${countOf(total, 'event')}${at} ${count === 1 ? 'was' : 'were'} not delivered`;
}

/**
 * A count and its noun, singular for one: `1 scenario`, `3 scenarios`, `1 entry`, `2 entries` (`plural` for
 * nouns that do not take an s).
 */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
