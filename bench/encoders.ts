/**
 * Micro-benchmark of the metric encoders: lines/s on batches of 4096 samples of one series with
 * three static labels, ticks 1 µs apart (1,000,000 events/s, so a millisecond spans 1000 lines);
 * OTLP data points and OpenMetrics counter events (each with its `_created` line) the same way, with
 * and without an exemplar on 1 % of the rows.
 * Run: node --import tsx bench/encoders.ts
 */
import { exemplarRows, type Labelled, type SampleBatch } from '../operators/model/batch.js';
import { seriesOf } from '../operators/model/series.js';
import type { MetricEncoder } from '../lib/encoders/encoder.js';
import { jsonLines } from '../lib/encoders/json-lines.js';
import { metricsText } from '../lib/encoders/metrics-text.js';
import { openMetrics } from '../lib/encoders/openmetrics.js';
import { otlpMetrics } from '../lib/encoders/otlp.js';

const BATCH = 4096;
const SECONDS = 2;
const series = seriesOf({ env: 'prod', instance: 'host-01:9100', job: 'node' });

function batches(values: (n: number) => number): Labelled<SampleBatch>[] {
  // A ring of 64 batches, so values and timestamps keep changing as in a run.
  return Array.from({ length: 64 }, (_, b) => {
    const index = Float64Array.from({ length: BATCH }, (_, i) => b * BATCH + i);
    return {
      size: BATCH,
      anchor: Date.UTC(2024, 0, 1),
      index,
      offset: index.map((n) => n / 1000),
      value: index.map(values),
      series: new Array(BATCH).fill(series),
    };
  });
}

function measure(label: string, encoder: MetricEncoder, ring: Labelled<SampleBatch>[], toBuffer: boolean): void {
  let bytes = 0;
  let lines = 0;
  const run = (ms: number): number => {
    const start = performance.now();
    let n = 0;
    while (performance.now() - start < ms) {
      const data = encoder.encode(ring[n % ring.length]!).data;
      // The sink turns the string into bytes; measuring it too forces V8 to flatten the rope.
      bytes += toBuffer ? Buffer.from(data).length : data.length;
      n++;
    }
    return n;
  };
  run(300); // warm-up
  const start = performance.now();
  lines = run(SECONDS * 1000) * BATCH;
  const seconds = (performance.now() - start) / 1000;
  const perSec = lines / seconds;
  console.log(
    `${label.padEnd(56)} ${(perSec / 1e6).toFixed(2).padStart(6)} M lines/s  (${(bytes / seconds / 2 ** 20) | 0} MiB/s)`,
  );
}

const sine = batches((n) => 50 + 25 * Math.sin((2 * Math.PI * n) / 60_000));
const counter = batches((n) => n);
for (const toBuffer of [false, true]) {
  const how = toBuffer ? 'encode+Buffer.from' : 'encode';
  measure(`metricsText, sine values, ${how}`, metricsText({ name: 'cpu_usage' }), sine, toBuffer);
  measure(`metricsText, integer values, ${how}`, metricsText({ name: 'requests_total' }), counter, toBuffer);
  measure(
    `metricsText precision 2, sine values, ${how}`,
    metricsText({ name: 'cpu_usage', precision: 2 }),
    sine,
    toBuffer,
  );
  measure(`jsonLines, sine values, ${how}`, jsonLines({ name: 'cpu_usage' }), sine, toBuffer);
}

// Every 100th row carries an exemplar, as `exemplars: {every: 100}` would.
const exemplar = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', value: 1, timestamp: 0 };
const withExemplars = counter.map((batch) => ({
  ...batch,
  exemplars: exemplarRows(Array.from({ length: BATCH }, (_, i) => (i % 100 === 0 ? exemplar : undefined))),
}));
for (const [how, ring] of [
  ['', counter],
  [', exemplar on 1 % of rows', withExemplars],
] as const) {
  measure(`otlpMetrics gauge${how}`, otlpMetrics({ name: 'cpu_usage' }), ring, false);
  measure(
    `otlpMetrics counter, delta${how}`,
    otlpMetrics({ name: 'jobs', metricType: 'counter', temporality: 'delta' }),
    ring,
    false,
  );
  measure(`openMetrics counter (+ _created)${how}`, openMetrics({ name: 'jobs', metricType: 'counter' }), ring, false);
}
