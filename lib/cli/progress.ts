import type { Entry } from '../config/types.js';
import type { EntryRun, EntryOutcome } from '../runtime/run-entry.js';
import { formatBytes, formatCondition, formatDuration, formatRate } from '../format.js';

/**
 * `[progress] <name>  events: <n> | rate: <r>/s | bytes: <size> | elapsed: <time>`, and `| dropped: <n>` once the
 * sink gave events up, `| written: <n> samples, <n> histograms, <n> exemplars` once the receiver said what it wrote
 * (remote write 2.0), `| rejected: <n>` once it refused events of requests it took (OTLP partial success).
 */
export function progressLine(run: EntryRun, now: number): string {
  const { stats } = run;
  return (
    `[progress] ${run.entry.id}  events: ${stats.totalEvents} | rate: ${flushInterval(run.entry) ?? formatRate(stats.currentRate(now))}` +
    ` | bytes: ${formatBytes(stats.bytes)} | elapsed: ${formatDuration(now - stats.startedAt)}` +
    deliveryParts(stats)
  );
}

/**
 * `[progress] <name>  not started: phase offset 5m00s, starts in 4m05s | elapsed: <time>`, or `not started: waits for
 * cpu > 75`, then `cpu > 75 happened, starts in 20s (delay 30s)` from `triggeredAt` (when the condition was met) on:
 * an entry before its start, which a row of zeros (`rate: 0/s`) would show as stalled.
 */
export function waitingLine({ entry, stats }: EntryRun, now: number, triggeredAt?: number): string {
  const elapsed = now - stats.startedAt;
  const offset = entry.phase_offset ?? 0;
  const delay = entry.after?.delay ?? 0;
  const why = entry.after
    ? triggeredAt === undefined
      ? `waits for ${formatCondition(entry.after)}`
      : `${formatCondition(entry.after)} happened, starts in ${formatDuration(Math.max(0, triggeredAt + delay - now))} (delay ${formatDuration(delay)})`
    : offset > 0
      ? `phase offset ${formatDuration(offset)}, starts in ${formatDuration(Math.max(0, offset - elapsed))}`
      : // `--workers`: the workers are still loading.
        'starting';
  return `[progress] ${entry.id}  not started: ${why} | elapsed: ${formatDuration(elapsed)}`;
}

/**
 * `every 15s` for an entry of span metrics, which are written once an interval as the connector flushes them: a rate
 * over the last seconds would swing between 0 and a burst. Undefined for any other entry.
 */
export function flushInterval(entry: Entry): string | undefined {
  return entry.span_metrics_of ? `every ${formatDuration(1000 / entry.rate)}` : undefined;
}

/**
 * What became of the events past the sink: ` | dropped: …` (`events` counts them too, so a run that lost some says
 * so), then what the receiver said of them, ` | written: …` and ` | rejected: …`; each once there is something.
 */
function deliveryParts(stats: EntryRun['stats']): string {
  const written = stats.receiverWritten;
  return (
    (stats.droppedEvents > 0 ? ` | dropped: ${stats.droppedEvents}` : '') +
    (written
      ? ` | written: ${written.samples} samples, ${written.histograms} histograms, ${written.exemplars} exemplars`
      : '') +
    rejectedPart(stats)
  );
}

/** ` | rejected: <n>` once a receiver refused events of requests it took; nothing before. */
function rejectedPart(stats: EntryRun['stats']): string {
  return stats.receiverRejected > 0 ? ` | rejected: ${stats.receiverRejected}` : '';
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
 * `[progress] <name>  STOPPED (sink: <last error>) | events: <n> | bytes: <size> | elapsed: <time>`, and
 * `| dropped: <n>`, `| written: …` and `| rejected: <n>` as on the progress line, then `| missed: <n> (rate not
 * kept)` when the entry fell behind its rate and events due before its duration were never made;
 * the parenthetical names the sink error that stopped the entry, else the last sink error, and is
 * absent after a clean run; an error of the entry's own chain (not its sink's) reads `(error: …)`.
 */
export function stoppedLine(run: EntryRun, outcome: EntryOutcome, now: number): string {
  const { stats } = run;
  const error = outcome.error
    ? `${outcome.inSink ? 'sink' : 'error'}: ${outcome.error.message}`
    : stats.lastSinkError && `sink: ${stats.lastSinkError}`;
  return (
    `[progress] ${run.entry.id}  STOPPED${error ? ` (${error})` : ''} | ${figures(stats, now)}` +
    (stats.missedEvents > 0 ? ` | missed: ${stats.missedEvents} (rate not kept)` : '')
  );
}

/**
 * `[progress] <name>  flushing | events: <n> | bytes: <size> | elapsed: <time>` and the delivery parts of the
 * progress line: an entry that makes no more events (its duration ran out, or a stop signal came) while its sink
 * still delivers what it holds, up to its flush timeout against a receiver that does not answer. Its rate would
 * read `0/s`, as if stalled.
 */
export function flushingLine(run: EntryRun, now: number): string {
  return `[progress] ${run.entry.id}  flushing | ${figures(run.stats, now)}`;
}

/** `events: <n> | bytes: <size> | elapsed: <time>` and the delivery parts: the figures of an entry that ticks no more. */
function figures(stats: EntryRun['stats'], now: number): string {
  return `events: ${stats.totalEvents} | bytes: ${formatBytes(stats.bytes)} | elapsed: ${formatDuration(now - stats.startedAt)}${deliveryParts(stats)}`;
}

/**
 * Whether a line printed after an ended entry's last warnings names its last sink error: its STOPPED line
 * (`stoppedLineShown`: not --quiet) does unless an error of the entry's own chain stopped it (that line names
 * that error instead), and its `error:` line does when the sink's error stopped it or the sink never delivered.
 */
export function sinkErrorSaidBelow(run: EntryRun, { error, inSink }: EntryOutcome, stoppedLineShown: boolean): boolean {
  if (inSink) return true;
  if (error) return false;
  return stoppedLineShown || run.stats.neverDelivered();
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

/**
 * Sink-failure warnings: at most one per entry per interval however often the sink fails; a receiver's
 * partial refusals (counted in `rejected`) at most once per streak instead, however long it lasts (streaks
 * begun since the last check, such as one per worker, are said in one line).
 */
export class FailureWarnings {
  private readonly seen = new Map<EntryRun, { failures: number; at: number; streaks: number }>();

  constructor(private readonly intervalMs: number) {}

  /**
   * The warnings to print for `run` now, if any. `final` (the run ended) ignores the interval, and leaves the
   * failures' warning out when a line below names the error (`saidBelow`: its STOPPED or error line).
   */
  check(run: EntryRun, now: number, final?: { readonly saidBelow: boolean }): string[] {
    const { totalSinkFailures, refusedRequests, refusalStreaks, lastRefusal, lastSinkError } = run.stats;
    const last = this.seen.get(run) ?? { failures: 0, at: -Infinity, streaks: 0 };
    const warnings: string[] = [];
    if (refusalStreaks > last.streaks)
      warnings.push(
        `[warn] ${run.entry.id}: ${lastRefusal} (the receiver refuses part of the data: counted in rejected, said again once it took a whole request)`,
      );
    const failures = totalSinkFailures - refusedRequests;
    const due = failures !== last.failures && (final !== undefined || now - last.at >= this.intervalMs);
    this.seen.set(run, due ? { failures, at: now, streaks: refusalStreaks } : { ...last, streaks: refusalStreaks });
    if (!due || final?.saidBelow) return warnings;
    const dropped = failures - last.failures;
    warnings.push(
      `[warn] ${run.entry.id}: ${lastSinkError} (${dropped} batch${dropped === 1 ? '' : 'es'} dropped, ${failures} in all)`,
    );
    return warnings;
  }
}
