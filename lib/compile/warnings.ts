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

/** Loki's default limit of active streams per tenant (`limits_config.max_global_streams_per_user`). */
export const LOKI_DEFAULT_MAX_STREAMS = 5000;

/** Each warning about `entry`, naming the field it is about (`trace_generator.root.incident.start: …`). */
export function entryWarnings(entry: Entry): string[] {
  return [...incidentWarnings(entry), ...streamWarnings(entry)];
}

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
