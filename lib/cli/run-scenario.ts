import {
  asyncScheduler,
  filter,
  fromEvent,
  interval,
  map,
  merge,
  take,
  type Observable,
  type Subscription,
} from 'rxjs';
import { constants } from 'node:os';
import type { Entry, ScenarioFile } from '../config/types.js';
import type { EntryOutcome, EntryRun } from '../runtime/run-entry.js';
import { startEntries } from '../runtime/file-run.js';
import { AHEAD_MS, backfillEntries, type Backfill } from '../runtime/backfill.js';
import { stopSignals } from '../runtime/stop-signals.js';
import { endBySignal } from '../runtime/first-stop-signal.js';
import { DEFAULT_FLUSH_TIMEOUT } from '../sinks/core/sink-core.js';
import { startWorkers } from '../runtime/workers.js';
import type { SvcContext } from './context.js';
import {
  FailureWarnings,
  SinkWarnings,
  backfillLine,
  backfilledLine,
  progressLine,
  sinkErrorSaidBelow,
  stoppedLine,
  waitingLine,
  flushingLine,
} from './progress.js';
import { printedLines, redrawnRows, warningsOnly, type ProgressDisplay } from './progress-display.js';
import { isTerminal, mayReachTerminal } from './terminal.js';
import { afterNeverHeld, formatCondition, formatDuration, undelivered, type WatchedEnd } from '../format.js';

export interface RunOptions {
  /** `--quiet`: no progress, no STOPPED or `[info]` lines; warnings and errors only. */
  readonly quiet?: boolean;
  /**
   * `--backfill`: every entry on virtual time, its whole duration as fast as its sink takes it
   * (lib/runtime/backfill.ts).
   */
  readonly backfill?: boolean;
  /**
   * `--workers`: worker threads, each running the file as its shard of the series (lib/runtime/workers.ts);
   * default 1, none.
   */
  readonly workers?: number;
}

/** Sink-failure warnings: at most one per entry per interval. */
const WARNING_INTERVAL_MS = 5000;

/**
 * Runs every entry of a compiled file (lib/compile: packs expanded, clock groups assigned) until
 * each ends, a stop signal arrives, or the reader of stdout goes away, with progress and STOPPED
 * lines on stderr. An entry that never started (its `after` condition never held, or the run
 * stopped during its phase offset) gets an `[info]` line before the STOPPED lines. Resolves to the
 * exit code: 1 when an entry ended with an error or its sink never delivered anything because of
 * sink errors (each gets an `error:` line, last); a backfill cut short by a signal, the signal's code, and
 * one whose sinks dropped events, 1 (each gets an `error:` line too); else 0. A backfill's rows show the virtual time
 * covered and the speed-up; its STOPPED lines count elapsed time in virtual time. A signal of the process during the
 * stop's flush quits at once: an `error:` line per entry still flushing, with the events its sink still held, then
 * the signal ends the process as its default action does.
 */
export async function runScenario(
  file: ScenarioFile,
  context: SvcContext,
  { quiet = false, backfill: virtual = false, workers = 1 }: RunOptions = {},
): Promise<number> {
  const scheduler = context.scheduler ?? asyncScheduler;
  const backfill = virtual ? backfillEntries(file.scenarios, { scheduler, stdout: context.stdout }) : undefined;
  const fileRun =
    backfill ??
    (workers > 1
      ? startWorkers(file.scenarios, workers, { scheduler: context.scheduler, stdout: context.stdout })
      : startEntries(file.scenarios, { scheduler: context.scheduler, stdout: context.stdout }));
  // The entries' own time: virtual in a backfill.
  const clock = backfill?.clock ?? scheduler;
  const runs = fileRun.runs;
  const stderr = context.stderr;
  const warnings = new FailureWarnings(WARNING_INTERVAL_MS);
  const sinkWarnings = new SinkWarnings();
  // An entry that ended shows its final figures: elapsed time stops at its end.
  const ended = new Map<EntryRun, { at: number; outcome: EntryOutcome }>();
  runs.forEach(
    (run) =>
      void run.done.then((outcome) => ended.set(run, { at: backfill?.endedAt(run.entry.id) ?? clock.now(), outcome })),
  );
  // What stopped the run before its end: a signal's name, or EPIPE.
  let stoppedBy: string | undefined;
  const row = (run: EntryRun, now: number): string => {
    const end = ended.get(run);
    if (end) return stoppedLine(run, end.outcome, end.at);
    if (backfill) return backfillRow(backfill, run, now);
    const { id, duration = Infinity } = run.entry;
    const started = fileRun.startedAt(id);
    if (started === undefined) return waitingLine(run, now, fileRun.triggeredAt(id));
    // It makes no more events: what is left is its sink's flush.
    return stoppedBy !== undefined || now >= started + duration ? flushingLine(run, now) : progressLine(run, now);
  };

  const display = progressDisplay(context, file, quiet);
  // Lines to show once, above the rows, at the next report.
  const notices: string[] = [];
  const report = (): void => {
    const now = scheduler.now();
    display.show(
      [...notices.splice(0), ...runs.flatMap((run) => [...sinkWarnings.take(run), ...warnings.check(run, now)])],
      runs.map((run) => row(run, now)),
    );
  };
  const ticker = interval(display.periodMs, scheduler).subscribe(report);
  const write = (line: string): void => void stderr.write(`${line}\n`);
  let quitting: Subscription | undefined;
  const stopping = merge(context.signals ?? stopSignals(), readerGone(context.stdout))
    .pipe(take(1))
    .subscribe((cause) => {
      stoppedBy = cause;
      // A flush into a receiver that does not answer takes up to its timeout, rows reading `rate: 0/s` meanwhile.
      if (cause !== 'EPIPE' && !quiet) {
        notices.push(stoppingLine(cause));
        report();
      }
      // From here a signal of the process's own (not a stop a spec or `svc test` gives) quits without the flush.
      quitting = stopSignals()
        .pipe(take(1))
        .subscribe((signal) => {
          ticker.unsubscribe();
          display.stop();
          for (const run of runs) if (!ended.has(run)) write(`error: ${run.entry.id}: ${unflushed(run, signal)}`);
          endBySignal(signal);
        });
      void fileRun.stop();
    });
  const outcomes = await fileRun.done;
  ticker.unsubscribe();
  stopping.unsubscribe();
  quitting?.unsubscribe();
  display.stop();

  const now = clock.now();
  // The STOPPED line names the entry's sink error; without it (--quiet) the error line may.
  const failures = runs.map((run, i) => failureOf(run, outcomes[i]!, !quiet));
  runs.forEach((run, i) => {
    sinkWarnings.take(run).forEach(write);
    warnings.check(run, now, { saidBelow: sinkErrorSaidBelow(run, outcomes[i]!, !quiet) }).forEach(write);
  });
  if (!quiet) {
    const outcomeOf = new Map(runs.map((run, i) => [run.entry.id, outcomes[i]!]));
    const watchedEnd = (ref: string): WatchedEnd =>
      outcomeOf.get(ref)?.error ? 'failed' : stoppedBy ? 'run stopped' : 'ended';
    for (const run of runs)
      if (fileRun.startedAt(run.entry.id) === undefined)
        write(neverStartedLine(run.entry, watchedEnd, fileRun.triggeredAt(run.entry.id) !== undefined));
    for (const [i, run] of runs.entries()) write(stoppedLine(run, outcomes[i]!, ended.get(run)?.at ?? now));
    if (backfill) write(backfilledLine(now - backfill.start, scheduler.now() - backfill.start));
  }
  for (const [i, run] of runs.entries()) if (failures[i]) write(`error: ${run.entry.id}: ${failures[i]}`);
  if (failures.some(Boolean)) return 1;
  // A signal that cuts a backfill short leaves its sinks with part of the span: a shell's `&&` must
  // not go on to load it as if whole. (A reader of stdout gone is a Unix end, exit 0.)
  const cut = backfill && stoppedBy && stoppedBy !== 'EPIPE' ? cutShort(backfill, runs) : [];
  for (const line of cut) write(`error: ${line} (the backfill was stopped by ${stoppedBy})`);
  // So does a sink that dropped part of it, whatever `on_sink_error` says (what a reader of stdout gone never took
  // aside: its drops count, but nobody is left to load the span).
  const holes = backfill && stoppedBy !== 'EPIPE' ? runs.flatMap(droppedLine) : [];
  for (const line of holes) write(`error: ${line}`);
  return cut.length > 0 ? signalExitCode(stoppedBy!) : holes.length > 0 ? 1 : 0;
}

/** What a stopped backfill left out: a line per entry stopped before the end of its duration, or never started. */
function cutShort(backfill: Backfill, runs: readonly EntryRun[]): string[] {
  return runs.flatMap(({ entry }) => {
    const started = backfill.startedAt(entry.id);
    if (started === undefined) return [`${entry.id}: never started; nothing of it was backfilled`];
    const covered = backfill.endedAt(entry.id) - started;
    // The clock's figure: the timer writes slots up to AHEAD_MS ahead of it, so the sink may hold a little more.
    const ahead = Math.min(AHEAD_MS, entry.duration! - covered);
    return covered < entry.duration!
      ? [
          `${entry.id}: backfilled ${formatDuration(covered)} of ${formatDuration(entry.duration!)} (its sink may hold up to ${formatDuration(ahead)} more, written ahead of the clock); the rest is missing`,
        ]
      : [];
  });
}

/** What a signal during the stop's flush left of an entry's flush: the events its sink still held are lost. */
function unflushed({ stats }: EntryRun, signal: NodeJS.Signals): string {
  const held = stats.heldEvents();
  const lost = held > 0 ? `: ${undelivered(held, stats.totalEvents, 'still in its sink')}` : '';
  return `${signal} during the stop's flush quit at once${lost}`;
}

/** The shell's code for a process ended by `signal`: 128 + its number (130 for SIGINT, 143 for SIGTERM). */
export function signalExitCode(signal: string): number {
  return 128 + (constants.signals[signal as NodeJS.Signals] ?? 0);
}

/**
 * A backfill's row of an entry still running: the virtual time its events reached, and the speed-up (`real` is the
 * real time now).
 */
function backfillRow(backfill: Backfill, run: EntryRun, real: number): string {
  const started = backfill.startedAt(run.entry.id);
  // The timer writes up to AHEAD_MS past the clock: the events written reach the later of the two (a backfill
  // within that minute writes everything at the clock's first instant).
  const now = backfill.clock.now();
  const through = started === undefined ? now : Math.max(now, started + run.stats.slotsThrough);
  const covered = started === undefined ? 0 : Math.min(through - started, run.entry.duration!);
  return backfillLine(run, covered, (through - backfill.start) / (real - backfill.start));
}

/**
 * Why an entry fails the run, if it does: the error that stopped it (under `fail`), or sink errors
 * that let nothing through, whatever `on_sink_error` says (the spec: an unreachable sink is a
 * runtime error). An entry that delivered and later lost batches under `warn` does not (but see
 * {@link droppedLine} for a backfill). When its STOPPED line is printed (`stoppedLineShown`), that
 * line names the error, and this one points to it rather than saying it again.
 */
function failureOf(run: EntryRun, outcome: EntryOutcome, stoppedLineShown: boolean): string | undefined {
  if (outcome.error)
    return stoppedLineShown
      ? `${outcome.inSink ? 'its sink failed' : 'it failed'} (the error is on its STOPPED line above)`
      : outcome.error.message;
  if (run.stats.neverDelivered())
    return `nothing was delivered (${stoppedLineShown ? 'the sink error is on its STOPPED line above' : run.stats.lastSinkError})`;
  return undefined;
}

/** What a backfilled entry's sink dropped, if it dropped any: a span with holes, not one to load as whole. */
function droppedLine({ entry, stats }: EntryRun): string[] {
  return stats.droppedEvents > 0
    ? [
        `${entry.id}: its sink dropped ${stats.droppedEvents} of ${stats.totalEvents} events${stats.lastSinkError ? ` (${stats.lastSinkError})` : ''}; the backfilled span is missing them`,
      ]
    : [];
}

/**
 * Rows redrawn in place on a terminal that nothing else prints on meanwhile, tall enough for them
 * and able to move its cursor (not `TERM=dumb`, which prints escape sequences as text); printed lines
 * otherwise: a redraw moves the cursor up over whatever is above the rows, such as event lines of a
 * `stdout` sink that reach the same terminal.
 */
function progressDisplay({ stdout, stderr, env }: SvcContext, file: ScenarioFile, quiet: boolean): ProgressDisplay {
  if (quiet) return warningsOnly(stderr);
  const count = file.scenarios.length;
  const fits = count < ((stderr as { rows?: number }).rows ?? Infinity);
  const eventsOnScreen =
    file.scenarios.some((entry) => entry.sink.type === 'stdout') && mayReachTerminal(stdout, stderr);
  return isTerminal(stderr) && env.TERM !== 'dumb' && fits && !eventsOnScreen
    ? redrawnRows(
        stderr,
        file.scenarios.map((entry) => entry.id),
      )
    : printedLines(stderr);
}

/**
 * What a stop signal does, said as it arrives: the run flushes before it ends (a receiver that does not answer is
 * waited for up to the sinks' flush timeout), and a second signal ends it at once (docs/cli.md).
 */
function stoppingLine(signal: string): string {
  const again = signal === 'SIGINT' ? 'a second Ctrl-C' : `another ${signal}`;
  return `[info] ${signal}: stopping: flushing what the sinks still hold (a receiver that does not answer is given up after ${formatDuration(DEFAULT_FLUSH_TIMEOUT)}); ${again} quits at once, losing it`;
}

/**
 * `[info] <id>: never started (…)`: why an entry wrote nothing; `watchedEnd` tells how an `after` entry's wait ended,
 * and `triggered` that its condition was met (the stop came during its delay).
 */
function neverStartedLine(entry: Entry, watchedEnd: (ref: string) => WatchedEnd, triggered: boolean): string {
  const why = entry.after
    ? triggered
      ? `${formatCondition(entry.after)} happened, but the run was stopped during its delay of ${formatDuration(entry.after.delay ?? 0)}`
      : afterNeverHeld(entry.after, watchedEnd(entry.after.ref))
    : entry.phase_offset
      ? 'the run stopped during its phase offset'
      : 'the run stopped before it started';
  return `[info] ${entry.id}: never started (${why})`;
}

/**
 * Emits when writing to `stdout` fails with EPIPE: its reader went away (`svc … | head`), and the run ends as
 * Unix tools do.
 */
function readerGone(stdout: NodeJS.WritableStream): Observable<string> {
  return fromEvent(stdout, 'error').pipe(
    filter((error) => (error as NodeJS.ErrnoException).code === 'EPIPE'),
    map(() => 'EPIPE'),
  );
}
