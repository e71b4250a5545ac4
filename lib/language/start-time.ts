import { DURATION_GRAMMAR, DURATION_PATTERN, writtenMs } from './duration.js';
import { shortened, show } from './problems.js';
import type { StartTime } from './types.js';

/** A signed duration (`-1h30m`, `+2d`), as durations are written. */
const OFFSET = `([+-])(${DURATION_GRAMMAR})`;
const INSTANT = '(\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d+))?';
const ZONE = '([Zz]|[+-]\\d{2}:\\d{2})';
const RELATIVE = new RegExp(`^${OFFSET}$`);
const UNSIGNED = new RegExp(DURATION_PATTERN);
// The zone is optional here so that an instant without one gets its own message.
const RFC3339 = new RegExp(`^${INSTANT}${ZONE}?$`);
/**
 * The grammar of a start_time (the JSON Schema's pattern): now, a signed offset, an instant with its zone. Ranges
 * (a 13th month, an offset past 100 years) are validation's.
 */
export const START_TIME_PATTERN = `^(?:now|${OFFSET}|${INSTANT}${ZONE})$`;

const EXPECTED =
  'expected now, an RFC 3339 instant (2024-05-01T12:00:00Z) or a signed offset (+1h, -30m, -1h30m, -2d: units largest first, each at most once)';

/**
 * Parses `start_time`: `now`, an RFC 3339 instant (`Z` or `±hh:mm`, optional fraction; digits
 * below the millisecond are dropped), or a signed duration (`-1h30m`, `+2d`: units y, w, d, h, m, s, ms).
 * Throws a RangeError saying what was expected.
 */
export function parseStartTime(text: string): StartTime {
  if (text === 'now') return { kind: 'now' };
  const relative = RELATIVE.exec(text);
  if (relative) {
    // Rounded to the microsecond, as durations are.
    const magnitude = Math.round(writtenMs(relative[2]) * 1000) / 1000;
    if (!Number.isFinite(magnitude)) throw new RangeError(`${EXPECTED}, got ${show(text)} (offset too large)`);
    // `0 * -1` is -0; keep offsets free of negative zero.
    return { kind: 'relative', offsetMs: relative[1] === '-' && magnitude !== 0 ? -magnitude : magnitude };
  }
  if (UNSIGNED.test(text)) {
    const offset = shortened(text);
    throw new RangeError(`${EXPECTED}, got ${show(text)} (a relative offset needs a sign: +${offset} or -${offset})`);
  }
  const absolute = RFC3339.exec(text);
  if (!absolute) throw new RangeError(`${EXPECTED}, got ${show(text)}`);
  if (absolute[8] === undefined) {
    throw new RangeError(`${EXPECTED}, got ${show(text)} (an instant needs a time zone: Z or ±hh:mm)`);
  }
  const epochMs = instantMs(absolute);
  if (epochMs === undefined) throw new RangeError(`${EXPECTED}, got ${show(text)} (no such date or time)`);
  return { kind: 'absolute', epochMs };
}

/** Milliseconds since the epoch of a matched RFC 3339 instant, or undefined when a field is out of range. */
function instantMs(match: RegExpExecArray): number | undefined {
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zone = match[8]!;
  const [zoneSign, zoneHour, zoneMinute] =
    zone === 'Z' || zone === 'z'
      ? [1, 0, 0]
      : [zone[0] === '-' ? -1 : 1, Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
  // RFC 3339 allows second 60 (a leap second); it rolls into the next minute.
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60 || zoneHour > 23 || zoneMinute > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number((match[7] ?? '').slice(0, 3).padEnd(3, '0')));
  return date.getTime() - zoneSign * (zoneHour * 60 + zoneMinute) * 60_000;
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The timestamp written on tick 0, given the entry's start in scheduler time. */
export type Anchor = (start: number) => number;

/** The anchor of an entry's own `start_time`: its start for `now`, the instant, or its start plus the offset. */
export function anchorOf(startTime: StartTime): Anchor {
  switch (startTime.kind) {
    case 'now':
      return (start) => start;
    case 'absolute':
      return () => startTime.epochMs;
    case 'relative':
      return (start) => start + startTime.offsetMs;
  }
}
