/**
 * Remote write in `npm run bench`: samples/s of a 1,000-series gauge at an unbounded rate through
 * the remote_write encoder and sink, into a receiver in this process (it answers 204 at once), with
 * protocol 1.0 and 2.0 in turn, and into a real VictoriaMetrics; beside them the encoder alone and
 * snappy alone on the same data, so the encode share of the pipeline's time shows. Prints figures;
 * asserts nothing.
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

/** Samples/s of the whole pipeline into `url`. */
async function pipeline(url: string, seconds: number, protocol?: '1.0' | '2.0'): Promise<number> {
  const started = performance.now();
  const run = runEntry(gauge(url, seconds, protocol));
  const outcome = await run.done;
  if (outcome.error) throw outcome.error;
  return run.stats.totalEvents / ((performance.now() - started) / 1000);
}

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
  const local = await pipeline(url, seconds);
  const localV2 = await pipeline(url, seconds, '2.0');
  receiver.close();

  const encoder = remoteWrite({ name: 'bench_remote_write', metricType: 'gauge' });
  const encoding = alone(seconds, (batch) => encoder.encode(batch));
  const snappy = featurePackage<typeof Snappy>('remote-write', 'snappy');
  let data: Uint8Array | undefined;
  const compressing = alone(seconds, (batch) => snappy.compressSync((data ??= encoder.encode(batch).data)));
  // The pure-JavaScript alternative, measured for the choice (docs/sinks.md); a devDependency only.
  const compressingJs = alone(seconds, (batch) => compress((data ??= encoder.encode(batch).data)));
  console.log(`  into a receiver in this process  ${fmt(local)} samples/s (goal: >= 1,000,000)`);
  console.log(
    `  the same, protocol 2.0           ${fmt(localV2)} samples/s: ${((localV2 / local) * 100).toFixed(0)} % of 1.0 (aim: >= 100 %)`,
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
