import { expect } from 'chai';
import type { EncodedBatch } from '../../../operators/model/batch.js';
import { recordBytes, recordRequests } from '../../../lib/sinks/framing/record-requests.js';

/** A chunk of one-byte records `names`, with the frames given (`perEvent`, `events`). */
function chunk(names: string, frames: { perEvent?: number; events?: number[] } = {}): EncodedBatch {
  const data = Buffer.from(names);
  const ends = [...names].map((_, i) => i + 1);
  const perEvent = frames.perEvent ?? 1;
  return {
    size: frames.events ? frames.events.reduce((a, b) => a + b, 0) : names.length / perEvent,
    data,
    bytes: data.length,
    frames: { ends, separator: 0, perEvent, series: [], anchor: 0, offset: new Float64Array(names.length), ...frames },
  };
}

const cut = (limit: number, chunks: EncodedBatch[], maxBytes?: number) =>
  recordRequests(
    limit,
    (runs) => Buffer.concat(runs.map(recordBytes)),
    maxBytes,
  )(chunks).map((request) => ({
    body: Buffer.from(request.body).toString(),
    size: request.size,
  }));

describe('recordRequests', () => {
  it('cuts at most `limit` records a request, at event boundaries', () => {
    expect(cut(4, [chunk('abcdef', { perEvent: 2 }), chunk('gh', { perEvent: 2 })])).to.deep.equal([
      { body: 'abcd', size: 2 },
      { body: 'efgh', size: 2 },
    ]);
  });

  it('counts a record that holds several events (an OTLP ResourceSpans) as its events, and never splits it', () => {
    expect(cut(5, [chunk('abc', { events: [3, 2, 4] }), chunk('d', { events: [7] })])).to.deep.equal([
      { body: 'ab', size: 5 },
      { body: 'c', size: 4 },
      { body: 'd', size: 7 },
    ]);
  });

  it('cuts at most `maxBytes` bytes of records a request, at event boundaries, and at least one event', () => {
    expect(
      cut(100, [chunk('abcdef', { perEvent: 2 }), chunk('ghij', { perEvent: 2 }), chunk('klmnop', { perEvent: 6 })], 5),
    ).to.deep.equal([
      { body: 'abcd', size: 2 },
      { body: 'efgh', size: 2 },
      { body: 'ij', size: 1 },
      { body: 'klmnop', size: 1 },
    ]);
    expect(cut(100, [chunk('abc', { events: [1, 1, 1] })], 2)).to.deep.equal([
      { body: 'ab', size: 2 },
      { body: 'c', size: 1 },
    ]);
  });
});
