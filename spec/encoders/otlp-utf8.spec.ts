import { expect } from 'chai';
import { otlpLogs, otlpMetrics } from '../../lib/encoders/otlp.js';
import { otlpTraces } from '../../lib/encoders/otlp-traces.js';
import { createRequire } from 'node:module';
import { seriesOf } from '../../operators/model/series.js';
import { logBatch, sampleBatch } from '../support/batches.js';
import { spanBatch, ticksAt, traceConfig } from '../support/trace-generators.js';

/**
 * Lone surrogates in what a scenario writes reach OTLP as U+FFFD (its UTF-8 EF BF BD), as a text encoder writes
 * them: protobufjs wrote their three CESU-8 bytes (ED A0 80 for \ud800), which are no UTF-8, and a receiver that
 * checks UTF-8 (the collector's, Go's protobuf) refuses the whole request for one of them.
 */
/** The official decoders of opentelemetry-proto (the OpenTelemetry JS SDK's), as a collector reads OTLP. */
const proto = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js')
  .opentelemetry.proto;
interface Decoder {
  decode(bytes: Uint8Array): object;
  toObject(message: object): object;
}

describe('OTLP encoders: lone surrogates', () => {
  /** Every string a message holds, decoded by protobufjs: a lone surrogate in one means it read CESU-8. */
  const strings = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value]
      : value && typeof value === 'object' && !ArrayBuffer.isView(value)
        ? Object.values(value).flatMap(strings)
        : [];

  /**
   * The strings of the message are UTF-8 (a strict decoder takes each) and hold `expected` where the lone halves
   * were. ED A0..BF is a surrogate's CESU-8 lead, the only ill-formed UTF-8 protobufjs writes; its reader decodes
   * it back to the lone surrogate.
   */
  function expectUtf8(bytes: Uint8Array, message: Decoder, expected: readonly string[]): void {
    const cesu = bytes.findIndex((b, i) => b === 0xed && (bytes[i + 1]! & 0xe0) === 0xa0);
    expect(cesu, 'a surrogate written as CESU-8').to.equal(-1);
    const decoded = strings(message.toObject(message.decode(bytes)));
    const strict = new TextDecoder('utf-8', { fatal: true });
    for (const text of decoded) expect(strict.decode(Buffer.from(text))).to.equal(text);
    expect(decoded.filter((text) => /[\ud800-\udfff]/.test(text))).to.deep.equal([]);
    for (const text of expected) expect(decoded).to.include(text);
  }

  it('metrics: a label name and value, the help and the unit', () => {
    for (const metricType of ['gauge', 'counter'] as const) {
      const chunk = otlpMetrics({ name: 'm', metricType, help: 'half \ud800', unit: 'u\udc00' }).encode(
        sampleBatch({ values: [1], series: seriesOf({ 'k\ud800': 'a\udc00b' }) }),
      );
      expectUtf8(chunk.data, proto.metrics.v1.ScopeMetrics, ['k\ufffd', 'a\ufffdb', 'half \ufffd', 'u\ufffd']);
    }
  });

  it('logs: the body, a field and a label', () => {
    // A fixed observed time: the wall clock's nanoseconds, written as bytes, hold ED A0..BF now and then (one run in
    // a few hundred), which the scan for CESU-8 cannot tell from a surrogate's lead.
    const chunk = otlpLogs({ observedAt: () => 1_764_518_400_000 }).encode(
      logBatch([{ severity: 'info', message: 'a\ud800b', fields: { f: 'x\udc00' }, labels: { l: '\ud800y' } }]),
    );
    expectUtf8(chunk.data, proto.logs.v1.ScopeLogs, ['a\ufffdb', 'x\ufffd', '\ufffdy']);
  });

  it("traces: a span's name, status message and attributes, and a resource attribute", () => {
    const batch = spanBatch(
      traceConfig({
        seed: 1,
        services: { 'shop\ud800': { attributes: { region: 'v\ud800' } } },
        root: {
          service: 'shop\ud800',
          operation: 'GET \ud800',
          kind: 'server',
          error_rate: 1,
          attributes: { note: 'b\ud800', user: { cardinality: 3, prefix: 'p\ud800' } },
        },
      }),
      ticksAt([0]),
    );
    const chunk = otlpTraces().encode(batch);
    expectUtf8(chunk.data, proto.collector.trace.v1.ExportTraceServiceRequest, [
      'GET \ufffd',
      'GET \ufffd failed',
      'b\ufffd',
      'shop\ufffd',
      'v\ufffd',
    ]);
  });
});
