import type { EntryRun, EntryOutcome } from '../runtime/run-entry.js';
import { formatBytes, formatDuration, formatRate } from '../format.js';

/**
 * `[progress] <name>  events: <n> | rate: <r>/s | bytes: <size> | elapsed: <time>`, and `| written: <n> samples,
 * <n> histograms, <n> exemplars` once the receiver said what it wrote (remote write 2.0).
 */
export function progressLine(run: EntryRun, now: number): string {
  const { stats } = run;
  const written = stats.receiverWritten;
  return (
    `[progress] ${run.entry.id}  events: ${stats.totalEvents} | rate: ${formatRate(stats.currentRate(now))}` +
    ` | bytes: ${formatBytes(stats.bytes)} | elapsed: ${formatDuration(now - stats.startedAt)}` +
    (written
      ? ` | written: ${written.samples} samples, ${written.histograms} histograms, ${written.exemplars} exemplars`
      : '')
  );
}

/**
 * `[progress] <name>  events: <n> | bytes: <size> | backfilled: <time> of <duration> | <n>× real time`:
 * the entry's virtual time covered so far, and how much faster than real time the backfill runs.
 */
export function backfillLine(run: EntryRun, covered: number, speedUp: number): string {
  const { stats, entry } = run;
  return (
    `[progress] ${entry.id}  events: ${stats.totalEvents} | bytes: ${formatBytes(stats.bytes)}` +
    ` | backfilled: ${formatDuration(covered)} of ${formatDuration(entry.duration ?? Infinity)} | ${formatSpeedUp(speedUp)} real time`
  );
}

/** `[info] backfilled <virtual time> in <real time> (<n>× real time)`: the figures of a finished backfill. */
export function backfilledLine(virtual: number, real: number): string {
  return `[info] backfilled ${formatDuration(virtual)} in ${formatDuration(real)} (${formatSpeedUp(virtual / real)} real time)`;
}

/** `1520×`, `2.5×`; `-×` before any real time passed. */
function formatSpeedUp(speedUp: number): string {
  if (!Number.isFinite(speedUp)) return '-×';
  return `${speedUp >= 10 ? Math.round(speedUp) : speedUp.toFixed(1)}×`;
}

/**
 * `[progress] <name>  STOPPED (sink: <last error>) | events: <n> | bytes: <size> | elapsed: <time>`;
 * the parenthetical names the sink error that stopped the entry, else the last sink error, and is
 * absent after a clean run; an error of the entry's own chain (not its sink's) reads `(error: …)`.
 */
export function stoppedLine(run: EntryRun, outcome: EntryOutcome, now: number): string {
  const { stats } = run;
  const error = outcome.error
    ? `${outcome.inSink ? 'sink' : 'error'}: ${outcome.error.message}`
    : stats.lastSinkError && `sink: ${stats.lastSinkError}`;
  return (
    `[progress] ${run.entry.id}  STOPPED${error ? ` (${error})` : ''} | events: ${stats.totalEvents}` +
    ` | bytes: ${formatBytes(stats.bytes)} | elapsed: ${formatDuration(now - stats.startedAt)}`
  );
}

/** `[warn] <name>: <warning>` for each sink warning of `run` not shown yet (once each). */
export class SinkWarnings {
  private readonly shown = new Map<EntryRun, number>();

  take(run: EntryRun): string[] {
    const { sinkWarnings } = run.stats;
    const from = this.shown.get(run) ?? 0;
    this.shown.set(run, sinkWarnings.length);
    return sinkWarnings.slice(from).map((warning) => `[warn] ${run.entry.id}: ${warning}`);
  }
}

/** A sink-failure warning, at most one per entry per interval however often the sink fails. */
export class FailureWarnings {
  private readonly seen = new Map<EntryRun, { failures: number; at: number }>();

  constructor(private readonly intervalMs: number) {}

  /** The warning to print for `run` now, if any; `final` ignores the interval (the run ended). */
  check(run: EntryRun, now: number, final = false): string | undefined {
    const { totalSinkFailures, lastSinkError } = run.stats;
    const last = this.seen.get(run) ?? { failures: 0, at: -Infinity };
    if (totalSinkFailures === last.failures || (!final && now - last.at < this.intervalMs)) return undefined;
    this.seen.set(run, { failures: totalSinkFailures, at: now });
    const dropped = totalSinkFailures - last.failures;
    return `[warn] ${run.entry.id}: ${lastSinkError} (${dropped} batch${dropped === 1 ? '' : 'es'} dropped, ${totalSinkFailures} in all)`;
  }
}
