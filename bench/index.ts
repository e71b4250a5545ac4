/**
 * `npm run bench`: throughput of the metric pipeline against a hand-written loop producing the
 * same bytes, then rate accuracy at 10, 1,000 and 100,000 events/s, remote write (bench/remote-write.ts),
 * OTLP (bench/otlp.ts), the HTTP client (bench/http-clients.ts), Kafka (bench/kafka.ts), a backfill on virtual time (bench/backfill.ts), `svc test` of a 1-hour incident (bench/alert-test.ts) and the idle memory of svc-server (bench/server-idle.ts). Prints figures; asserts nothing (speed goals live
 * here, not in tests).
 */
import { closeSync, openSync, writeSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEntry } from '../lib/runtime/run-entry.js';
import type { Entry } from '../lib/config/types.js';
import { BENCH_LABELS as LABELS } from './entry.js';
import { httpClientBench } from './http-clients.js';
import { otlpBench } from './otlp.js';
import { kafkaBench } from './kafka.js';
import { remoteWriteBench } from './remote-write.js';
import { backfillBench } from './backfill.js';
import { alertTestBench } from './alert-test.js';
import { serverIdleBench } from './server-idle.js';

const THROUGHPUT_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;
const ACCURACY_MS = Number(process.env.BENCH_ACCURACY_SECONDS ?? 10) * 1000;
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));

function gauge(fields: Partial<Entry>): Entry {
  return {
    id: 'bench_gauge',
    signal_type: 'metrics',
    name: 'bench_gauge',
    rate: 1e9,
    start_time: { kind: 'now' },
    generator: { type: 'constant', value: 1 },
    encoder: { type: 'metrics_text' },
    sink: { type: 'file', path: join(dir, 'pipeline.prom') },
    labels: LABELS,
    dynamic_labels: [],
    jitter_seed: 0,
    on_sink_error: 'fail',
    metric_type: 'gauge',
    cardinality_spikes: [],
    ...fields,
  };
}

/** Events/s of one entry run at an unbounded rate into a file. */
async function pipeline(fields: Partial<Entry> = {}): Promise<number> {
  const started = performance.now();
  const run = runEntry(gauge({ duration: THROUGHPUT_MS, ...fields }));
  const outcome = await run.done;
  if (outcome.error) throw outcome.error;
  return run.stats.totalEvents / ((performance.now() - started) / 1000);
}

/** The same lines, built and written in 4096-line chunks by the plainest loop. */
function handWritten(): number {
  const fd = openSync(join(dir, 'loop.prom'), 'w');
  const prefix = `bench_gauge{host="${LABELS.host}",region="${LABELS.region}",service="${LABELS.service}"} 1 `;
  const started = performance.now();
  let events = 0;
  while (performance.now() - started < THROUGHPUT_MS) {
    const ts = String(Date.now());
    let chunk = '';
    for (let i = 0; i < 4096; i++) chunk += prefix + ts + '\n';
    writeSync(fd, chunk);
    events += 4096;
  }
  closeSync(fd);
  return events / ((performance.now() - started) / 1000);
}

async function accuracy(): Promise<{ rate: number; expected: number; achieved: number; error: number }[]> {
  const rates = [10, 1_000, 100_000];
  const runs = rates.map((rate) => runEntry(gauge({ id: `rate_${rate}`, rate, duration: ACCURACY_MS, sink: { type: 'file', path: join(dir, `rate-${rate}.prom`) } })));
  await Promise.all(runs.map((run) => run.done));
  return runs.map((run, i) => {
    const expected = (rates[i]! * ACCURACY_MS) / 1000;
    const achieved = run.stats.totalEvents;
    return { rate: rates[i]!, expected, achieved, error: (achieved - expected) / expected };
  });
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
try {
  console.log(`throughput: constant gauge, 3 labels, metrics_text -> file, ${THROUGHPUT_MS / 1000} s each`);
  const ours = await pipeline();
  const loop = handWritten();
  console.log(`  pipeline      ${fmt(ours)} events/s`);
  console.log(`  hand-written  ${fmt(loop)} events/s`);
  console.log(`  ratio         ${(ours / loop).toFixed(2)} (goal: >= 0.5, and >= 1,000,000 events/s)`);
  const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  const histogram = await pipeline({
    signal_type: 'histogram',
    generator: undefined,
    distribution: { type: 'exponential', rate: 10 },
    buckets,
    observations_per_tick: 10,
    metric_type: 'histogram',
  });
  // Each histogram event is one line per bucket, +Inf, _sum and _count.
  console.log(`histogram (11 buckets, 10 observations a tick): ${fmt(histogram)} events/s, ${fmt(histogram * (buckets.length + 3))} lines/s`);
  const logs = await pipeline({
    signal_type: 'logs',
    generator: undefined,
    encoder: { type: 'json_lines' },
    log_generator: {
      type: 'template',
      templates: [{ message: 'user {user} logged in from {ip}' }, { message: 'GET {path} took {ms}ms' }],
      field_pools: { user: ['ann', 'bob', 'chen'], ip: ['10.0.0.1', '10.0.0.2'], path: ['/', '/api'], ms: ['3', '12', '48'] },
      severity_weights: { info: 7, warn: 2, error: 1 },
      seed: 1,
    },
  });
  console.log(`logs (2 templates, json_lines): ${fmt(logs)} events/s`);
  console.log(`rate accuracy: ${ACCURACY_MS / 1000} s per rate, all three at once (goal: within 1 %)`);
  for (const r of await accuracy()) {
    console.log(`  ${String(r.rate).padStart(7)}/s  expected ${fmt(r.expected)}  achieved ${fmt(r.achieved)}  error ${(r.error * 100).toFixed(3)} %`);
  }
  await remoteWriteBench(THROUGHPUT_MS / 1000);
  await otlpBench(THROUGHPUT_MS / 1000);
  await httpClientBench(THROUGHPUT_MS / 1000);
  await kafkaBench(THROUGHPUT_MS / 1000);
  await backfillBench(dir);
  await alertTestBench();
  await serverIdleBench();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
