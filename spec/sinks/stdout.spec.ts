import { expect } from 'chai';
import { Writable } from 'node:stream';
import { chunk } from '../support/batches.js';
import { stdoutSink } from '../../lib/sinks/stdout.js';
import { SinkError } from '../../lib/sinks/core/errors.js';
import type { SinkReport } from '../../operators/deliver.js';
import { failingWritable, isSettled, slowWritable } from '../support/streams.js';

describe('stdoutSink', () => {
  it('takes writes at once while the stream buffer has room', async () => {
    const { stream, received } = slowWritable(1, 1024);
    const sink = stdoutSink({ stream });
    expect(sink.write(chunk('a\n'))).to.equal(undefined);
    expect(sink.write(chunk('b\n'))).to.equal(undefined);
    await sink.flush();
    expect(received.join('')).to.equal('a\nb\n');
  });

  it("over the stream's high-water mark returns a promise that resolves once a write ends and the stream holds less, not when it empties", async () => {
    const { stream, received } = slowWritable(20, 8);
    const sink = stdoutSink({ stream });
    expect(sink.write(chunk('1234'))).to.equal(undefined);
    const wait = sink.write(chunk('56789'));
    expect(wait).to.be.instanceOf(Promise);
    expect(await isSettled(wait as Promise<void>)).to.equal(false);
    await wait;
    // The first write ended; the second is being written: the chain makes its next chunk meanwhile.
    expect(received).to.deep.equal(['1234']);
    expect(stream.writableLength).to.equal(5);
    await sink.flush();
    expect(received.join('')).to.equal('123456789');
  });

  it('a sink sharing a full stream whose own writes all ended is woken by drain', async () => {
    const { stream, received } = slowWritable(20, 8);
    const first = stdoutSink({ stream });
    const second = stdoutSink({ stream });
    expect(first.write(chunk('12'))).to.equal(undefined);
    const waitFirst = first.write(chunk('345678'));
    const waitSecond = second.write(chunk('abcdefgh'));
    expect(waitFirst).to.be.instanceOf(Promise);
    expect(waitSecond).to.be.instanceOf(Promise);
    await Promise.all([waitFirst, waitSecond]);
    expect(received.join('')).to.include('345678');
    await Promise.all([first.flush(), second.flush()]);
    expect(received.join('')).to.equal('12345678abcdefgh');
  });

  it('a sink waiting on a stream another sink keeps full is woken when a write ends with room, not only at drain', async () => {
    const { stream, received } = slowWritable(5, 8);
    const busy = stdoutSink({ stream });
    const waiting = stdoutSink({ stream });
    expect(busy.write(chunk('1111'))).to.equal(undefined);
    const busyWait = busy.write(chunk('2222'));
    // Its chunk ends while the busy sink's next ones fill the stream again: no write of its own is left to wake it.
    const wait = waiting.write(chunk('ab'));
    expect(wait).to.be.instanceOf(Promise);
    let busyWrites = 2;
    let wokenAt: number | undefined;
    void (wait as Promise<void>).then(() => (wokenAt = busyWrites));
    await busyWait;
    // The busy sink writes again as soon as it may, as a fast chain does: the stream never drains.
    while (busyWrites < 20) {
      busyWrites++;
      await busy.write(chunk(`${busyWrites % 10}`.repeat(4)));
    }
    expect(wokenAt, 'woken while the other sink kept writing').to.be.lessThan(5);
    await Promise.all([busy.flush(), waiting.flush()]);
    expect(received).to.include('ab');
  });

  it('flush resolves only once the stream buffer is empty', async () => {
    const { stream, received } = slowWritable(10, 1 << 20);
    const sink = stdoutSink({ stream });
    sink.write(chunk('x'));
    sink.write(chunk('y'));
    const flushed = sink.flush();
    expect(await isSettled(flushed)).to.equal(false);
    await flushed;
    expect(received).to.deep.equal(['x', 'y']);
  });

  it('flush waits for the writes made before it, not for later ones', async () => {
    const { stream, received } = slowWritable(10, 1 << 20);
    const sink = stdoutSink({ stream });
    sink.write(chunk('before'));
    const flushed = sink.flush();
    sink.write(chunk('after'));
    await flushed;
    expect(received).to.deep.equal(['before']);
    await sink.flush();
    expect(received).to.deep.equal(['before', 'after']);
  });

  it('close flushes but leaves the stream open, and is idempotent', async () => {
    const { stream, received } = slowWritable(5, 1 << 20);
    const sink = stdoutSink({ stream });
    sink.write(chunk('last\n'));
    const closing = sink.close();
    expect(sink.close()).to.equal(closing);
    await closing;
    expect(received).to.deep.equal(['last\n']);
    expect(stream.writableEnded).to.equal(false);
    expect(() => sink.write(chunk('more'))).to.throw(SinkError, /closed/);
  });

  it('shares one error and one drain listener among every sink on a stream', async () => {
    const { stream } = slowWritable(5, 4);
    const sinks = Array.from({ length: 20 }, () => stdoutSink({ stream }));
    const waits = sinks.map((sink) => sink.write(chunk('more than four bytes')));
    expect(waits.every((w) => w instanceof Promise)).to.equal(true);
    expect(stream.listenerCount('error')).to.equal(1);
    expect(stream.listenerCount('drain')).to.equal(1);
    await Promise.all(waits);
  });

  it('turns a stream error into a SinkError, thrown by the next write and flush', async () => {
    const sink = stdoutSink({ stream: failingWritable('EIO: i/o error') });
    expect(sink.write(chunk('a'))).to.equal(undefined);
    const err: unknown = await sink.flush().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(SinkError);
    expect((err as SinkError).message).to.equal('stdout sink: cannot write to stdout: EIO: i/o error');
    expect((err as SinkError).sink).to.equal('stdout');
    expect(() => sink.write(chunk('b'))).to.throw(SinkError, /EIO/);
    await sink.flush().then(
      () => expect.fail('flush should reject'),
      (e: unknown) => expect(e).to.equal(err),
    );
  });

  it('fails for good when a write throws instead of calling back (a chunk over 2 GiB): flush and close end', async () => {
    // As fs.write refuses a chunk longer than it may write: thrown from inside write, the stream then counts it
    // as being written for ever.
    const stream = new Writable({
      write() {
        throw new RangeError('The value of "length" is out of range');
      },
    });
    const sink = stdoutSink({ stream });
    const failures: string[] = [];
    sink.reports!.subscribe((report) => report.kind === 'failed' && failures.push(report.error.message));
    expect(sink.write(chunk('a'))).to.equal(undefined);
    expect(failures).to.deep.equal(['stdout sink: cannot write to stdout: The value of "length" is out of range']);
    expect(stream.destroyed).to.equal(true);
    const err: unknown = await sink.flush().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(SinkError);
    // Ends, with the failure (a stream believed to be writing would never finish).
    expect(await sink.close().catch((e: unknown) => e)).to.equal(err);
  });

  it('rejects a pending drain wait when the stream fails', async () => {
    const sink = stdoutSink({ stream: failingWritable('EIO: i/o error', 10) });
    const wait = sink.write(chunk('more than sixteen bytes'));
    expect(wait).to.be.instanceOf(Promise);
    await (wait as Promise<void>).then(
      () => expect.fail('the drain wait should reject'),
      (e: unknown) => expect(e).to.be.instanceOf(SinkError).with.property('message').that.contains('EIO'),
    );
  });

  it('takes EPIPE as its reader gone, not as a failure: what was in the stream and what follows is reported dropped, flush and close resolve', async () => {
    const sink = stdoutSink({ stream: failingWritable('EPIPE: broken pipe', 10) });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((report) => reports.push(report));
    const wait = sink.write(chunk('more than sixteen bytes', 3));
    await wait;
    expect(sink.write(chunk('later', 2))).to.equal(undefined);
    await sink.flush();
    await sink.close();
    expect(reports).to.deep.equal([
      { kind: 'dropped', size: 3, bytes: 23 },
      { kind: 'dropped', size: 2, bytes: 5 },
    ]);
  });

  it('close rejects with the error when the stream failed', async () => {
    const sink = stdoutSink({ stream: failingWritable('EIO: i/o error') });
    sink.write(chunk('a'));
    const err = await sink.close().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(SinkError).with.property('message').that.contains('EIO');
    expect(await sink.close().catch((e: unknown) => e)).to.equal(err);
  });
});
