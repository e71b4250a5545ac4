/**
 * Micro-benchmark of traces: a 6-span checkout trace (frontend → cart, frontend → payment →
 * database, with HTTP and database attributes and a user id of cardinality 100,000) generated
 * by `generateTraces` and encoded as json_lines, as otlp and as zipkin_json, in batches of 682
 * ticks (4,092 spans: the span budget of one batch), and generated alone. Prints spans per
 * CPU-second (user + system time of this process), the median of `rounds` runs and their range,
 * and the heap after each encoder's runs (flat: nothing is kept between batches). Asserts nothing.
 * Run: node --import tsx bench/traces.ts [seconds per run] [rounds]
 */
import { pathToFileURL } from 'node:url';
import { Subject, map } from 'rxjs';
import type { TickBatch } from '../operators/model/batch.js';
import { spansIn, type SpanBatch } from '../operators/model/span.js';
import { generateTraces } from '../operators/generate-traces.js';
import { traceGenerator } from '../lib/generators/trace.js';
import { traceGenerator as traceGeneratorCodec, type TraceGeneratorConfig } from '../lib/language/traces.js';
import { jsonLinesTraces } from '../lib/encoders/json-lines-traces.js';
import { otlpTraces } from '../lib/encoders/otlp-traces.js';
import { zipkinJson } from '../lib/encoders/zipkin-json.js';
import { spanFrames, type TraceEncoder } from '../lib/encoders/spans.js';

const TICKS_PER_BATCH = 682;
/** Ticks a second the batches stand for: spans start in many milliseconds, as in a run at this rate. */
const RATE = 50_000;

const http = (method: string, route: string) => ({
  'http.request.method': method,
  'http.route': route,
  'http.response.status_code': 200,
});

/** The 6-span trace: frontend's server span, two client/server pairs, and a database client span. */
export const CHECKOUT: TraceGeneratorConfig = decoded({
  seed: 1,
  services: {
    frontend: { version: '2.4.1', environment: 'prod', pods: { count: 3 } },
    cart: { version: '1.9.0', environment: 'prod' },
    payment: { version: '3.0.2', environment: 'prod' },
  },
  root: {
    service: 'frontend',
    operation: 'GET /checkout',
    kind: 'server',
    attributes: { ...http('GET', '/checkout'), 'enduser.id': { cardinality: 100_000, prefix: 'user-' } },
    calls: [
      {
        service: 'cart',
        operation: 'GET /cart',
        kind: 'client',
        duration: { type: 'exponential', rate: 100 },
        attributes: http('GET', '/cart'),
      },
      {
        service: 'payment',
        operation: 'POST /pay',
        kind: 'client',
        duration: { type: 'uniform', min: 0.02, max: 0.08 },
        error_rate: 0.01,
        propagate: true,
        attributes: http('POST', '/pay'),
        calls: [
          {
            operation: 'INSERT payments',
            kind: 'client',
            duration: { type: 'normal', mean: 0.004, stddev: 0.001 },
            attributes: { 'db.system': 'postgresql', 'db.operation.name': 'INSERT' },
          },
        ],
      },
    ],
  },
});

function decoded(document: unknown): TraceGeneratorConfig {
  const result = traceGeneratorCodec.decode(document);
  if (result._tag === 'Left') throw new Error('bench/traces.ts: the trace_generator does not validate');
  return result.right;
}

/** Ticks `from` to `from + TICKS_PER_BATCH - 1` at {@link RATE}. */
function ticksFrom(from: number): TickBatch {
  const index = Float64Array.from({ length: TICKS_PER_BATCH }, (_, i) => from + i);
  return { size: TICKS_PER_BATCH, anchor: Date.UTC(2024, 0, 1), index, offset: index.map((n) => (n * 1000) / RATE) };
}

/** Counts a batch's spans and writes nothing: the generation's own cost. */
const generationOnly = (): TraceEncoder => ({
  encode: (batch) => {
    const size = spansIn(batch);
    return { size, data: new Uint8Array(0), bytes: 0, frames: spanFrames(batch, [], 0, [], new Float64Array(0)) };
  },
});

/** One run: spans generated and encoded per CPU-second, for `seconds` of wall time. */
function run(encoder: TraceEncoder, seconds: number): { spansPerCpuSecond: number; bytes: number } {
  const ticks = new Subject<TickBatch>();
  let spans = 0;
  let bytes = 0;
  ticks
    .pipe(
      generateTraces(traceGenerator(CHECKOUT)),
      map((batch: TickBatch & SpanBatch) => encoder.encode(batch)),
    )
    .subscribe((chunk) => {
      spans += chunk.size;
      bytes += chunk.bytes;
    });
  const cpu = process.cpuUsage();
  const until = performance.now() + seconds * 1000;
  for (let from = 0; performance.now() < until; from += TICKS_PER_BATCH) ticks.next(ticksFrom(from));
  const used = process.cpuUsage(cpu);
  ticks.complete();
  return { spansPerCpuSecond: spans / ((used.user + used.system) / 1e6), bytes: bytes / spans };
}

/** Prints spans/s per CPU-second of each encoder: median [min-max] of `rounds` runs of `seconds`. */
export function tracesBench(seconds = 2, rounds = 5): void {
  const encoders: [string, () => TraceEncoder][] = [
    ['(generation only)', generationOnly],
    ['json_lines', jsonLinesTraces],
    ['otlp', otlpTraces],
    ['zipkin_json', zipkinJson],
  ];
  console.log(
    `traces: a 6-span trace generated and encoded, spans per CPU-second, median [min-max] of ${rounds} runs of ${seconds} s`,
  );
  for (const [name, make] of encoders) {
    run(make(), 0.5); // warm-up
    const runs = Array.from({ length: rounds }, () => run(make(), seconds));
    const rates = runs.map((r) => r.spansPerCpuSecond).sort((a, b) => a - b);
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    const heap = process.memoryUsage().heapUsed / 2 ** 20;
    console.log(
      `  ${name.padEnd(18)} ${fmt(rates[rates.length >> 1]!).padStart(10)} spans/s  [${fmt(rates[0]!)}-${fmt(rates[rates.length - 1]!)}]  ${Math.round(runs[0]!.bytes)} bytes/span  heap ${heap.toFixed(0)} MiB`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  tracesBench(Number(process.argv[2] ?? 2), Number(process.argv[3] ?? 5));
