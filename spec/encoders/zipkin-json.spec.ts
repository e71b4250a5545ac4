import { expect } from 'chai';
import { zipkinBody, zipkinBodyOfRuns, zipkinJson } from '../../lib/encoders/zipkin-json.js';
import { recordOf, selectTicks } from '../../operators/model/batch.js';
import { SPAN_STATUS } from '../../operators/model/span.js';
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

const micros = (ns: bigint) => Number(ns / 1000n);

/** The Zipkin v2 span a span must become. */
function expectedSpan(row: SpanRow, rows: readonly SpanRow[]): Record<string, unknown> {
  const start = micros(epochNanos({ anchor: T0 }, row.start));
  const end = micros(epochNanos({ anchor: T0 }, row.end));
  const { 'service.name': _service, ...resource } = row.resource;
  const callee = rows.find((r) => r.parentRow === row.row || r.link?.spanId === row.spanId);
  const remote = (row.kind === 'client' || row.kind === 'producer') && callee && callee.service !== row.service;
  const tags = Object.fromEntries(
    Object.entries({ ...resource, ...withErrorType(row) }).map(([k, v]) => [k, String(v)]),
  );
  if (row.status === SPAN_STATUS.error) tags.error = `${row.name} failed`;
  if (row.status === SPAN_STATUS.failedCall) tags.error = 'true';
  return {
    traceId: row.traceId,
    id: row.spanId,
    ...(row.parentId && { parentId: row.parentId }),
    name: row.name,
    ...(row.kind !== 'internal' && { kind: row.kind.toUpperCase() }),
    timestamp: start,
    duration: Math.max(1, end - start),
    localEndpoint: { serviceName: row.service },
    ...(remote && { remoteEndpoint: { serviceName: callee.service } }),
    tags,
    ...(row.status === SPAN_STATUS.error && { annotations: [{ timestamp: end, value: 'exception' }] }),
  };
}

describe('zipkinJson', () => {
  it('writes a batch as one Zipkin v2 array of every span generated', () => {
    const batch = everyFeature();
    const rows = spanRows(batch);
    const chunk = zipkinJson().encode(batch);
    const spans = JSON.parse(chunk.data.toString());
    expect(spans).to.deep.equal(rows.map((row) => expectedSpan(row, rows)));
    expect(spans.some((span: { kind?: string }) => span.kind === undefined)).to.equal(true);
    expect(spans.some((span: { remoteEndpoint?: unknown }) => span.remoteEndpoint)).to.equal(true);
    expect(spans.some((span: { tags: { error?: string } }) => span.tags.error === 'true')).to.equal(true);
    expect(chunk.size).to.equal(rows.length);
    // Record i is span i and the comma or bracket after it; the first also holds the opening bracket.
    expect(JSON.parse(recordOf(chunk, 3).toString())).to.deep.equal(spans[3]);
    expect(recordOf(chunk, 0).toString()[0]).to.equal('[');
  });

  it("writes each tag key once: the span's attribute over the resource's, a failure's `error` and `error.type` over others", () => {
    const batch = spanBatch(
      traceConfig({
        seed: 3,
        services: {
          api: {
            attributes: { region: 'eu', zone: 'a', error: 'resource', 'error.type': 'resource' },
            pods: { count: 2 },
          },
          db: { attributes: { region: 'eu', error: 'resource', 'error.type': 'resource' } },
        },
        root: {
          service: 'api',
          operation: 'GET /',
          kind: 'server',
          error_rate: 0.5,
          attributes: { region: 'us', error: 'no', zone: { one_of: ['b', 'c'] } },
          calls: [{ service: 'db', operation: 'SELECT', kind: 'client', duration: 0.001, error_rate: 0.5 }],
        },
      }),
      ticksAt(Array.from({ length: 24 }, (_, i) => i)),
    );
    const rows = spanRows(batch);
    const text = zipkinJson().encode(batch).data.toString();
    const spans = JSON.parse(text);
    // A repeated key would be lost in the parse: the text is then longer than the JSON of what it parses to.
    expect(`${JSON.stringify(spans)}\n`).to.equal(text);
    expect(spans).to.deep.equal(rows.map((row) => expectedSpan(row, rows)));
    // Each service's spans ok and in error, and a failed call.
    expect(new Set(rows.map((row) => `${row.service} ${row.status}`))).to.include.all.keys(
      ...['api', 'db'].flatMap((service) => [SPAN_STATUS.unset, SPAN_STATUS.error].map((s) => `${service} ${s}`)),
      `api ${SPAN_STATUS.failedCall}`,
    );
  });

  it('writes an `error.type` tag on every span in error: its status code of 400 or more, else its exception type', () => {
    const batch = errorTypeSpans();
    const rows = spanRows(batch);
    expect(errorTypeCases(rows)).to.deep.equal(ERROR_TYPE_CASES);
    const text = zipkinJson().encode(batch).data.toString();
    const spans = JSON.parse(text);
    expect(`${JSON.stringify(spans)}\n`).to.equal(text);
    expect(spans).to.deep.equal(rows.map((row) => expectedSpan(row, rows)));
  });

  it('joins the arrays of several chunks into one request body, and writes an empty array for none', () => {
    const batch = everyFeature(6);
    const encoder = zipkinJson();
    const chunks = [selectTicks(batch, [0, 1]), selectTicks(batch, []), selectTicks(batch, [4])].map((b) =>
      encoder.encode(b),
    );
    expect(chunks[1]!.bytes).to.equal(0);
    const joined = JSON.parse(zipkinBody(chunks).toString());
    expect(joined).to.deep.equal(chunks.flatMap((chunk) => (chunk.bytes ? JSON.parse(chunk.data.toString()) : [])));
    expect(joined.map((span: { id: string }) => span.id)).to.deep.equal(
      spanRows(selectTicks(batch, [0, 1, 4])).map((row) => row.spanId),
    );
    expect(zipkinBody([]).toString()).to.equal('[]\n');
  });

  it('joins runs of a chunk cut between spans (an HTTP request within its size) into arrays of their spans', () => {
    const chunk = zipkinJson().encode(everyFeature(6));
    const { ends } = chunk.frames;
    expect(ends.length).to.be.above(3);
    const cut = (from: number, to: number) => chunk.data.subarray(from === 0 ? 0 : ends[from - 1]!, ends[to - 1]!);
    const whole = JSON.parse(chunk.data.toString());
    // The head keeps the chunk's `[`, the middle neither bracket, the tail its `]` and line feed.
    const parts = [cut(0, 1), cut(1, 3), cut(3, ends.length)].map((run) =>
      JSON.parse(zipkinBodyOfRuns([run]).toString()),
    );
    expect(parts).to.deep.equal([whole.slice(0, 1), whole.slice(1, 3), whole.slice(3)]);
    expect(JSON.parse(zipkinBodyOfRuns([cut(1, 3), cut(0, 1)]).toString())).to.deep.equal([
      ...whole.slice(1, 3),
      whole[0],
    ]);
  });
});
