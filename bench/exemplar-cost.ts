/**
 * The cost of exemplars measured in one process, the sides taking turns. Whole `svc run` processes of the same file
 * differ here by a third in events per CPU second, run after run and even when started together, which is more than
 * the cost measured (docs/performance.md, "Session 18").
 *
 * Each side (exemplars off, on every event, on one in ten) runs in several worker threads, each with its own heap and
 * its own compiled code, as a process of its own would. A worker runs the whole chain of its entry (timer,
 * observations, histogram rows, labels, exemplars, OpenMetrics encoder, delivery) on virtual time, one millisecond of
 * it at a time, into a sink that drops the bytes: the file sink's write to `/dev/null` is the one part left out. The
 * coordinator lets one worker run a slice at a time; a worker counts the CPU time of its own thread.
 *
 * Then the encoder's part alone ({@link encoderExemplarCost}), which moves far less from run to run.
 */
import { readFileSync } from 'node:fs';
import { isMainThread, parentPort, workerData, type Worker } from 'node:worker_threads';
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { compileScenario } from '../lib/compile/index.js';
import { loadScenario } from '../lib/config/load.js';
import { moduleWorker } from '../lib/runtime/module-worker.js';
import { runEntry } from '../lib/runtime/run-entry.js';
import { entryEncoder } from '../lib/runtime/chain/encoder.js';
import type { SignalHooks } from '../lib/runtime/chain/signal.js';
import { liveScheduler } from '../lib/runtime/live-scheduler.js';
import type { Entry } from '../lib/config/types.js';
import type { Labelled, SampleBatch } from '../operators/model/batch.js';
import { BENCH_LABELS, EXEMPLAR_SIDES, exemplarEntry, type ExemplarSide as Side } from './entry.js';

/** The file of `npm run bench`'s exemplar rows (bench/speed.ts) on `side`. */
function histogramFile(side: Side): string {
  return JSON.stringify({
    version: 2,
    kind: 'runnable',
    scenarios: [{ ...exemplarEntry(side), labels: BENCH_LABELS }],
  });
}

interface Slice {
  readonly events: number;
  /** CPU time of the worker's thread. */
  readonly cpuNanos: number;
}

/**
 * CPU time of the calling thread, in nanoseconds (Linux: the scheduler's run time of the thread). The process's CPU
 * time would also count the garbage collector's background work for the other sides, done while this one runs.
 */
function threadCpuNanos(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
}

/** The bench entry of `side`, compiled. */
export function sideEntry(side: Side): Entry {
  const [entry] = compileScenario(loadScenario(histogramFile(side), { origin: side, format: 'json' }), {
    origin: side,
  }).scenarios;
  return entry!;
}

/** Starts `entry` on virtual time from today, into a sink that drops the bytes: its run, and `step` to run a millisecond. */
export function runVirtual(entry: Entry, hooks?: SignalHooks) {
  const scheduler = new VirtualTimeScheduler(VirtualAction, 0);
  // Timestamps of today, as a live run writes them (their digits are part of every line).
  scheduler.frame = liveScheduler.now();
  const run = runEntry(entry, {
    scheduler,
    ...(hooks && { hooks }),
    createSink: () => ({
      write: () => {},
      flush: async () => {},
      close: async () => {},
    }),
  });
  const step = () => {
    scheduler.maxFrames = scheduler.frame + 1;
    scheduler.flush();
  };
  return { run, step };
}

/** In a worker: runs its side's entry a slice of `ms` wall milliseconds at a time, when told to. */
function runSide(side: Side): void {
  const { run, step } = runVirtual(sideEntry(side));
  parentPort!.on('message', (ms: number) => {
    const before = run.stats.totalEvents;
    const cpu = threadCpuNanos();
    const until = performance.now() + ms;
    while (performance.now() < until) step();
    const slice: Slice = { events: run.stats.totalEvents - before, cpuNanos: threadCpuNanos() - cpu };
    parentPort!.postMessage(slice);
  });
}

/** Asks `worker` to run a slice of `ms`; resolves with what it did. */
const slice = (worker: Worker, ms: number) =>
  new Promise<Slice>((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(ms);
  });

/**
 * Prints the cost of an exemplar on every event and on one in ten, in CPU time of the chain's thread per event:
 * 1 − (events per CPU second on) / (events per CPU second off), over all rounds (each round a slice of every worker,
 * one after the other, the order rotating). A worker's speed stays off by up to a tenth for its whole life (its heap
 * and compiled code came out that way), so each side runs in `isolates` workers and their slices are added up; how
 * far the figure can be trusted follows from how much the workers of a side differ ({@link costMargin}), not from
 * the rounds, which differ by a third from one slice to the next. Hence many workers and few rounds: the margin
 * shrinks with the square root of the number of workers. Eight a side and 30 rounds gave margins of ± 3.2 to 4.4
 * points, about the distance between the cost and the aim; 24 a side and 20 rounds (about six minutes) ± 0.8 to 2.3
 * (docs/performance.md, "Session 43" and "Session 44").
 */
export async function exemplarCostBench({
  rounds = 20,
  sliceMs = 150,
  warmUpMs = 1000,
  isolates = 24,
} = {}): Promise<void> {
  const sides = Object.keys(EXEMPLAR_SIDES) as Side[];
  const workers = sides.flatMap((side) =>
    Array.from({ length: isolates }, () => ({
      side,
      worker: moduleWorker(new URL(import.meta.url), { workerData: side }),
      taken: [] as Slice[],
    })),
  );
  try {
    for (const { worker } of workers) await slice(worker, warmUpMs);
    for (let round = 0; round < rounds; round++)
      for (let w = 0; w < workers.length; w++) {
        const turn = workers[(round + w) % workers.length]!;
        turn.taken.push(await slice(turn.worker, sliceMs));
      }
    // Each worker's slices added up: its events per CPU second, and those of each side's workers.
    const speeds = new Map<Side, number[]>(
      sides.map((side) => [side, workers.filter((w) => w.side === side).map((w) => perCpuSecond(sum(w.taken)))]),
    );
    const total = (side: Side) => perCpuSecond(sum(workers.filter((w) => w.side === side).flatMap((w) => w.taken)));
    console.log(
      `  exemplars in one process (${isolates} workers a side, in turn, ${rounds} rounds of ${sliceMs} ms slices): off ${Math.round(total('off')).toLocaleString('en-US')} events per CPU second of the chain's thread`,
    );
    for (const [side, label] of [
      ['every', 'every event'],
      ['tenth', 'one in ten'],
    ] as const) {
      const cost = 100 * (1 - total(side) / total('off'));
      const margin = costMargin(speeds.get(side)!, speeds.get('off')!);
      // The side's own speed beside its cost: runs are compared by it, not by a cost whose "off" moved.
      console.log(
        `  ${`  exemplars cost, ${label}`.padEnd(34)} ${cost.toFixed(1).padStart(10)} % (± ${margin.toFixed(1)}: two standard errors of the workers' speeds; ${Math.round(total(side)).toLocaleString('en-US')} events per CPU second)  goal: <= 10`,
      );
    }
  } finally {
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
  }
  encoderExemplarCost();
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * Two standard errors, in points, of the cost 1 − mean(on) / mean(off) given the speeds of each side's workers: the
 * spread of a side's workers over the square root of their number is how far its mean may be from that of other
 * workers, and the two sides' relative errors add in quadrature in the ratio.
 */
function costMargin(on: readonly number[], off: readonly number[]): number {
  const relativeError = (xs: readonly number[]) => {
    const m = mean(xs);
    const variance = xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
    return Math.sqrt(variance / xs.length) / m;
  };
  const ratio = mean(on) / mean(off);
  return 200 * ratio * Math.hypot(relativeError(on), relativeError(off));
}

const perCpuSecond = (x: Slice) => x.events / (x.cpuNanos / 1e9);

/**
 * Prints the encoder's part of the cost of an exemplar on every event: the first `batches` batches of each side,
 * as they reach the encoder, recorded once, then encoded again and again (OpenMetrics,
 * `rounds` times, the sides taking turns, the first `warmUpRounds` not counted). The sides' encoders are two of one
 * function, so both run the same compiled code: the difference is the work the exemplars add, not code compiled
 * otherwise. From run to run it moves by some tens of nanoseconds an event, where the whole chain's cost above moves
 * by a few points.
 */
export function encoderExemplarCost({ batches = 200, rounds = 400, warmUpRounds = 100 } = {}): void {
  const sides = (['off', 'every'] as const).map((side) => {
    const entry = sideEntry(side);
    const got: Labelled<SampleBatch>[] = [];
    const { step } = runVirtual(entry, { onSamples: (batch) => got.length < batches && got.push(batch) });
    while (got.length < batches) step();
    return {
      encoder: entryEncoder(entry),
      batches: got,
      events: got.reduce((total, batch) => total + (batch.events ?? batch.size), 0),
      nanos: 0,
    };
  });
  for (let round = 0; round < rounds; round++)
    for (const side of sides) {
      const start = process.hrtime.bigint();
      for (const batch of side.batches) side.encoder.encode(batch);
      if (round >= warmUpRounds) side.nanos += Number(process.hrtime.bigint() - start);
    }
  const [off, every] = sides.map((side) => side.nanos / ((rounds - warmUpRounds) * side.events));
  console.log(
    `  exemplars in the encoder alone (${batches} recorded batches a side, in turn, ${rounds - warmUpRounds} rounds): off ${off!.toFixed(0)} ns an event, an exemplar on every event +${(every! - off!).toFixed(0)} ns (${((100 * (every! - off!)) / off!).toFixed(1)} % of the encoder's time)`,
  );
}

/** Slices added up. */
const sum = (xs: readonly Slice[]): Slice => ({
  events: xs.reduce((total, x) => total + x.events, 0),
  cpuNanos: xs.reduce((total, x) => total + x.cpuNanos, 0),
});

if (!isMainThread) runSide(workerData as Side);
