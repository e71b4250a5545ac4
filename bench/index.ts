/**
 * `npm run bench`: the speed and memory table of issue 15 on whole `svc run` processes
 * (bench/speed.ts: the pipeline against a hand-written loop producing the same bytes, sine,
 * histogram, cardinality 1,000,000 with its RSS, logs, workers), the cost of exemplars with the sides taking turns
 * in one process (bench/exemplar-cost.ts) and in instructions (bench/exemplar-instructions.ts), writeShortest against String
 * (bench/shortest.ts), traces generated and encoded in one process (bench/traces.ts), then rate
 * accuracy at 10, 1,000 and 100,000 events/s, remote write (bench/remote-write.ts), OTLP (bench/otlp.ts), the HTTP client
 * (bench/http-clients.ts), Kafka (bench/kafka.ts), backfills on virtual time (bench/backfill.ts),
 * `svc test` of a 1-hour incident (bench/alert-test.ts), the idle memory of svc-server
 * (bench/server-idle.ts), its scrape answers in text and protobuf (bench/scrape.ts), peak RSS against
 * receivers that never answer or answer one byte a second (bench/hostile-receivers.ts) and ten thousand
 * scenarios on one server (bench/server-scale.ts). Prints figures; asserts nothing (speed goals live here,
 * not in tests). Runs compiled by tsc with the build's options (tsconfig.bench.json, into dist-bench/), so that
 * what runs in this process is the code `bin/svc` runs, not tsx's transform of the sources.
 *
 * `npm run bench -- scale [--seconds N] [--heap-mb N]` runs only the ten thousand scenarios (60 s of running by
 * default; the server with `--max-old-space-size=N`);
 * `npm run bench -- soak [--minutes N]` only the soak bench (bench/soak.ts, 30 minutes by default), which the
 * whole run leaves out; `npm run bench -- exemplars` only the cost of exemplars (bench/exemplar-cost.ts,
 * bench/exemplar-instructions.ts).
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEntry } from '../lib/runtime/run-entry.js';
import type { Entry } from '../lib/config/types.js';
import { BENCH_LABELS as LABELS } from './entry.js';
import { speedBench } from './speed.js';
import { exemplarCostBench } from './exemplar-cost.js';
import { exemplarInstructionsBench } from './exemplar-instructions.js';
import { shortestBench } from './shortest.js';
import { tracesBench } from './traces.js';
import { httpClientBench } from './http-clients.js';
import { otlpBench } from './otlp.js';
import { kafkaBench } from './kafka.js';
import { remoteWriteBench } from './remote-write.js';
import { backfillBench } from './backfill.js';
import { alertTestBench } from './alert-test.js';
import { serverIdleBench } from './server-idle.js';
import { scrapeBench } from './scrape.js';
import { hostileReceiversBench } from './hostile-receivers.js';

const [only, ...options] = process.argv.slice(2);
if (only === 'soak') {
  const minutes = options[0] === '--minutes' ? Number(options[1]) : 30;
  if (!(minutes > 0 && minutes <= 24 * 60))
    throw new Error(`--minutes: expected minutes from 0 to 1440, got ${options[1]}`);
  await (await import('./soak.js')).soakBench(minutes);
  process.exit(0);
}
if (only === 'scale') {
  const flag = (name: string) => (options.includes(name) ? options[options.indexOf(name) + 1] : undefined);
  const seconds = Number(flag('--seconds') ?? 60);
  if (!(seconds > 0 && seconds <= 3600))
    throw new Error(`--seconds: expected seconds from 0 to 3600, got ${flag('--seconds')}`);
  // The server's --max-old-space-size (MiB); 0: the heap Node sizes from the machine.
  const heapMb = Number(flag('--heap-mb') ?? 0);
  if (!(Number.isInteger(heapMb) && heapMb >= 0 && heapMb <= 65_536))
    throw new Error(`--heap-mb: expected MiB from 0 to 65536, got ${flag('--heap-mb')}`);
  await (await import('./server-scale.js')).serverScaleBench({ seconds, heapMb });
  process.exit(0);
}
if (only === 'exemplars') {
  await exemplarCostBench();
  await exemplarInstructionsBench();
  process.exit(0);
}
if (only !== undefined)
  throw new Error(
    `npm run bench -- ${only}: expected scale [--seconds N] [--heap-mb N], soak [--minutes N], exemplars, or nothing`,
  );

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

async function accuracy(): Promise<{ rate: number; expected: number; achieved: number; error: number }[]> {
  const rates = [10, 1_000, 100_000];
  const runs = rates.map((rate) =>
    runEntry(
      gauge({
        id: `rate_${rate}`,
        rate,
        duration: ACCURACY_MS,
        sink: { type: 'file', path: join(dir, `rate-${rate}.prom`) },
      }),
    ),
  );
  await Promise.all(runs.map((run) => run.done));
  return runs.map((run, i) => {
    const expected = (rates[i]! * ACCURACY_MS) / 1000;
    const achieved = run.stats.totalEvents;
    return { rate: rates[i]!, expected, achieved, error: (achieved - expected) / expected };
  });
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
try {
  await speedBench(dir, THROUGHPUT_MS / 1000);
  console.log("exemplars' cost in one process, the sides taking turns (bench/exemplar-cost.ts):");
  await exemplarCostBench();
  await exemplarInstructionsBench();
  console.log('writeShortest against String(v) + copy (the value text of the sample-line encoders):');
  shortestBench();
  tracesBench(THROUGHPUT_MS / 1000);
  console.log(`rate accuracy: ${ACCURACY_MS / 1000} s per rate, all three at once (goal: within 1 %)`);
  for (const r of await accuracy()) {
    console.log(
      `  ${String(r.rate).padStart(7)}/s  expected ${fmt(r.expected)}  achieved ${fmt(r.achieved)}  error ${(r.error * 100).toFixed(3)} %`,
    );
  }
  await remoteWriteBench(THROUGHPUT_MS / 1000);
  await otlpBench(THROUGHPUT_MS / 1000);
  await httpClientBench(THROUGHPUT_MS / 1000);
  await kafkaBench(THROUGHPUT_MS / 1000);
  await backfillBench(dir);
  await alertTestBench();
  await serverIdleBench();
  await scrapeBench();
  await hostileReceiversBench();
  await (await import('./server-scale.js')).serverScaleBench();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
