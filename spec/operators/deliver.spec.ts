import { expect } from 'chai';
import { Subject } from 'rxjs';
import { deliver, type Delivery } from '../../operators/deliver.js';
import type { EncodedBatch } from '../../operators/batch.js';
import { chunk } from '../support/batches.js';
import { MemorySink } from '../support/sinks.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

function harness(sink: MemorySink, onError: 'warn' | 'fail' = 'warn') {
  const source = new Subject<EncodedBatch>();
  const pressure: boolean[] = [];
  const out: Delivery[] = [];
  const end: { completed?: boolean; error?: unknown } = {};
  source.pipe(deliver(sink, { onError, backpressure: { next: (v) => pressure.push(v) } })).subscribe({
    next: (d) => out.push(d),
    complete: () => (end.completed = true),
    error: (e) => (end.error = e),
  });
  return { source, pressure, out, end };
}

describe('deliver', () => {
  it('writes chunks in order and reports events and UTF-8 bytes', () => {
    const sink = new MemorySink();
    const { source, out } = harness(sink);
    source.next(chunk('a\n', 1));
    source.next(chunk('é\n', 2));
    expect(sink.text).to.equal('a\né\n');
    expect(out).to.deep.equal([{ size: 1, bytes: 2 }, { size: 2, bytes: 3 }]);
  });

  it('holds the source back while the sink is slow and keeps order', async () => {
    const sink = new MemorySink();
    const { source, pressure, out } = harness(sink);
    sink.hold();
    source.next(chunk('1'));
    source.next(chunk('2'));
    expect(pressure).to.deep.equal([true]);
    expect(sink.chunks).to.deep.equal(['1']);
    sink.release();
    await settle();
    expect(sink.chunks).to.deep.equal(['1', '2']);
    expect(pressure).to.deep.equal([true, false]);
    expect(out).to.have.length(2);
  });

  it('flushes after the last pending write, then completes', async () => {
    const sink = new MemorySink();
    const { source, end } = harness(sink);
    sink.hold();
    source.next(chunk('1'));
    source.complete();
    await settle();
    expect(sink.flushes).to.equal(0);
    expect(end.completed).to.equal(undefined);
    sink.release();
    await settle();
    expect(sink.flushes).to.equal(1);
    expect(end.completed).to.equal(true);
  });

  it('under warn reports a failed chunk and keeps writing', () => {
    const sink = new MemorySink();
    const { source, out, end } = harness(sink, 'warn');
    sink.failWith = new Error('connection refused');
    source.next(chunk('1', 5));
    sink.failWith = undefined;
    source.next(chunk('2'));
    expect(out[0]!.error!.message).to.equal('connection refused');
    expect(out[0]!.size).to.equal(5);
    expect(out[1]).to.deep.equal({ size: 1, bytes: 1 });
    expect(end.error).to.equal(undefined);
  });

  it('under fail errors the stream on the first failure', () => {
    const sink = new MemorySink();
    const { source, out, end } = harness(sink, 'fail');
    sink.failWith = new Error('connection refused');
    source.next(chunk('1'));
    expect(out).to.deep.equal([]);
    expect((end.error as Error).message).to.equal('connection refused');
  });
});
