import { expect } from 'chai';
import { otlpMetrics } from '../../lib/encoders/otlp.js';
import { remoteWrite } from '../../lib/encoders/remote-write.js';
import type { EncodedBatch, Labelled, SampleBatch } from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';

/** A batch of `rows` short rows (about 40 bytes of labels each), as a metric entry with a `pod` label writes them. */
function podBatch(rows: number, anchor: number): Labelled<SampleBatch> {
  const pods = Array.from({ length: 50 }, (_, n) => seriesOf({ __name__: 'm', pod: `pod-${n}` }));
  return sampleBatch({
    anchor,
    values: Array.from({ length: rows }, (_, i) => i),
    series: Array.from({ length: rows }, (_, i) => pods[i % pods.length]!),
  });
}

/** The memory a chunk's data keeps alive while a sink holds it: its whole buffer, not the view of it. */
function heldBytes(chunk: EncodedBatch): number {
  return typeof chunk.data === 'string' ? chunk.bytes : chunk.data.buffer.byteLength;
}

describe('binary encoders: what a chunk holds', () => {
  // A sink's bound counts `bytes`: a buffer guessed three times too large made a remote_write sink held back
  // by its receiver hold 10 MiB for its 4 MiB (docs/reliability.md, "Receivers that push back").
  const encoders = {
    remote_write: () => remoteWrite({ name: 'm' }),
    otlp: () => otlpMetrics({ name: 'm', metricType: 'gauge' }),
  };
  for (const [name, make] of Object.entries(encoders)) {
    it(`${name}: from the second batch on, a chunk's buffer is its bytes and a few bytes a row`, () => {
      const encoder = make();
      // Rows many enough that the buffer is one of its own, not cut from Node's pool slab.
      encoder.encode(podBatch(1000, 0));
      const chunk = encoder.encode(podBatch(1000, 1000));
      expect(chunk.bytes).to.be.above(0);
      expect(heldBytes(chunk)).to.be.at.most(chunk.bytes + 16 * 1000);
    });
  }
});
