/**
 * Remote write in `npm run bench`: samples/s of a 1,000-series gauge at an unbounded rate through the remote_write
 * encoder and sink, into a receiver in this process (it answers 204 at once), and the CPU time a sample costs with
 * protocol 1.0 and 2.0 in turn, and into a real VictoriaMetrics; beside them the encoder alone and snappy alone on the
 * same data, so the encode share of the pipeline's time shows. Prints figures; asserts nothing.
 */
import { createServer } from 'node:http';
import { compress } from 'snappyjs';
import type * as Snappy from 'snappy';
import { remoteWrite } from '../lib/encoders/remote-write.js';
import { featurePackage } from '../lib/features.js';
import { runEntry } from '../lib/runtime/run-entry.js';
import { BENCH_LABELS, benchGauge } from './entry.js';
import type { Entry } from '../lib/config/types.js';
import type { Labelled, SampleBatch } from '../operators/model/batch.js';
import { seriesOf } from '../operators/model/series.js';
import { startVictoriaMetrics } from '../spec/support/backends/victoria-metrics.js';

const SERIES = 1000;

function gauge(url: string, seconds: number, protocol: '1.0' | '2.0' = '1.0'): Entry {
  return benchGauge({
    name: 'bench_remote_write',
    sink: { type: 'remote_write', url, protocol },
    encoder: { type: 'remote_write' },
    seconds,
    series: SERIES,
  });
}

/** Samples of the whole pipeline into `url`, the wall-clock seconds and the process' CPU seconds they took. */
async function pipeline(
  url: string,
  seconds: number,
  protocol?: '1.0' | '2.0',
): Promise<{ samples: number; wall: number; cpu: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const run = runEntry(gauge(url, seconds, protocol));
  const outcome = await run.done;
  if (outcome.error) throw outcome.error;
  const used = process.cpuUsage(cpu);
  return {
    samples: run.stats.totalEvents,
    wall: (performance.now() - started) / 1000,
    cpu: (used.user + used.system) / 1e6,
  };
}

/** Rounds of 1.0 then 2.0 into the receiver, after one of each not counted (the code warming up). */
const ROUNDS = 5;

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** Samples/s of `work` on batches of 4,096 rows over the 1,000 series, for `seconds`. */
function alone(seconds: number, work: (batch: Labelled<SampleBatch>) => void): number {
  const size = 4096;
  const series = Array.from({ length: SERIES }, (_, i) => seriesOf({ ...BENCH_LABELS, pod: `pod_${i}` }));
  const batch: Labelled<SampleBatch> = {
    size,
    anchor: Date.now(),
    index: Float64Array.from({ length: size }, (_, i) => i),
    offset: Float64Array.from({ length: size }, (_, i) => i / 1000),
    value: Float64Array.from({ length: size }, (_, i) => i),
    series: Array.from({ length: size }, (_, i) => series[i % SERIES]!),
  };
  const started = performance.now();
  let samples = 0;
  while (performance.now() - started < seconds * 1000) {
    work(batch);
    samples += size;
  }
  return samples / ((performance.now() - started) / 1000);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Runs the remote-write figures, `seconds` each. */
export async function remoteWriteBench(seconds: number): Promise<void> {
  console.log(
    `remote write: gauge over ${SERIES} series, remote_write encoder -> sink (batch_size 500), ${seconds} s each`,
  );
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/api/v1/write`;
  // The machine may be shared: CPU per sample, both protocols in turn in one process (the receiver's share
  // counted on both sides), swings less with its load than samples/s do; each round's ratio compares runs made
  // under about the same load.
  const rates: number[] = [];
  const cpu: Record<'1.0' | '2.0', number[]> = { '1.0': [], '2.0': [] };
  const ratios: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const v1 = await pipeline(url, seconds / 2, '1.0');
    const v2 = await pipeline(url, seconds / 2, '2.0');
    if (round === 0) continue;
    rates.push(v1.samples / v1.wall);
    cpu['1.0'].push(v1.cpu / v1.samples);
    cpu['2.0'].push(v2.cpu / v2.samples);
    ratios.push(v2.cpu / v2.samples / (v1.cpu / v1.samples));
  }
  receiver.close();
  const local = median(rates);

  const encoder = remoteWrite({ name: 'bench_remote_write', metricType: 'gauge' });
  const encoding = alone(seconds, (batch) => encoder.encode(batch));
  const snappy = featurePackage<typeof Snappy>('remote-write', 'snappy');
  let data: Uint8Array | undefined;
  const compressing = alone(seconds, (batch) => snappy.compressSync((data ??= encoder.encode(batch).data)));
  // The pure-JavaScript alternative, measured for the choice (docs/sinks.md); a devDependency only.
  const compressingJs = alone(seconds, (batch) => compress((data ??= encoder.encode(batch).data)));
  console.log(`  into a receiver in this process  ${fmt(local)} samples/s, 1.0 (goal: >= 1,000,000)`);
  const micros = (values: readonly number[]) => `${(median(values) * 1e6).toFixed(3)} µs`;
  console.log(
    `  CPU per sample, 1.0 beside 2.0   1.0 ${micros(cpu['1.0'])}, 2.0 ${micros(cpu['2.0'])} (medians of ${ROUNDS} rounds of ${seconds / 2} s each, alternated)`,
  );
  console.log(
    `  2.0's CPU per sample / 1.0's     ${median(ratios).toFixed(2)} (each round: ${ratios.map((r) => r.toFixed(2)).join(' · ')}; goal: <= 1.00)`,
  );
  console.log(
    `  encoder alone                    ${fmt(encoding)} samples/s: encoding is ${((local / encoding) * 100).toFixed(0)} % of the pipeline's time`,
  );
  console.log(
    `  snappy alone                     ${fmt(compressing)} samples/s: compression is ${((local / compressing) * 100).toFixed(0)} %`,
  );
  console.log(`  snappyjs alone (not used)        ${fmt(compressingJs)} samples/s`);

  const vm = await startVictoriaMetrics();
  try {
    const before = await vm.selfMetric('vm_rows_inserted_total');
    const started = performance.now();
    const run = runEntry(gauge(`${vm.url}/api/v1/write`, seconds));
    const outcome = await run.done;
    if (outcome.error) throw outcome.error;
    const rate = run.stats.totalEvents / ((performance.now() - started) / 1000);
    const inserted = (await vm.selfMetric('vm_rows_inserted_total')) - before;
    console.log(
      `  into VictoriaMetrics 1.79        ${fmt(rate)} samples/s (it counted ${fmt(inserted)} rows inserted of ${fmt(run.stats.totalEvents)} sent)`,
    );
  } finally {
    await vm.stop();
  }
}
