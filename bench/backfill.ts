/**
 * Backfill throughput (issue 17): 24 h of 1,000 series into a file on virtual time, at one sample
 * per 15 s (5.76 M samples; goal: under 10 s) and at one sample per second (86.4 M samples; goal:
 * under 60 s).
 */
import { join } from 'node:path';
import { backfillEntries } from '../lib/runtime/backfill.js';
import type { Entry } from '../lib/config/types.js';

const DAY_MS = 24 * 3_600_000;
const SERIES = 1000;
/** Seconds between two samples of a series, and the goal for each, in seconds. */
const RUNS = [
  { intervalS: 15, goalS: 10 },
  { intervalS: 1, goalS: 60 },
];

export async function backfillBench(dir: string): Promise<void> {
  for (const { intervalS, goalS } of RUNS) await backfillRun(dir, intervalS, goalS);
}

async function backfillRun(dir: string, intervalS: number, goalS: number): Promise<void> {
  const entry: Entry = {
    id: 'backfill',
    signal_type: 'metrics',
    name: 'node_cpu_usage',
    // One sample of each series per interval: the series take turns (rotating label).
    rate: SERIES / intervalS,
    duration: DAY_MS,
    start_time: { kind: 'relative', offsetMs: -DAY_MS },
    generator: { type: 'sine', amplitude: 30, period_secs: 3600, offset: 50 },
    encoder: { type: 'metrics_text' },
    sink: { type: 'file', path: join(dir, 'backfill.prom') },
    labels: { job: 'bench' },
    dynamic_labels: [{ key: 'instance', form: 'counter', prefix: 'host-', cardinality: SERIES }],
    jitter_seed: 0,
    on_sink_error: 'fail',
    metric_type: 'gauge',
    cardinality_spikes: [],
  };
  const started = performance.now();
  const backfill = backfillEntries([entry]);
  const [outcome] = await backfill.done;
  if (outcome!.error) throw outcome!.error;
  const seconds = (performance.now() - started) / 1000;
  const samples = backfill.runs[0]!.stats.totalEvents;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(
    `backfill: 24 h of ${fmt(SERIES)} series at one sample per ${intervalS} s, metrics_text -> file (goal: under ${goalS} s)`,
  );
  console.log(
    `  ${fmt(samples)} samples in ${seconds.toFixed(2)} s: ${fmt(samples / seconds)} samples/s, ${fmt(DAY_MS / 1000 / seconds)}× real time`,
  );
}
