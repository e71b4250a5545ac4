import { asyncScheduler, fromEvent, interval, map, merge, take, type Observable, type Subscription } from 'rxjs';
import type { Entry, ScenarioFile } from '../config/types.js';
import type { EntryOutcome, EntryRun } from '../runtime/run-entry.js';
import { startScenario } from '../runtime/scenario.js';
import type { SvcContext } from './context.js';
import { FailureWarnings, progressLine, stoppedLine } from './progress.js';

/** Non-TTY progress period (design.md §3); a TTY line is redrawn every second. */
const PROGRESS_MS = 5000;
const TTY_PROGRESS_MS = 1000;

/**
 * Runs every entry of a compiled file (lib/compile: packs expanded, clock groups assigned) until
 * each ends or a stop signal arrives, with progress and STOPPED lines on stderr. An entry that
 * never started (its `after` condition never held, or the run stopped during its phase offset)
 * gets an `[info]` line before the STOPPED lines. Resolves to the exit code: 1 when an entry ended
 * with an error.
 */
export async function runScenario(file: ScenarioFile, context: SvcContext): Promise<number> {
  const scheduler = context.scheduler ?? asyncScheduler;
  const scenario = startScenario(file.scenarios, { scheduler: context.scheduler, stdout: context.stdout });
  const runs = scenario.runs;
  const stderr = context.stderr;
  const tty = (stderr as { isTTY?: boolean }).isTTY === true;
  const warnings = new FailureWarnings(PROGRESS_MS);
  let drawn = 0;

  const report = (): void => {
    const now = scheduler.now();
    const warned = runs.map((run) => warnings.check(run, now)).filter(Boolean);
    if (tty) {
      // Redraw the block of progress lines in place: move up over the previous one first.
      if (drawn) stderr.write(`\x1b[${drawn}A`);
      for (const line of warned) stderr.write(`\r\x1b[2K${line}\n`);
      for (const run of runs) stderr.write(`\r\x1b[2K${progressLine(run, now)}\n`);
      drawn = runs.length;
    } else {
      for (const line of [...warned, ...runs.map((run) => progressLine(run, now))]) stderr.write(`${line}\n`);
    }
  };

  const ticker: Subscription = interval(tty ? TTY_PROGRESS_MS : PROGRESS_MS, scheduler).subscribe(report);
  const stopping: Subscription = (context.signals ?? processSignals()).pipe(take(1)).subscribe(() => runs.forEach((run) => void run.stop()));
  const outcomes = await Promise.all(runs.map((run) => run.done));
  ticker.unsubscribe();
  stopping.unsubscribe();

  const now = scheduler.now();
  if (tty && drawn) stderr.write(`\x1b[${drawn}A`);
  for (const run of runs) {
    const warning = warnings.check(run, now, true);
    if (warning) stderr.write(`${tty ? '\r\x1b[2K' : ''}${warning}\n`);
  }
  for (const run of runs) {
    if (scenario.startedAt(run.entry.id) === undefined) stderr.write(`${tty ? '\r\x1b[2K' : ''}${neverStartedLine(run.entry)}\n`);
  }
  runs.forEach((run: EntryRun, i) => stderr.write(`${tty ? '\r\x1b[2K' : ''}${stoppedLine(run, outcomes[i]!, now)}\n`));
  return outcomes.some((outcome: EntryOutcome) => outcome.error) ? 1 : 0;
}

/** `[info] <id>: never started (…)`: why an entry wrote nothing. */
export function neverStartedLine(entry: Entry): string {
  const why = entry.after
    ? `${entry.after.ref} ${entry.after.op} ${entry.after.value} did not happen before the run ended`
    : 'the run stopped during its phase offset';
  return `[info] ${entry.id}: never started (${why})`;
}

/** SIGINT and SIGTERM of this process, as a stream of signal names. */
export function processSignals(): Observable<string> {
  const signal = (name: NodeJS.Signals) => fromEvent(process, name).pipe(map(() => name));
  return merge(signal('SIGINT'), signal('SIGTERM'));
}
