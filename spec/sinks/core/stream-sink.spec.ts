import { expect } from 'chai';
import { Writable } from 'node:stream';
import { lastValueFrom, of, tap } from 'rxjs';
import { chunk } from '../../support/batches.js';
import { settle } from '../../support/clock.js';
import { streamSink } from '../../../lib/sinks/core/stream-sink.js';
import { EntryStats } from '../../../lib/runtime/stats.js';
import { deliver, type SinkReport } from '../../../operators/deliver.js';

/**
 * A destination that takes `room` bytes and then fails the write that would pass them (a file that cannot grow),
 * having taken that write's first part; `bytesWritten` counts what it took, as a file stream's does.
 */
function fillingWritable(room: number): { stream: Writable; bytesWritten: () => number; taken: Buffer[] } {
  const taken: Buffer[] = [];
  let took = 0;
  const stream = new Writable({
    write(data: Buffer, _encoding, done) {
      const part = data.subarray(0, Math.max(0, room - took));
      taken.push(part);
      took += part.length;
      done(part.length < data.length ? Object.assign(new Error('EFBIG: file too large'), { code: 'EFBIG' }) : null);
    },
  });
  return { stream, bytesWritten: () => took, taken };
}

describe('streamSink', () => {
  // Code units are not bytes: counted so, the third line, cut, would pass for landed. A lone surrogate (a label cut
  // mid-emoji) is written as U+FFFD, three bytes.
  for (const label of ['Zürich€€', 'Zürich\uD83D']) {
    it(`a write cut short: the events whose records landed whole are delivered, measured in bytes (${JSON.stringify(label)})`, async () => {
      const line = (n: number) => `${label} ${n}\n`;
      const bytes = Buffer.byteLength(line(1));
      const { stream, bytesWritten, taken } = fillingWritable(3 * bytes + 8);
      const sink = streamSink({ name: 'file', target: '/tmp/out.log', stream, bytesWritten });
      const reports: SinkReport[] = [];
      sink.reports!.subscribe((r) => reports.push(r));
      sink.write(chunk(line(1), 1));
      sink.write(chunk(line(2) + line(3) + line(4), 3));
      sink.write(chunk(line(5), 1));
      await sink.close().catch(() => undefined);
      expect(Buffer.concat(taken).subarray(0, 3 * bytes)).to.deep.equal(Buffer.from(line(1) + line(2) + line(3)));
      expect(reports.map((r) => ('size' in r ? { kind: r.kind, size: r.size, bytes: r.bytes } : r))).to.deep.equal([
        { kind: 'delivered', size: 1, bytes },
        { kind: 'delivered', size: 2, bytes: 2 * bytes },
        { kind: 'failed', size: 2, bytes: 2 * bytes },
      ]);
    });
  }

  it('tells what `written` resized a chunk by as deliver counts the chunk: a write waiting for room, once it settled', async () => {
    // Before, told as the write began: bytes_emitted counted the resize (-15) without the chunk (19), below 0.
    const callbacks: (() => void)[] = [];
    const stream = new Writable({ highWaterMark: 1, write: (_data, _encoding, done) => callbacks.push(() => done()) });
    const stats = new EntryStats(0);
    const sink = streamSink({
      name: 'file',
      target: '/tmp/out.om',
      stream,
      written: () => chunk('a 1\n'),
      resized: (bytes) => stats.resized(bytes),
    });
    const given = chunk('# TYPE a gauge\na 1\n');
    const delivered = lastValueFrom(
      of(given).pipe(
        deliver(sink),
        tap((delivery) => stats.record(delivery, 0)),
      ),
    );
    await settle();
    expect(callbacks, 'the write waits').to.have.length(1);
    expect(stats.bytes).to.equal(0);
    callbacks.shift()!();
    await delivered;
    expect(stats.bytes).to.equal(4);
  });
});
