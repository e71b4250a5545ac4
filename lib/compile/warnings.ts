/**
 * Advisory warnings about an entry that runs all the same: something it asks for that never happens, or more than
 * its destination takes by default. The CLI
 * prints them at `--dry-run` and at the start of a run, the server answers and logs them with the scenario; they
 * never block. (What is risky about a sink alone is the sink kind's: lib/sinks/kinds/kind.ts.)
 */
import type { Entry } from '../config/types.js';
import type { CallConfig, RootSpanConfig } from '../language/traces.js';
import { formatPath, type Segment } from '../language/problems.js';
import { formatMs } from '../format.js';
import { labelSetCount } from '../../operators/labels.js';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { replayRow, replayTime } from '../generators/replay.js';
import type { ReplayTimes } from '../language/types.js';

/** Loki's default limit of active streams per tenant (`limits_config.max_global_streams_per_user`). */
export const LOKI_DEFAULT_MAX_STREAMS = 5000;

/** Each warning about `entry`, naming the field it is about (`trace_generator.root.incident.start: …`). */
export function entryWarnings(entry: Entry): string[] {
  return [...incidentWarnings(entry), ...streamWarnings(entry), ...skippedRowWarnings(entry)];
}

/**
 * A logs `csv_replay` sampled too slowly for its rows: each tick writes the row in force (docs/scenario-fields.md
 * csv_replay), so rows that fall between two ticks are never written, records lost. The reference tool derives the
 * rate from the CSV's spacing, so its files often give a `rate` (ignored there) that is too low here.
 */
function skippedRowWarnings(entry: Entry): string[] {
  const replay = entry.log_generator;
  if (replay?.type !== 'csv_replay' || !replay.table) return [];
  const { at: rows, span } = replay.table.times;
  const skipped = rowsBetweenTicks(entry.rate, entry.duration, { ...replay, times: replay.table.times });
  if (!skipped) return [];
  const closest = rows.reduce((least, at, i) => Math.min(least, (rows[i + 1] ?? span) - at), Number.POSITIVE_INFINITY);
  const needed = (1000 * replay.timescale) / closest;
  return [
    `rate: ${skipped} of the ${rows.length} rows of ${replay.file} fall between two ticks and are never written (rows ${formatMs(closest)} apart on the CSV's time${replay.timescale === 1 ? '' : `, timescale ${replay.timescale}`}; a tick every ${formatMs(1000 / entry.rate)}): each tick writes the row in force, so give rate: ${Number(needed.toPrecision(6))} or more to write every row`,
  ];
}

/**
 * How many rows of the first pass through the CSV no tick writes, by the runtime's own reckoning: its schedule's tick
 * times and the row each reads (lib/generators/replay.ts). From each tick it jumps to the tick before the next row's
 * start, so it looks at two ticks a row at most.
 */
function rowsBetweenTicks(
  rate: number,
  duration: number | undefined,
  replay: { times: ReplayTimes; repeat: boolean; timescale: number },
): number {
  const { times, repeat, timescale } = replay;
  const { at: rows, span } = times;
  const schedule = RateSchedule.constant(rate);
  const rowOf = replayRow(times, repeat, timescale);
  const last = rows.length - 1;
  let next = 0; // the first row no tick has reached yet
  let skipped = 0;
  for (let k = 0; ; ) {
    const at = schedule.timeOf(k);
    if (duration !== undefined && at >= duration) break;
    // Without repeat the last row holds from the end of the span on: the pass ends with it.
    if (repeat && replayTime(at, timescale) >= span) {
      skipped += rows.length - next;
      break;
    }
    const row = rowOf(at);
    if (row >= next) {
      skipped += row - next;
      next = row + 1;
    }
    if (row === last) break;
    // The tick before the one due at the next row's start: rounding may put that one a slot early or late.
    const start = (rows[row + 1]! / timescale) * (rate / 1000);
    if (!(start < MAX_SLOT)) break;
    k = Math.max(k + 1, schedule.slotsBefore(rows[row + 1]! / timescale) - 1);
  }
  return skipped;
}

/** Slot numbers the reckoning above goes to: exact integers, well within what the schedule counts. */
const MAX_SLOT = 2 ** 52;

/** Traces incidents that begin at or after the entry's end: its spans never behave otherwise. */
function incidentWarnings(entry: Entry): string[] {
  const end = entry.duration;
  const root = entry.trace_generator?.root;
  if (end === undefined || !root) return [];
  const found: string[] = [];
  // Calls nest at most MAX_SPANS_PER_TRACE deep: the recursion is bounded.
  const walk = (span: RootSpanConfig | CallConfig, path: readonly Segment[]): void => {
    if (span.incident && span.incident.start >= end)
      found.push(
        `${formatPath([...path, 'incident', 'start'])}: the incident starts at ${formatMs(span.incident.start)}, at or after the entry's end (duration ${formatMs(end)}): it never happens`,
      );
    for (const [i, call] of span.calls.entries()) walk(call, [...path, 'calls', i]);
  };
  walk(root, ['trace_generator', 'root']);
  return found;
}

/**
 * A logs entry into a log store with more label sets than Loki's default stream limit: past it the store refuses
 * the pushes of new streams (429), so the run loses most of its records.
 */
function streamWarnings(entry: Entry): string[] {
  if (entry.signal_type !== 'logs' || entry.sink.type !== 'logstore') return [];
  const streams = labelSetCount({ dynamic: entry.dynamic_labels, spikes: entry.cardinality_spikes });
  if (streams <= LOKI_DEFAULT_MAX_STREAMS) return [];
  const field = entry.dynamic_labels.length ? 'dynamic_labels' : 'cardinality_spikes';
  return [
    `${field}: the labels make up to ${streams} streams (label sets) in the log store; Loki keeps at most ${LOKI_DEFAULT_MAX_STREAMS} active streams per tenant by default (limits_config.max_global_streams_per_user) and refuses pushes to more: raise that limit, or lower the cardinalities`,
  ];
}
