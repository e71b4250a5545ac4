import { expect } from 'chai';
import { jsonLinesLogs } from '../../lib/encoders/json-lines-logs.js';
import { otlpMetrics } from '../../lib/encoders/otlp.js';
import { remoteWrite } from '../../lib/encoders/remote-write.js';
import { lokiPushes } from '../../lib/sinks/framing/loki-push.js';
import { remoteWriteV2Requests } from '../../lib/sinks/framing/remote-write-v2.js';
import type { EncodedBatch } from '../../operators/model/batch.js';
import { seriesOf, type Series } from '../../operators/model/series.js';
import { logBatch, sampleBatch } from '../support/batches.js';

/** A series whose labels count their reads: what an encoder made of it once and kept, it reads no more. */
function watched(transient: boolean): { series: Series; reads: () => number } {
  const plain = seriesOf({ user: 'user_7' });
  let reads = 0;
  const series: Series = {
    get labels() {
      reads++;
      return plain.labels;
    },
    key: plain.key,
    ...(transient && { transient }),
  };
  return { series, reads: () => reads };
}

const encoders: Record<string, (series: Series) => unknown> = {
  'remote_write encoder': (() => {
    const encoder = remoteWrite({ name: 'm' });
    return (series: Series) => encoder.encode(sampleBatch({ values: [1], anchor: Date.UTC(2026, 0, 1), series }));
  })(),
  'otlp encoder': (() => {
    const encoder = otlpMetrics({ name: 'm' });
    return (series: Series) => encoder.encode(sampleBatch({ values: [1], anchor: Date.UTC(2026, 0, 1), series }));
  })(),
  'json_lines log encoder': (() => {
    const encoder = jsonLinesLogs();
    return (series: Series) => encoder.encode({ ...logBatch([{ severity: 'info', message: 'hi' }]), series: [series] });
  })(),
  'remote write 2.0 requests': (() => {
    const requests = remoteWriteV2Requests((data) => data);
    // An encoder for a 2.0 sink: only its chunks carry the rows a 2.0 request is written from.
    const encoder = remoteWrite({ name: 'm', remoteWriteProtocol: '2.0' });
    // Each series' chunk encoded once: the reads counted after it are the requests' own.
    const chunks = new Map<Series, EncodedBatch>();
    const chunkOf = (series: Series) =>
      chunks.get(series) ??
      chunks
        .set(series, encoder.encode(sampleBatch({ values: [1], anchor: Date.UTC(2026, 0, 1), series })) as EncodedBatch)
        .get(series)!;
    return (series: Series) => requests([{ chunk: chunkOf(series), from: 0, to: 1 }]);
  })(),
  'logstore push bodies': (() => {
    const pushes = lokiPushes(128);
    const encoder = jsonLinesLogs();
    return (series: Series) =>
      pushes([
        encoder.encode({ ...logBatch([{ severity: 'info', message: 'hi' }]), series: [series] }) as EncodedBatch,
      ]);
  })(),
};

// Past interning (65,536 label sets) every tick has a series of its own: kept per series, each would cost a
// weak map entry at every event of a high-cardinality entry, and be met no more.
describe('encoders and transient series (past interning)', () => {
  for (const [name, encode] of Object.entries(encoders)) {
    it(`${name}: keeps what it made of an interned series, and nothing of a transient one`, () => {
      // Another series between the two meetings: none is taken for the one just written.
      const other = seriesOf({ user: 'user_8' });
      const interned = watched(false);
      encode(interned.series);
      const once = interned.reads();
      expect(once).to.be.greaterThan(0);
      encode(other);
      encode(interned.series);
      expect(interned.reads(), 'interned: made once').to.equal(once);

      const transient = watched(true);
      encode(transient.series);
      const first = transient.reads();
      encode(other);
      encode(transient.series);
      expect(transient.reads(), 'transient: made again').to.be.greaterThan(first);
    });
  }
});
