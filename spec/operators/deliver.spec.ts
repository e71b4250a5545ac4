import { expect } from 'chai';
import { lastValueFrom, Subject, toArray } from 'rxjs';
import { deliver, type Delivery, type Sink } from '../../operators/deliver.js';
import type { EncodedBatch } from '../../operators/model/batch.js';
import { chunk } from '../support/batches.js';
import { settle } from '../support/clock.js';
import { MemorySink, ReportingSink } from '../support/sinks.js';

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
    // A sink without reports counts as delivered as soon as the write returned.
    expect(out).to.deep.equal([
      { kind: 'written', size: 1, bytes: 2 },
      { kind: 'delivered', size: 1, bytes: 2 },
      { kind: 'written', size: 2, bytes: 3 },
      { kind: 'delivered', size: 2, bytes: 3 },
    ]);
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
    expect(out.filter((d) => d.kind === 'written')).to.have.length(2);
  });

  it('errors the stream with what its backpressure observer throws once a slow write is released', async () => {
    const sink = new MemorySink();
    const broken = new Error('the backpressure observer broke');
    const source = new Subject<EncodedBatch>();
    const end: { error?: unknown } = {};
    const rejections: unknown[] = [];
    const rejected = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', rejected);
    try {
      source
        .pipe(
          deliver(sink, {
            backpressure: {
              next: (waiting) => {
                if (!waiting) throw broken;
              },
            },
          }),
        )
        .subscribe({ error: (e) => (end.error = e) });
      sink.hold();
      source.next(chunk('1'));
      sink.release();
      await settle();
      await settle();
    } finally {
      process.off('unhandledRejection', rejected);
    }
    expect(rejections).to.deep.equal([]);
    expect(end.error).to.equal(broken);
  });

  it('flushes after the last pending write, then completes', async () => {
    const sink = new MemorySink();
    const { source, end } = harness(sink);
    source.next(chunk('1'));
    source.complete();
    await settle();
    expect(sink.flushes).to.equal(1);
    expect(end.completed).to.equal(true);
  });

  it('on completion while the sink holds the chain back, flushes at once too, then again after the last write', async () => {
    const sink = new MemorySink();
    const { source, end } = harness(sink);
    sink.hold();
    source.next(chunk('1'));
    source.next(chunk('2'));
    source.complete();
    await settle();
    // The early flush starts a stalled destination's flush timeout without waiting for it.
    expect(sink.flushes).to.equal(1);
    expect(end.completed).to.equal(undefined);
    sink.release();
    await settle();
    expect(sink.chunks).to.deep.equal(['1', '2']);
    expect(sink.flushes).to.equal(2);
    expect(end.completed).to.equal(true);
  });

  it('under warn reports a failed chunk, handed to the sink and refused, and keeps writing', () => {
    const sink = new MemorySink();
    const { source, out, end } = harness(sink, 'warn');
    sink.failWith = new Error('connection refused');
    source.next(chunk('1', 5));
    sink.failWith = undefined;
    source.next(chunk('2'));
    expect(out[0]).to.deep.equal({ kind: 'written', size: 5, bytes: 1 });
    expect(out[1]).to.deep.include({ kind: 'failed', size: 5 });
    expect((out[1] as { error: Error }).error.message).to.equal('connection refused');
    expect(out[2]).to.deep.equal({ kind: 'written', size: 1, bytes: 1 });
    expect(end.error).to.equal(undefined);
  });

  it('with close, closes the sink once the source completes and counts what the close lost once', async () => {
    const sink = new MemorySink();
    const lost = new Error('file sink: cannot close /tmp/out: EIO');
    sink.close = async () => {
      sink.closes++;
      throw lost;
    };
    const source = new Subject<EncodedBatch>();
    const out: Delivery[] = [];
    source.pipe(deliver(sink, { close: true })).subscribe((d) => out.push(d));
    source.next(chunk('1'));
    source.complete();
    await settle();
    expect(sink.closed).to.equal(true);
    expect(out.filter((d) => d.kind === 'failed')).to.deep.equal([{ kind: 'failed', size: 0, bytes: 0, error: lost }]);
  });

  it('with close, closes the sink when unsubscribed before its source completed (a take after it), once', async () => {
    const run = async (options: { close?: boolean }, leave: 'early' | 'after completion') => {
      const sink = new MemorySink();
      const source = new Subject<EncodedBatch>();
      const subscription = source.pipe(deliver(sink, options)).subscribe();
      source.next(chunk('1'));
      if (leave === 'after completion') {
        source.complete();
        await settle();
      }
      subscription.unsubscribe();
      await settle();
      return { closes: sink.closes, flushes: sink.flushes };
    };
    // Left open, a sink keeps its sockets and timers, and what it buffered is never sent.
    expect(await run({ close: true }, 'early')).to.deep.equal({ closes: 1, flushes: 1 });
    expect(await run({ close: true }, 'after completion')).to.deep.equal({ closes: 1, flushes: 1 });
    // Without close the sink stays the caller's.
    expect(await run({}, 'early')).to.deep.equal({ closes: 0, flushes: 0 });
  });

  it('with close, a close on unsubscribing that throws or rejects reaches no one, not the caller of unsubscribe', async () => {
    const rejections: unknown[] = [];
    const rejected = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', rejected);
    try {
      for (const close of [
        () => {
          throw new Error('close threw');
        },
        () => Promise.reject(new Error('close rejected')),
      ]) {
        const sink = Object.assign(new MemorySink(), { close });
        const source = new Subject<EncodedBatch>();
        const subscription = source.pipe(deliver(sink, { close: true })).subscribe();
        source.next(chunk('1'));
        expect(() => subscription.unsubscribe()).not.to.throw();
        await settle();
      }
    } finally {
      process.off('unhandledRejection', rejected);
    }
    expect(rejections).to.deep.equal([]);
  });

  it('under fail errors the stream on the first failure', () => {
    const sink = new MemorySink();
    const { source, out, end } = harness(sink, 'fail');
    sink.failWith = new Error('connection refused');
    source.next(chunk('1'));
    expect(out).to.deep.equal([
      { kind: 'written', size: 1, bytes: 1 },
      { kind: 'failed', size: 1, bytes: 1, error: sink.failWith },
    ]);
    expect(end.error).to.equal(sink.failWith);
  });

  it("errors the stream, naming the method, when a sink's write or flush returns neither nothing nor a promise", async () => {
    const outcome = async (sink: Sink): Promise<unknown> => {
      const source = new Subject<EncodedBatch>();
      const done = lastValueFrom(source.pipe(deliver(sink), toArray())).catch((error: unknown) => error);
      source.next(chunk('a\n'));
      source.complete();
      return done;
    };
    const streamLike = { write: () => true, flush: async () => {}, close: async () => {} };
    expect(await outcome(streamLike as unknown as Sink))
      .to.be.an.instanceOf(TypeError)
      .with.property('message', 'deliver: what sink.write() returns must be a promise, got true');
    const syncFlush = { write: () => undefined, flush: () => undefined, close: async () => {} };
    expect(await outcome(syncFlush as unknown as Sink))
      .to.be.an.instanceOf(TypeError)
      .with.property('message', 'deliver: what sink.flush() returns must be a promise, got undefined');
  });

  describe('with a sink that reports later', () => {
    it('counts a write as written only, and forwards acknowledgements and retries', () => {
      const sink = new ReportingSink();
      const { source, out } = harness(sink);
      source.next(chunk('a\n', 1));
      expect(out).to.deep.equal([{ kind: 'written', size: 1, bytes: 2 }]);
      const retry = { kind: 'retrying', attempt: 1, delay: 50, error: new Error('503') } as const;
      sink.reports.next(retry);
      sink.reports.next({ kind: 'delivered', size: 1, bytes: 2 });
      expect(out.slice(1)).to.deep.equal([retry, { kind: 'delivered', size: 1, bytes: 2 }]);
    });

    it('under warn reports a later failure once, even when flush rejects with it again', async () => {
      const sink = new ReportingSink();
      const { source, out, end } = harness(sink, 'warn');
      const lost = new Error('tcp sink: connection refused');
      source.next(chunk('a\n', 3));
      sink.reports.next({ kind: 'failed', size: 3, bytes: 2, error: lost });
      sink.flushError = lost;
      source.complete();
      await settle();
      expect(out.filter((d) => d.kind === 'failed')).to.deep.equal([
        { kind: 'failed', size: 3, bytes: 2, error: lost },
      ]);
      expect(end.completed).to.equal(true);
    });

    it('counts every report of lost events, when one error lost several chunks', async () => {
      const sink = new ReportingSink();
      const { source, out } = harness(sink, 'warn');
      const refused = new Error('udp sink: connection refused');
      source.next(chunk('a\n', 2));
      source.next(chunk('b\n', 3));
      sink.reports.next({ kind: 'failed', size: 2, bytes: 2, error: refused });
      sink.reports.next({ kind: 'failed', size: 3, bytes: 2, error: refused });
      sink.flushError = refused;
      source.complete();
      await settle();
      expect(out.filter((d) => d.kind === 'failed').map((d) => d.size)).to.deep.equal([2, 3]);
    });

    it('counts a write thrown with the reported error as its own loss, and the flush rejecting with it as none', async () => {
      const sink = new ReportingSink();
      const { source, out } = harness(sink, 'warn');
      const full = new Error('file sink: no space left on device');
      source.next(chunk('a\n', 2));
      sink.reports.next({ kind: 'failed', size: 2, bytes: 2, error: full });
      sink.failWith = full;
      source.next(chunk('b\n', 3));
      sink.flushError = full;
      source.complete();
      await settle();
      expect(out.filter((d) => d.kind === 'failed').map((d) => d.size)).to.deep.equal([2, 3]);
    });

    it('under fail errors the stream on a reported failure, without waiting for another write', () => {
      const sink = new ReportingSink();
      const { source, end } = harness(sink, 'fail');
      source.next(chunk('a\n'));
      sink.reports.next({ kind: 'failed', size: 1, bytes: 2, error: new Error('http_push sink: 400') });
      expect((end.error as Error).message).to.equal('http_push sink: 400');
    });

    it('stops listening to the sink once it completed', async () => {
      const sink = new ReportingSink();
      const { source } = harness(sink);
      expect(sink.reports.observed).to.equal(true);
      source.complete();
      await settle();
      expect(sink.reports.observed).to.equal(false);
    });
  });
});
