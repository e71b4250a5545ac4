import { expect } from 'chai';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { otlpTraces } from '../../lib/encoders/otlp-traces.js';
import { otlpMessages } from '../../lib/protocols/otlp.js';
import { OTLP_DEFAULTS, otlpRequests } from '../../lib/sinks/framing/otlp-requests.js';
import { VERSION } from '../../lib/version.js';
import { recordOf, selectTicks } from '../../operators/model/batch.js';
import { SPAN_STATUS, type AttributeValue } from '../../operators/model/span.js';
import {
  ERROR_TYPE_CASES,
  T0,
  epochNanos,
  errorTypeCases,
  errorTypeSpans,
  everyFeature,
  spanBatch,
  spanRows,
  ticksAt,
  traceConfig,
  withErrorType,
  type SpanRow,
} from '../support/trace-generators.js';

/** The official opentelemetry-proto files (the `otlp-protos` dev dependency), as a collector reads requests. */
const PROTOS = join(dirname(createRequire(import.meta.url).resolve('otlp-protos/package.json')), 'build', 'protos');
const official = new protobuf.Root();
official.resolvePath = (_origin, target) => join(PROTOS, target);
official.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: true });
const REQUEST = official.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

/** A decoded request: untyped JSON. */
type Json = any;

function decode(bytes: Uint8Array): Json {
  return REQUEST.toObject(REQUEST.decode(bytes), { longs: String, enums: String, bytes: String, arrays: true });
}

const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');

/** An attribute as the official decoder gives it back. */
function anyValue(value: AttributeValue): Json {
  if (typeof value === 'string') return { string_value: value };
  if (typeof value === 'boolean') return { bool_value: value };
  return Number.isSafeInteger(value) ? { int_value: String(value) } : { double_value: value };
}
const keyValues = (values: Readonly<Record<string, AttributeValue>>) =>
  Object.entries(values).map(([key, value]) => ({ key, value: anyValue(value) }));

/** The decoded Span a span must become (ids back to hex). */
function expectedSpan(row: SpanRow): Json {
  const end = String(epochNanos({ anchor: T0 }, row.end));
  return {
    trace_id: row.traceId,
    span_id: row.spanId,
    ...(row.parentId && { parent_span_id: row.parentId }),
    name: row.name,
    kind: `SPAN_KIND_${row.kind.toUpperCase()}`,
    start_time_unix_nano: String(epochNanos({ anchor: T0 }, row.start)),
    end_time_unix_nano: end,
    attributes: keyValues(withErrorType(row)),
    events:
      row.status === SPAN_STATUS.error
        ? [
            {
              time_unix_nano: end,
              name: 'exception',
              attributes: keyValues({ 'exception.type': 'Error', 'exception.message': `${row.name} failed` }),
            },
          ]
        : [],
    links: row.link ? [{ trace_id: row.link.traceId, span_id: row.link.spanId, attributes: [] }] : [],
    ...(row.status === SPAN_STATUS.error && { status: { message: `${row.name} failed`, code: 'STATUS_CODE_ERROR' } }),
    ...(row.status === SPAN_STATUS.failedCall && { status: { code: 'STATUS_CODE_ERROR' } }),
  };
}

/** A decoded span with its ids in hex. */
function readable(span: Json): Json {
  const ids = ['trace_id', 'span_id', 'parent_span_id'].filter((key) => span[key] !== undefined);
  return {
    ...span,
    ...Object.fromEntries(ids.map((key) => [key, hex(span[key])])),
    links: span.links.map((link: Json) => ({ ...link, trace_id: hex(link.trace_id), span_id: hex(link.span_id) })),
  };
}

describe('otlpTraces', () => {
  it('writes an ExportTraceServiceRequest the official trace_service.proto reads back into exactly the spans generated', () => {
    const batch = everyFeature();
    const rows = spanRows(batch);
    const { data, size } = otlpTraces().encode(batch);
    const request = decode(data);
    const resources = [...new Map(rows.map((row) => [JSON.stringify(row.resource), row.resource])).values()];
    // One ResourceSpans per resource, in order of first appearance, each with one svc scope.
    expect(request.resource_spans.map((r: Json) => r.resource.attributes)).to.deep.equal(resources.map(keyValues));
    for (const resourceSpans of request.resource_spans) {
      expect(resourceSpans.scope_spans).to.have.length(1);
      expect(resourceSpans.scope_spans[0].scope).to.deep.include({ name: 'svc', version: VERSION });
    }
    const decoded = request.resource_spans.flatMap((resourceSpans: Json, r: number) =>
      resourceSpans.scope_spans[0].spans.map((span: Json) => ({ resource: r, span: readable(span) })),
    );
    const expected = resources.flatMap((resource, r) =>
      rows
        .filter((row) => JSON.stringify(row.resource) === JSON.stringify(resource))
        .map((row) => ({ resource: r, span: expectedSpan(row) })),
    );
    expect(decoded).to.deep.equal(expected);
    expect(size).to.equal(rows.length);
    expect(decoded.some(({ span }: Json) => span.events.length && span.links.length === 0)).to.equal(true);
  });

  it('writes `error.type` on every span in error: its status code of 400 or more, else its exception type', () => {
    const batch = errorTypeSpans();
    const rows = spanRows(batch);
    expect(errorTypeCases(rows)).to.deep.equal(ERROR_TYPE_CASES);
    const decoded = decode(otlpTraces().encode(batch).data).resource_spans.flatMap((r: Json) =>
      r.scope_spans[0].spans.map((span: Json) => readable(span)),
    );
    const bySpan = new Map(decoded.map((span: Json) => [span.span_id, span]));
    expect(rows.map((row) => bySpan.get(row.spanId))).to.deep.equal(rows.map(expectedSpan));
  });

  it('writes the W3C trace flags of every span (field 16, which the 0.38 protos predate)', () => {
    const batch = everyFeature();
    const { type } = otlpMessages();
    const Request = type('ExportTraceServiceRequest');
    const request = Request.toObject(Request.decode(otlpTraces().encode(batch).data), { defaults: true }) as Json;
    const flags = request.resourceSpans.flatMap((r: Json) => r.scopeSpans[0].spans.map((span: Json) => span.flags));
    const rows = spanRows(batch);
    const byResource = [...new Set(rows.map((row) => JSON.stringify(row.resource)))].flatMap((resource) =>
      rows.filter((row) => JSON.stringify(row.resource) === resource).map((row) => row.flags),
    );
    expect(flags).to.deep.equal(byResource);
    expect(new Set(flags)).to.deep.equal(new Set([0, 1]));
  });

  it('frames each ResourceSpans as a record, itself a request, that any run of concatenates into one', () => {
    const batch = everyFeature(6);
    const chunk = otlpTraces().encode(batch);
    const records = chunk.frames.ends.map((_, i) => recordOf(chunk, i));
    expect(records.length).to.equal(decode(chunk.data).resource_spans.length);
    expect(Buffer.concat(records)).to.deep.equal(Buffer.from(chunk.data));
    for (const [i, record] of records.entries()) {
      const alone = decode(record).resource_spans;
      expect(alone).to.have.length(1);
      expect(chunk.frames.series[i]!.labels['service.name']).to.equal(
        alone[0].resource.attributes.find((a: Json) => a.key === 'service.name').value.string_value,
      );
    }
    const later = otlpTraces().encode(selectTicks(batch, [5])).data;
    const joined = decode(Buffer.concat([chunk.data, later]));
    expect(joined.resource_spans).to.have.length(records.length + decode(later).resource_spans.length);
    expect(otlpTraces().encode(selectTicks(batch, [])).bytes).to.equal(0);
  });

  it("splits a resource's many spans into several ResourceSpans, so that the OTLP sinks' requests keep to batch_size and to 4 MiB", () => {
    // 4,096 spans of one service with a 1.5 KB attribute (a backfill's batch): 6.5 MB, which a collector's gRPC
    // receiver (4 MiB) refused as one request.
    const query = { 'db.query.text': 'x'.repeat(1500) };
    const config = traceConfig({
      root: { service: 'a', operation: 'op', kind: 'server', duration: 0.001, attributes: query },
    });
    const batch = spanBatch(
      config,
      ticksAt(
        Array.from({ length: 4096 }, (_, n) => n),
        1000,
      ),
    );
    const requests = otlpRequests(OTLP_DEFAULTS.batchSize, {}, 'traces')([otlpTraces().encode(batch)]);
    const spans = requests.map((request) =>
      decode(request.body).resource_spans.reduce((n: number, r: Json) => n + r.scope_spans[0].spans.length, 0),
    );
    expect(spans.reduce((a, b) => a + b)).to.equal(4096);
    expect(Math.max(...spans)).to.be.at.most(1000);
    expect(Math.max(...requests.map((request) => request.body.length))).to.be.at.most(4 * 1024 * 1024);
  });
});
