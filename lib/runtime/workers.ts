/**
 * `svc run --workers N`: a file run on N worker threads, worker i running the whole file as shard
 * i/N of its series (file-run.ts's `shard`, as svc-server --shard: every shard computes the same
 * schedule, values, gaps and `after` triggers, and emits only its series; docs/deploy.md).
 *
 * Output: the main thread truncates each file sink's path once before the workers start, and the
 * workers append to it, each chunk one write of whole lines. A worker's `stdout` sinks write to the
 * main thread chunk by chunk (a chunk is whole lines), so lines are never torn, and a chunk counts
 * as written once the main thread wrote it to its stdout ({@link stdoutWriter}). Other sinks
 * open one connection per worker. An encoding that makes a stream one document (openmetrics:
 * each family's metadata once, `# EOF` last) cannot be split so on a file or stdout: refused
 * ({@link workersRefusal}).
 *
 * Start: a worker builds its entries, says it is ready, and waits; once every worker is ready the main
 * thread starts them all at one instant, which their timestamps are written from (file-run.ts's `startAt`):
 * a worker that took longer to load neither starts late nor writes its series on a later timeline.
 *
 * The main thread sees each entry as one {@link EntryRun}: its statistics are the sums of the
 * workers' (reported every {@link REPORT_MS}, and at once when it ends on a worker), its outcome the
 * first error of any worker's; it ends once it ended on every worker.
 */
import { closeSync, openSync } from 'node:fs';
import type { SchedulerLike } from 'rxjs';
import type { WrittenCounts } from '../../operators/deliver.js';
import type { Entry } from '../config/types.js';
import { internsLabelSets, labelSetCount, type Shard } from '../../operators/labels.js';
import { encoderKindOf } from '../encoders/index.js';
import type { FileRun } from './file-run.js';
import { liveScheduler } from './live-scheduler.js';
import { moduleWorker } from './module-worker.js';
import { labelOptions } from './chain/labels.js';
import type { EntryOutcome, EntryRun } from './run-entry.js';
import { EntryStats } from './stats.js';

/** How often a worker reports its entries' counters. */
export const REPORT_MS = 200;

/** What a worker is given: the compiled entries of the file and its shard. */
export interface WorkerData {
  readonly entries: readonly Entry[];
  readonly shard: Shard;
}

/** One entry's counters in one worker, totals since its start. */
export interface WorkerCounters {
  readonly events: number;
  readonly bytes: number;
  /** Failures, partial refusals included, and the events they gave up. */
  readonly failures: number;
  readonly dropped: number;
  readonly delivered: number;
  readonly lastSinkError?: string;
  /** Events a receiver refused in requests it took, such requests, streaks of them begun, the last streak's error. */
  readonly rejected: number;
  readonly refusals: number;
  readonly streaks: number;
  readonly lastRefusal?: string;
  readonly lastWriteAt?: number;
  readonly retries: number;
  readonly started: boolean;
  /** When its `after` condition was met (FileRun.triggeredAt: the worker's scheduler time, the wall clock). */
  readonly triggeredAt?: number;
  /** What the sink warned of, in order. */
  readonly warnings: readonly string[];
  /** Sums of what the receiver said it wrote; undefined until it said so. */
  readonly receiverWritten?: WrittenCounts;
  /** Events due before the duration that this worker never made (the rate was not kept). */
  readonly missed: number;
  /** How the entry ended on this worker, once it did (reported at once then). */
  readonly ended?: WorkerOutcome;
}

/** An entry's outcome on one worker, as a message carries it. */
export interface WorkerOutcome {
  readonly error?: string;
  readonly inSink?: boolean;
}

/**
 * Messages of a worker: that it is ready to start, and its counters per entry (in file order), the last ones as
 * `done`, when every entry's `ended` tells its outcome.
 */
export type WorkerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'stats' | 'done'; readonly entries: readonly WorkerCounters[] }
  | { readonly type: 'stdout'; readonly chunks: readonly (string | Uint8Array)[] };

/** The message that stops a worker (stop means flush). */
export const STOP = 'stop';

/**
 * The main thread's answer to a worker's `stdout` chunks: written to its stdout, or the error
 * that writing met (its `code`: EPIPE when the reader went away).
 */
export type StdoutAnswer = { readonly written: true } | { readonly failed: string; readonly code?: string };

/** Messages to a worker: start the file at this instant (the main thread's clock), stop, or its stdout chunks' fate. */
export type ToWorker = typeof STOP | { readonly start: number } | StdoutAnswer;

export interface WorkersOptions {
  readonly scheduler?: SchedulerLike;
  /** Where the workers' `stdout` sinks write. */
  readonly stdout?: NodeJS.WritableStream;
}

const NO_COUNTERS: WorkerCounters = {
  events: 0,
  bytes: 0,
  failures: 0,
  dropped: 0,
  delivered: 0,
  rejected: 0,
  refusals: 0,
  streaks: 0,
  retries: 0,
  started: false,
  warnings: [],
  missed: 0,
};

/** The worker's module: the .js beside this one in dist, the .ts when run from source (tsx, in development and specs). */
const WORKER_URL = new URL(`./worker-entry${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/**
 * Why the entries cannot run on several workers, if they cannot: an entry writes a one-document encoding (a
 * trailer's) into a file or stdout.
 */
export function workersRefusal(entries: readonly Entry[]): string | undefined {
  const whole = entries.find(
    (entry) =>
      (entry.sink.type === 'file' || entry.sink.type === 'stdout') &&
      encoderKindOf(entry.encoder.type)?.trailer !== undefined,
  );
  return (
    whole &&
    `${whole.id} writes ${whole.encoder.type} to ${whole.sink.type}, one exposition (each family's metadata once, its end last) that workers cannot split`
  );
}

/**
 * The most worker threads a run starts (`--workers`, or the default): a bound on threads, their memory and
 * their connections.
 */
export const MAX_WORKERS = 64;

/**
 * Planned events a second (summed over the file's entries, each at its rate times its burst
 * multiplier when that speeds it up) from which a run without `--workers` is beyond one core and
 * gets one worker per core. One core writes about 4 M events a second of a labelled gauge
 * (docs/performance.md), so this leaves room for costlier entries while a modest rate, for which
 * starting threads costs more than it brings, stays on the main thread.
 */
export const ONE_CORE_EVENTS = 1_000_000;

export interface DefaultWorkersOptions {
  /** The cores the process may use: `os.availableParallelism()`. */
  readonly cores: number;
  /** `--backfill`: virtual time, which runs on the main thread only. */
  readonly backfill?: boolean;
}

/**
 * How many workers a run without `--workers` gets: one per core (at most {@link MAX_WORKERS},
 * and no more than the file has series to share) when its planned events a second reach
 * {@link ONE_CORE_EVENTS} and it can be split; else 1, the main thread alone. An entry with more
 * possible label sets than the labels operator interns keeps the run on one thread: every
 * worker would make and hash every tick's label set to find its own, which costs more than
 * writing the line (cardinality 1,000,000: 2 workers wrote half as much as 1).
 */
export function defaultWorkers(entries: readonly Entry[], { cores, backfill = false }: DefaultWorkersOptions): number {
  if (backfill || workersRefusal(entries) !== undefined) return 1;
  const demand = entries.reduce((sum, entry) => sum + entry.rate * Math.max(1, entry.bursts?.multiplier ?? 1), 0);
  if (demand < ONE_CORE_EVENTS) return 1;
  // Past interning each shard would hash the label set of every tick, its own or not: slower than one thread.
  if (!entries.every((entry) => internsLabelSets(labelOptions(entry)))) return 1;
  return Math.max(1, Math.min(cores, MAX_WORKERS, fileSeries(entries)));
}

/**
 * The series of a file to share among workers: each entry's possible label sets, summed (a traces entry is one).
 * A worker past them would have none, and cost a thread, its memory and its start for nothing.
 */
export function fileSeries(entries: readonly Entry[]): number {
  return entries.reduce((sum, entry) => sum + labelSetCount(labelOptions(entry)), 0);
}

/** Starts `count` workers on the entries of a compiled file; the run ends when every worker ended. */
export function startWorkers(
  entries: readonly Entry[],
  count: number,
  { scheduler = liveScheduler, stdout = process.stdout }: WorkersOptions = {},
): FileRun {
  truncateFiles(entries);
  const stats = entries.map(() => new EntryStats(scheduler.now()));
  const startedAt = new Map<string, number>();
  const triggeredAt = new Map<string, number>();
  const output = stdoutWriter(stdout);
  // Each entry ends once it ended on every worker, with the first error of theirs: an entry that ends before the
  // others shows its STOPPED line, and its elapsed time, at its own end rather than the run's.
  const endings = entries.map(() => {
    let workersLeft = count;
    let outcome: EntryOutcome = {};
    let settle!: (outcome: EntryOutcome) => void;
    const done = new Promise<EntryOutcome>((resolve) => (settle = resolve));
    const end = (ended: WorkerOutcome) => {
      if (!outcome.error) outcome = outcomeOf(ended);
      if (--workersLeft === 0) settle(outcome);
    };
    return { done, end };
  });
  const workers = Array.from({ length: count }, (_, index) =>
    runWorker(entries, { index, count }, output, (counters, last) => {
      const now = scheduler.now();
      counters.forEach((next, i) => {
        addCounters(stats[i]!, last[i]!, next, now);
        if (next.started && !startedAt.has(entries[i]!.id)) startedAt.set(entries[i]!.id, now);
        if (next.triggeredAt !== undefined) triggeredAt.set(entries[i]!.id, next.triggeredAt);
        if (next.ended && !last[i]!.ended) endings[i]!.end(next.ended);
      });
    }),
  );
  let stopping = false;
  const stopAll = (): void => {
    stopping = true;
    for (const worker of workers) worker.stop();
  };
  // The file starts once every worker is ready (one that failed first never is, and stops the others).
  void Promise.all(workers.map((worker) => worker.ready)).then(() => {
    if (stopping) return;
    const at = scheduler.now();
    for (const entryStats of stats) entryStats.startedAt = at;
    for (const worker of workers) worker.start(at);
  });
  // A worker that failed stops the others: the run ends with its error.
  workers.forEach(
    (worker) => void worker.ended.then((outcomes) => outcomes.some((outcome) => outcome.crashed) && stopAll()),
  );
  const ended = Promise.all(workers.map((worker) => worker.ended)).then((byWorker) =>
    entries.map(
      (_, i): EntryOutcome => byWorker.map((outcomes) => outcomes[i]!).find((outcome) => outcome.error) ?? {},
    ),
  );
  const runs = entries.map((entry, i): EntryRun => {
    // A worker that failed never reports the entries it ran as ended: the run's end ends them.
    const done = Promise.race([endings[i]!.done, ended.then((outcomes) => outcomes[i]!)]);
    return { entry, stats: stats[i]!, done, stop: () => (stopAll(), done) };
  });
  return {
    runs,
    done: ended,
    startedAt: (id) => startedAt.get(id),
    triggeredAt: (id) => triggeredAt.get(id),
    stop: () => (stopAll(), ended),
  };
}

interface RunningWorker {
  /** Resolves once the worker built its entries and waits to start them. */
  readonly ready: Promise<void>;
  readonly ended: Promise<(EntryOutcome & { crashed?: boolean })[]>;
  start(at: number): void;
  stop(): void;
}

/** Writes a worker's `stdout` chunks, then answers with their fate. */
type StdoutWrite = (chunks: readonly (string | Uint8Array)[], answer: (answer: StdoutAnswer) => void) => void;

/**
 * The workers' `stdout` chunks (each whole lines) written to `stdout`, each message answered once
 * its last chunk was written or writing failed: the worker counts them as written or, once the
 * reader went away (EPIPE), as dropped, as a `stdout` sink on the main thread does. A worker waits
 * for the answer before it sends more, so `stdout`'s fill is its backpressure. After the first
 * error every chunk is answered with it at once.
 */
function stdoutWriter(stdout: NodeJS.WritableStream): StdoutWrite {
  let broken: StdoutAnswer | undefined;
  return (chunks, answer) => {
    if (broken) return answer(broken);
    let left = chunks.length;
    const done = (error?: Error | null): void => {
      if (error) broken ??= { failed: error.message, code: (error as NodeJS.ErrnoException).code };
      if (--left === 0) answer(broken ?? { written: true });
    };
    for (const chunk of chunks) stdout.write(chunk, done);
  };
}

/** One worker: its counters go to `report` (with the previous ones), its stdout chunks to `output`; ends once it exited. */
function runWorker(
  entries: readonly Entry[],
  shard: Shard,
  output: StdoutWrite,
  report: (counters: readonly WorkerCounters[], last: readonly WorkerCounters[]) => void,
): RunningWorker {
  const worker = moduleWorker(WORKER_URL, { workerData: { entries, shard } satisfies WorkerData });
  let last: readonly WorkerCounters[] = entries.map(() => NO_COUNTERS);
  let outcomes: EntryOutcome[] | undefined;
  let crash: Error | undefined;
  let isReady!: () => void;
  const ready = new Promise<void>((resolve) => (isReady = resolve));
  const post = (message: ToWorker): void => worker.postMessage(message);
  worker.on('message', (message: WorkerMessage) => {
    if (message.type === 'ready') return isReady();
    if (message.type === 'stdout') return output(message.chunks, post);
    report(message.entries, last);
    last = message.entries;
    if (message.type === 'done') outcomes = message.entries.map(({ ended }) => outcomeOf(ended ?? {}));
  });
  worker.on('error', (error: Error) => (crash ??= error));
  // Not events.once: it rejects on the 'error' that precedes the exit of a failed worker.
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const ended = exited.then((code) => {
    if (outcomes) return outcomes;
    const error = new Error(
      `worker ${shard.index + 1} of ${shard.count} failed: ${crash?.message ?? `it exited with code ${code}`}`,
    );
    return entries.map(() => ({ error, crashed: true }));
  });
  let stopped = false;
  return {
    ready,
    ended,
    start: (at) => post({ start: at }),
    stop() {
      if (stopped) return;
      stopped = true;
      post(STOP);
    },
  };
}

/** An entry's outcome from a worker's message. */
function outcomeOf({ error, inSink }: WorkerOutcome): EntryOutcome {
  return error === undefined ? {} : { error: new Error(error), inSink };
}

/**
 * Adds what one worker did for an entry since its `last` report to the entry's statistics, as the deliveries
 * they count.
 */
function addCounters(stats: EntryStats, last: WorkerCounters, next: WorkerCounters, now: number): void {
  const events = next.events - last.events;
  const bytes = next.bytes - last.bytes;
  if (events > 0 || bytes > 0) stats.record({ kind: 'written', size: events, bytes }, now);
  const written = writtenSince(last.receiverWritten, next.receiverWritten);
  const delivered = next.delivered - last.delivered;
  if (next.lastWriteAt !== last.lastWriteAt || delivered > 0 || written)
    stats.record({ kind: 'delivered', size: delivered, bytes: 0, ...(written && { written }) }, now);
  // Each worker's sink warns once of the same thing: the entry shows it once.
  for (const message of next.warnings.slice(last.warnings.length))
    if (!stats.sinkWarnings.includes(message)) stats.record({ kind: 'warning', message }, now);
  const error = new Error(next.lastSinkError);
  const refusals = next.refusals - last.refusals;
  // The events given up other than by refusals go with the first failure.
  let dropped = next.dropped - last.dropped - (next.rejected - last.rejected);
  for (let n = last.failures + refusals; n < next.failures; n++) {
    stats.record({ kind: 'failed', size: dropped, bytes: 0, error }, now);
    dropped = 0;
  }
  // Given up with no failure: the reader of stdout gone.
  if (dropped > 0) stats.record({ kind: 'dropped', size: dropped, bytes: 0 }, now);
  // The partial refusals as the sink reported them: the streaks begun first, all the events on the first.
  const refused = new Error(next.lastRefusal);
  const begun = next.streaks - last.streaks;
  for (let n = 0; n < refusals; n++) {
    const size = n === 0 ? next.rejected - last.rejected : 0;
    stats.record({ kind: 'failed', size, bytes: 0, error: refused, refusal: n < begun ? 1 : 2 }, now);
  }
  for (let n = last.retries; n < next.retries; n++)
    stats.record({ kind: 'retrying', attempt: 0, delay: 0, error }, now);
  stats.missedEvents += next.missed - last.missed;
}

/** What the receiver said it wrote between two reports; undefined when nothing. */
function writtenSince(last: WrittenCounts | undefined, next: WrittenCounts | undefined): WrittenCounts | undefined {
  if (!next) return undefined;
  const samples = next.samples - (last?.samples ?? 0);
  const histograms = next.histograms - (last?.histograms ?? 0);
  const exemplars = next.exemplars - (last?.exemplars ?? 0);
  return samples || histograms || exemplars ? { samples, histograms, exemplars } : undefined;
}

/**
 * Each file sink's path truncated once (the workers append); a path that cannot be opened is left to the
 * workers' sinks to report.
 */
function truncateFiles(entries: readonly Entry[]): void {
  for (const path of new Set(entries.flatMap((entry) => (entry.sink.type === 'file' ? [entry.sink.path] : [])))) {
    try {
      closeSync(openSync(path, 'w'));
    } catch {
      // The workers' sinks fail on it with the file sink's words.
    }
  }
}
