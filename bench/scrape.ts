/**
 * svc-server's `GET /scenarios/metrics` in `npm run bench`: milliseconds to build one answer in the text and in the
 * protobuf exposition, of 1,000 label sets of a histogram (11 buckets, a native histogram and exemplars: 15,000
 * series) and of a gauge of 100,000 series, the median of 5 answers each; and built as the server builds them, in
 * slices, the longest the event loop waited meanwhile (goal: tens of ms, not the whole build). Prints figures;
 * asserts nothing.
 */
import { firstValueFrom, of } from 'rxjs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { aggregate, aggregateSteps, ScrapeBuffer, sliced, type Steps } from '../lib/server/scrape.js';
import { aggregateProtobuf, protobufSteps } from '../lib/server/scrape-protobuf.js';
import { DEFAULT_BUCKETS, DEFAULT_NATIVE, histogram } from '../operators/histogram.js';
import { exemplars } from '../operators/exemplars.js';
import { seriesOf } from '../operators/model/series.js';
import { percentile } from '../spec/support/percentile.js';

const RUNS = 5;

/** Median ms and bytes of one answer. */
/** Wall ms of a sliced build, and the longest the event loop waited while it ran (ms). */
async function slicedAnswer(steps: Steps<unknown>): Promise<{ ms: number; delay: number }> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const started = performance.now();
  await sliced(steps);
  const ms = performance.now() - started;
  delay.disable();
  return { ms, delay: delay.max / 1e6 };
}

function answer(build: () => { length: number }): { ms: number; bytes: number } {
  const bytes = build().length;
  const times = Array.from({ length: RUNS }, () => {
    const started = performance.now();
    build();
    return performance.now() - started;
  });
  return { ms: percentile(times, 0.5), bytes };
}

async function histogramBuffer(sets: number): Promise<ScrapeBuffer> {
  const series = Array.from({ length: sets }, (_, i) => seriesOf({ pod: `pod_${i}` }));
  const buffer = new ScrapeBuffer({ name: 'bench_latency_seconds', type: 'histogram' });
  const observations = {
    size: sets,
    anchor: Date.now(),
    index: Float64Array.from(series, (_, i) => i),
    offset: new Float64Array(sets),
    observations: series.map((_, i) => Float64Array.from({ length: 100 }, (_, k) => ((i * 100 + k) % 997) / 1000)),
    series,
  };
  const rows = of(observations).pipe(histogram(DEFAULT_BUCKETS, { native: DEFAULT_NATIVE }), exemplars({ every: 1 }));
  buffer.record(await firstValueFrom(rows));
  return buffer;
}

function gaugeBuffer(size: number): ScrapeBuffer {
  const buffer = new ScrapeBuffer({ name: 'bench_gauge', type: 'gauge' });
  buffer.record({
    size,
    anchor: Date.now(),
    index: Float64Array.from({ length: size }, (_, i) => i),
    offset: new Float64Array(size),
    value: Float64Array.from({ length: size }, (_, i) => i / 2),
    series: Array.from({ length: size }, (_, i) => seriesOf({ pod: `pod_${i}` })),
  });
  return buffer;
}

export async function scrapeBench(): Promise<void> {
  console.log('GET /scenarios/metrics, one answer (median of 5):');
  for (const [what, buffer] of [
    ['1,000 histograms, 11 buckets + native', await histogramBuffer(1000)],
    ['100,000 gauge series', gaugeBuffer(100_000)],
  ] as const) {
    const text = answer(() => aggregate([buffer], () => {}));
    const protobuf = answer(() => aggregateProtobuf([buffer], () => {}));
    console.log(
      `  ${what}: text ${text.ms.toFixed(1)} ms (${text.bytes} B), protobuf ${protobuf.ms.toFixed(1)} ms (${protobuf.bytes} B)`,
    );
    for (const [format, steps] of [
      ['text', aggregateSteps([buffer], () => {})],
      ['protobuf', protobufSteps([buffer], () => {})],
    ] as const) {
      const { ms, delay } = await slicedAnswer(steps);
      console.log(
        `    in slices, ${format}: ${ms.toFixed(1)} ms, the event loop waited at most ${delay.toFixed(1)} ms`,
      );
    }
  }
}
