import { readFileSync } from 'node:fs';
import { isRight } from 'fp-ts/lib/Either.js';
import { parse } from 'yaml';
import { traceGenerator as traceGeneratorCodec, type TraceGeneratorConfig } from '../../lib/language/traces.js';
import { issuesOf, formatPath } from '../../lib/language/problems.js';
import { traceGenerator } from '../../lib/generators/trace.js';
import type { TickBatch } from '../../operators/model/batch.js';
import { of } from 'rxjs';
import { generateTraces } from '../../operators/generate-traces.js';
import { SPAN_STATUS, type AttributeValue, type SpanBatch, type TraceGenerator } from '../../operators/model/span.js';
import { spanIdHex, traceIdHex } from '../../operators/model/ids.js';

export const T0 = Date.UTC(2024, 0, 1);

/** The problems of a trace_generator document as `path: message` lines (none: it decodes). */
export function generatorProblems(document: unknown): string[] {
  const decoded = traceGeneratorCodec.decode(document);
  return isRight(decoded) ? [] : issuesOf(decoded.left).map((i) => `${formatPath(i.path)}: ${i.message}`);
}

/** A trace_generator document decoded; throws its problems. */
export function traceConfig(document: unknown): TraceGeneratorConfig {
  const decoded = traceGeneratorCodec.decode(document);
  if (!isRight(decoded)) throw new Error(generatorProblems(document).join('\n'));
  return decoded.right;
}

/** The `trace_generator` of the example in docs/traces.md. */
export function documentedExample(): unknown {
  const text = readFileSync(new URL('../../docs/traces.md', import.meta.url), 'utf8');
  const block = /```yaml\n([\s\S]*?)```/.exec(text)![1]!;
  return (parse(block) as { trace_generator: unknown }).trace_generator;
}

/** Ticks `indexes` of an entry at `rate` per second, anchored at {@link T0}. */
export function ticksAt(indexes: readonly number[], rate = 10): TickBatch {
  const index = Float64Array.from(indexes);
  return { size: index.length, anchor: T0, index, offset: index.map((n) => (n * 1000) / rate) };
}

/** The batch `generateTraces` makes of `ticks`. */
export function spanBatch(generator: TraceGenerator | TraceGeneratorConfig, ticks: TickBatch): SpanBatch {
  const g = 'trace' in generator ? generator : traceGenerator(generator);
  let made: SpanBatch | undefined;
  of(ticks)
    .pipe(generateTraces(g))
    .subscribe((batch) => (made = batch));
  return made!;
}

/** A span as the specs read it: everything the columns and its node say, resolved. */
export interface SpanRow {
  readonly tick: number;
  readonly row: number;
  readonly traceId: string;
  readonly spanId: string;
  /** The parent's span id; undefined for a root. */
  readonly parentId?: string;
  readonly parentRow: number;
  readonly service: string;
  readonly name: string;
  readonly kind: string;
  /** Nanoseconds after the batch anchor. */
  readonly start: number;
  readonly end: number;
  readonly status: number;
  readonly flags: number;
  readonly link?: { readonly traceId: string; readonly spanId: string };
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly resource: Readonly<Record<string, AttributeValue>>;
}

/** Every span of the ticks a batch kept, in order. */
export function spanRows(batch: SpanBatch): SpanRow[] {
  const { spans } = batch;
  const rows: SpanRow[] = [];
  for (let i = 0; i < batch.size; i++) {
    for (let s = batch.firstSpan[i]!; s < batch.firstSpan[i]! + batch.spanCount[i]!; s++) {
      const node = spans.nodes[spans.node[s]!]!;
      const picked = Object.fromEntries(
        node.picked.map((attribute, j) => {
          const pick = spans.picks[spans.pickAt[s]! + j]!;
          return [attribute.key, 'values' in attribute ? attribute.values[pick]! : `${attribute.prefix}${pick}`];
        }),
      );
      const parent = spans.parent[s]!;
      const link = spans.link[s]!;
      rows.push({
        tick: batch.index[i]!,
        row: s,
        traceId: traceIdHex(spans, s),
        spanId: spanIdHex(spans, s),
        ...(parent >= 0 && { parentId: spanIdHex(spans, parent) }),
        parentRow: parent,
        service: node.service,
        name: node.name,
        kind: node.kind,
        start: spans.start[s]!,
        end: spans.end[s]!,
        status: spans.status[s]!,
        flags: spans.flags[s]!,
        ...(link >= 0 && { link: { traceId: traceIdHex(spans, link), spanId: spanIdHex(spans, link) } }),
        attributes: { ...node.attributes, ...picked },
        resource: spans.resource[s]!.attributes,
      });
    }
  }
  return rows;
}

/**
 * A tree with every feature the encoders write: pods, fixed, listed and counted attributes of
 * every type, an error raised and propagated, a database span, a producer whose consumer starts
 * a linked trace, an internal span, half the traces sampled, and text that needs escaping.
 */
export const EVERY_FEATURE = {
  seed: 11,
  sampled: 0.5,
  services: {
    frontend: { version: '2.4.1', environment: 'prod', pods: { count: 2 }, attributes: { 'host.cores': 8 } },
    payment: { attributes: { 'cloud.region': 'eu-west-1' } },
  },
  root: {
    service: 'frontend',
    operation: 'GET /checkout',
    kind: 'server',
    attributes: {
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      ratio: 0.25,
      cached: false,
      'enduser.id': { cardinality: 1000, prefix: 'user-' },
    },
    calls: [
      {
        service: 'payment',
        operation: 'POST /pay "quoted" é',
        kind: 'client',
        duration: { type: 'uniform', min: 0.01, max: 0.02 },
        error_rate: 0.5,
        propagate: true,
        attributes: { tier: { one_of: ['gold', 2, true] } },
        calls: [
          { operation: 'INSERT payments', kind: 'client', duration: '2ms', attributes: { 'db.system': 'postgresql' } },
        ],
      },
      { operation: 'render', kind: 'internal', duration: '1ms' },
      { service: 'worker', operation: 'orders publish', kind: 'producer', duration: '5ms', new_trace: true },
    ],
  },
};

/**
 * A span's attributes and the `error.type` a span in error adds (docs/traces.md, restated): its HTTP status code
 * of 400 or more as a string, else the exception type (`Error`, raised or propagated); none on a span not in
 * error, nor where the span sets `error.type` itself.
 */
export function withErrorType(row: SpanRow): Readonly<Record<string, AttributeValue>> {
  if (row.status === SPAN_STATUS.unset || 'error.type' in row.attributes) return row.attributes;
  const code = row.attributes['http.response.status_code'];
  return { ...row.attributes, 'error.type': typeof code === 'number' && code >= 400 ? String(code) : 'Error' };
}

/**
 * A tree whose failed spans carry every kind of `error.type`: a database error raised and propagated through a
 * server whose listed status code is 200 or 503 (itself failing too, and on its 503) to a root answering 200 or 502
 * (failing on its 502, answering 500 for a failure it sees on 200), a call that sets `error.type` itself, and a
 * call to a service without status codes.
 */
export const ERROR_TYPES = {
  seed: 5,
  root: {
    service: 'frontend',
    operation: 'GET /checkout',
    kind: 'server',
    attributes: { 'http.request.method': 'GET', 'http.response.status_code': { one_of: [200, 502] } },
    calls: [
      {
        service: 'payment',
        operation: 'POST /pay',
        kind: 'client',
        duration: 0.01,
        error_rate: 0.3,
        propagate: true,
        attributes: { 'http.request.method': 'POST', 'http.response.status_code': { one_of: [200, 503] } },
        calls: [
          {
            operation: 'INSERT payments',
            kind: 'client',
            duration: 0.001,
            error_rate: 0.3,
            propagate: true,
            attributes: { 'db.system': 'postgresql' },
          },
        ],
      },
      {
        service: 'cart',
        operation: 'GET /cart',
        kind: 'client',
        duration: 0.001,
        error_rate: 0.5,
        attributes: { 'error.type': 'timeout' },
      },
      { service: 'stock', operation: 'GET /stock', kind: 'client', duration: 0.001, error_rate: 0.5 },
    ],
  },
};

/** Spans of {@link ERROR_TYPES} for ticks 0 to 39. */
export function errorTypeSpans(): SpanBatch {
  return spanBatch(traceConfig(ERROR_TYPES), ticksAt(Array.from({ length: 40 }, (_, n) => n)));
}

/** Each span's service, name, status and `error.type` ({@link withErrorType}), once. */
export function errorTypeCases(rows: readonly SpanRow[]): string[] {
  return [
    ...new Set(rows.map((row) => `${row.service} ${row.name} ${row.status} ${withErrorType(row)['error.type']}`)),
  ].sort();
}

/** The cases of {@link errorTypeSpans}: each rule met (status 1: raised, 2: a failed call). */
export const ERROR_TYPE_CASES = [
  'cart GET /cart 0 timeout',
  'cart GET /cart 1 timeout',
  'frontend GET /cart 0 timeout',
  'frontend GET /cart 2 timeout',
  'frontend GET /checkout 0 undefined',
  'frontend GET /checkout 1 502',
  'frontend GET /checkout 2 500',
  'frontend GET /stock 0 undefined',
  'frontend GET /stock 2 Error',
  'frontend POST /pay 0 undefined',
  'frontend POST /pay 2 500',
  'frontend POST /pay 2 503',
  'payment INSERT payments 0 undefined',
  'payment INSERT payments 1 Error',
  'payment POST /pay 0 undefined',
  'payment POST /pay 1 500',
  'payment POST /pay 1 503',
  'payment POST /pay 2 500',
  'stock GET /stock 0 undefined',
  'stock GET /stock 1 Error',
];

/** Spans of {@link EVERY_FEATURE} for ticks 0 to `count - 1`. */
export function everyFeature(count = 12): SpanBatch {
  return spanBatch(traceConfig(EVERY_FEATURE), ticksAt(Array.from({ length: count }, (_, n) => n)));
}

/** Epoch nanoseconds of a span time (ns after the batch anchor), exactly. */
export function epochNanos(batch: Pick<TickBatch, 'anchor'>, ns: number): bigint {
  return BigInt(batch.anchor) * 1_000_000n + BigInt(ns);
}
