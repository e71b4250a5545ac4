import { expect } from 'chai';
import { jsonLinesTraces } from '../../lib/encoders/json-lines-traces.js';
import { errorTypesOf } from '../../lib/encoders/spans.js';
import { VERSION } from '../../lib/version.js';
import { NODE } from '../support/span-batches.js';
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

/** RFC 3339 UTC with nanoseconds of epoch nanoseconds, written independently of the encoder. */
function rfc3339(ns: bigint): string {
  const seconds = new Date(Number(ns / 1_000_000_000n) * 1000).toISOString().slice(0, 19);
  return `${seconds}.${String(ns % 1_000_000_000n).padStart(9, '0')}Z`;
}

/** The line a span must become, as an object with its fields in order. */
function expectedLine(row: SpanRow, anchor: number): Record<string, unknown> {
  const end = rfc3339(epochNanos({ anchor }, row.end));
  return {
    trace_id: row.traceId,
    span_id: row.spanId,
    ...(row.parentId && { parent_span_id: row.parentId }),
    service: row.service,
    name: row.name,
    kind: row.kind,
    start: rfc3339(epochNanos({ anchor }, row.start)),
    end,
    status: row.status === SPAN_STATUS.unset ? 'unset' : 'error',
    attributes: withErrorType(row),
    resource: row.resource,
    ...(row.flags === 0 && { sampled: false }),
    ...(row.status === SPAN_STATUS.error && {
      events: [
        {
          name: 'exception',
          time: end,
          attributes: { 'exception.type': 'Error', 'exception.message': `${row.name} failed` },
        },
      ],
    }),
    ...(row.link && { links: [{ trace_id: row.link.traceId, span_id: row.link.spanId }] }),
  };
}

describe('jsonLinesTraces', () => {
  it('writes one span a line, its fields in order, times with nanoseconds', () => {
    const config = traceConfig({
      root: {
        service: 'frontend',
        operation: 'GET /',
        kind: 'server',
        duration: 0.0200000015,
        attributes: { 'http.route': '/' },
      },
    });
    const batch = spanBatch(config, ticksAt([3]));
    const [row] = spanRows(batch);
    expect(jsonLinesTraces().encode(batch).data.toString()).to.equal(
      `{"trace_id":"${row!.traceId}","span_id":"${row!.spanId}","service":"frontend","name":"GET /","kind":"server",` +
        '"start":"2024-01-01T00:00:00.300000000Z","end":"2024-01-01T00:00:00.320000002Z","status":"unset",' +
        '"attributes":{"http.route":"/"},"resource":{"service.name":"frontend",' +
        '"service.instance.id":"85f0c8d7-5045-57e2-85b6-85b0cfb9087f","telemetry.sdk.name":"svc",' +
        `"telemetry.sdk.language":"nodejs","telemetry.sdk.version":"${VERSION}"}}\n`,
    );
  });

  it('writes every span generated: parent, typed attributes, resource, and when they apply sampled, events and links', () => {
    const batch = everyFeature();
    const chunk = jsonLinesTraces().encode(batch);
    const { data, size, frames } = chunk;
    const rows = spanRows(batch);
    const lines = data.toString().split('\n');
    expect(lines.pop()).to.equal('');
    expect(lines.map((line) => JSON.parse(line))).to.deep.equal(rows.map((row) => expectedLine(row, T0)));
    // Field order, as written (deep equality ignores it).
    for (const [i, line] of lines.entries())
      expect(Object.keys(JSON.parse(line))).to.deep.equal(Object.keys(expectedLine(rows[i]!, T0)));
    expect(lines.some((line) => line.includes('"events"') && line.includes('"sampled":false'))).to.equal(true);
    expect(lines.some((line) => line.includes('"links"'))).to.equal(true);
    expect(size).to.equal(rows.length);
    expect(frames.ends).to.have.length(rows.length);
    expect(Buffer.from(recordOf(chunk, 5)).toString()).to.equal(lines[5]);
    expect(frames.series[0]!.labels).to.deep.equal({
      'service.name': 'frontend',
      'service.version': '2.4.1',
      'service.instance.id': 'cbbc6cee-07fc-5eff-a8d6-c430c95475f9',
      'deployment.environment.name': 'prod',
      'telemetry.sdk.name': 'svc',
      'telemetry.sdk.language': 'nodejs',
      'telemetry.sdk.version': VERSION,
      'k8s.pod.name': 'frontend-0-0',
      'host.cores': '8',
    });
    expect(frames.offset[1]).to.equal(rows[1]!.start / 1e6);
  });

  it('writes `error.type` on every span in error: its status code of 400 or more, else its exception type', () => {
    const batch = errorTypeSpans();
    const rows = spanRows(batch);
    expect(errorTypeCases(rows)).to.deep.equal(ERROR_TYPE_CASES);
    const lines = jsonLinesTraces().encode(batch).data.toString().trim().split('\n');
    expect(lines.map((line) => JSON.parse(line))).to.deep.equal(rows.map((row) => expectedLine(row, T0)));
    // Each key once: a span that sets `error.type` itself keeps its own.
    for (const line of lines) expect(line.split('"error.type"').length).to.be.at.most(2);
    // No type known: the semantic conventions' fallback.
    expect(errorTypesOf({ ...NODE, exception: { type: '', message: 'failed' } }).values).to.deep.equal(['_OTHER']);
  });

  it('writes only the traces of the ticks a gap or gate kept, and nothing for none', () => {
    const batch = everyFeature(4);
    const kept = selectTicks(batch, [1, 3]);
    const lines = jsonLinesTraces().encode(kept).data.toString().trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).span_id)).to.deep.equal(spanRows(kept).map((row) => row.spanId));
    expect(new Set(spanRows(kept).map((row) => row.tick))).to.deep.equal(new Set([1, 3]));
    const none = jsonLinesTraces().encode(selectTicks(batch, []));
    expect([none.size, none.bytes, none.frames.ends]).to.deep.equal([0, 0, []]);
  });
});
