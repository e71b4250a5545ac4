import { expect } from 'chai';
import { createSocket, type Socket } from 'node:dgram';
import type { Sink, SinkReport } from '../../operators/deliver.js';
import { MAX_DATAGRAM, udpSink } from '../../lib/sinks/udp.js';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { chunk } from '../support/batches.js';
import { freeUdpPort, waitFor } from '../support/backends/ports.js';
import { metricEntry } from '../support/entries.js';

const UNRESOLVED = 'udp sink: cannot resolve host "no-such-host.invalid": check the host name in the address';

/** A UDP socket on 127.0.0.1 that keeps every datagram it receives. */
async function datagramReceiver(): Promise<{ port: number; datagrams: Buffer[]; socket: Socket }> {
  const socket = createSocket('udp4');
  const datagrams: Buffer[] = [];
  socket.on('message', (message) => datagrams.push(message));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, datagrams, socket };
}

/** Runs `test` with a udp sink sending to a fresh receiver, and the sink's reports; closes the receiver after. */
async function withReceiver(
  test: (sink: Sink, reports: SinkReport[], receiver: { datagrams: Buffer[] }) => Promise<void>,
): Promise<void> {
  const receiver = await datagramReceiver();
  try {
    const sink = udpSink({ address: `127.0.0.1:${receiver.port}` });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    await test(sink, reports, receiver);
  } finally {
    receiver.socket.close();
  }
}

describe('udp sink', () => {
  it('sends one datagram per line, without the line feed, and reports each chunk delivered', () =>
    withReceiver(async (sink, reports, receiver) => {
      sink.write(chunk('<14>1 - h app - - - one\n<14>1 - h app - - - two\n', 2));
      sink.write(chunk('h_bucket{le="1"} 3 0\nh_sum 2 0\nh_count 3 0\n', 1)); // one event of three lines
      await sink.close();
      await waitFor('5 datagrams', () => (receiver.datagrams.length === 5 ? true : undefined));
      expect(receiver.datagrams.map(String)).to.deep.equal([
        '<14>1 - h app - - - one',
        '<14>1 - h app - - - two',
        'h_bucket{le="1"} 3 0',
        'h_sum 2 0',
        'h_count 3 0',
      ]);
      expect(reports).to.deep.equal([
        { kind: 'delivered', size: 2, bytes: 48 },
        { kind: 'delivered', size: 1, bytes: 43 },
      ]);
    }));

  it('never sends a datagram above the limit: an event that cannot fit fails with a clear error, the others go out', () =>
    withReceiver(async (sink, reports, receiver) => {
      const fits = 'f'.repeat(MAX_DATAGRAM.ipv4);
      sink.write(chunk(`small\n${'x'.repeat(70_000)}\n${fits}\n`, 3));
      const error = (await sink.flush().catch((e: unknown) => e)) as Error;
      expect(error.message).to.equal(
        'udp sink: an event line of 70000 bytes does not fit in one datagram (at most 65507 bytes over IPv4): shorten the events or use the tcp sink',
      );
      expect(reports[0]).to.deep.equal({ kind: 'failed', size: 1, bytes: 70_001, error });
      await waitFor('2 datagrams', () => (receiver.datagrams.length === 2 ? true : undefined));
      expect(receiver.datagrams.map((d) => d.length)).to.deep.equal([5, MAX_DATAGRAM.ipv4]);
      await sink.close().catch(() => undefined);
    }));

  it('counts an event of several lines that cannot all fit as one failed event, never a fraction', () =>
    withReceiver(async (sink, reports, receiver) => {
      const large = 'x'.repeat(70_000);
      // Two events of three lines; two lines of the second are too large: it fails once, as one event.
      sink.write(chunk(`a_sum 1 0\na_count 1 0\na_x 1 0\nb_sum 2 0\n${large}\n${large}\n`, 2));
      await sink.flush().catch(() => undefined);
      expect(reports.filter((r) => r.kind === 'failed')).to.have.length(1);
      expect(reports[0]).to.include({ kind: 'failed', size: 1, bytes: 2 * 70_001 });
      await waitFor('4 datagrams', () => (receiver.datagrams.length === 4 ? true : undefined));
      await sink.close().catch(() => undefined);
    }));

  it('counts each event of a chunk that mixes oversize and normal events once: delivered and failed add up to what was written', () =>
    withReceiver(async (sink, reports, receiver) => {
      const large = 'x'.repeat(70_000);
      const data = `a 1 0\n${large}\nb 2 0\n${large}\nc 3 0\n`;
      sink.write(chunk(Buffer.from(data), 5)); // as the text encoders hand it over: UTF-8 lines
      await sink.flush().catch(() => undefined);
      await waitFor('3 datagrams', () => (receiver.datagrams.length === 3 ? true : undefined));
      const total = (kind: SinkReport['kind']) =>
        reports.reduce(
          (sum, r) =>
            r.kind === kind && (r.kind === 'delivered' || r.kind === 'failed')
              ? { size: sum.size + r.size, bytes: sum.bytes + r.bytes }
              : sum,
          { size: 0, bytes: 0 },
        );
      expect(total('failed')).to.deep.equal({ size: 2, bytes: 2 * (large.length + 1) });
      expect(total('delivered')).to.deep.equal({ size: 3, bytes: 3 * 'a 1 0\n'.length });
      await sink.close().catch(() => undefined);
    }));

  it('reports the ICMP refusal of a closed port as connection refused, saying what to check, for the events it refused', async () => {
    const port = await freeUdpPort();
    const sink = udpSink({ address: `127.0.0.1:${port}` });
    const failures: Error[] = [];
    const counted = { failed: 0, delivered: 0, written: 0 };
    sink.reports!.subscribe((r) => {
      if (r.kind === 'failed') failures.push(r.error);
      if (r.kind === 'failed' || r.kind === 'delivered') counted[r.kind] += r.size;
    });
    const message = await waitFor(
      'an ICMP refusal',
      () => {
        counted.written++;
        sink.write(chunk('ping\n')); // a UDP socket learns of an earlier datagram's ICMP refusal on a later send
        return failures[0]?.message;
      },
      3000,
      10,
    );
    expect(message).to.equal(
      `udp sink: connection refused by 127.0.0.1:${port}: is the backend running, and is 127.0.0.1:${port} the right port?`,
    );
    // The refusal comes within the window after the OS took the datagram: its event is failed, never delivered.
    expect(await sink.close().catch((error: Error) => error)).to.equal(failures.at(-1));
    expect(counted).to.deep.equal({ failed: counted.written, delivered: 0, written: counted.written });
  });

  it('reports a host that does not resolve as a sink failure, never as an uncaught exception, and tries again on the next write', async () => {
    const sink = udpSink({ address: 'no-such-host.invalid:9' });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    sink.write(chunk('a 1\n'));
    sink.write(chunk('b 2\nc 3\n', 2));
    const error = (await sink.flush().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(UNRESOLVED);
    expect(reports).to.deep.equal([{ kind: 'failed', size: 3, bytes: 12, error }]);

    sink.write(chunk('d 4\n'));
    const again = (await sink.flush().catch((e: unknown) => e)) as Error;
    expect(again.message).to.equal(UNRESOLVED);
    expect(reports.map((r) => r.kind)).to.deep.equal(['failed', 'failed']);
    await sink.close();
  });

  it('an entry whose udp host does not resolve counts the failures under warn and stops with the error under fail', async () => {
    const sink = { type: 'udp' as const, address: 'no-such-host.invalid:9' };
    const warned = runEntry(metricEntry({ rate: 20, duration: 300, sink }));
    expect(await warned.done).to.deep.equal({});
    const stats = warned.stats.snapshot(Date.now());
    expect(stats.total_sink_failures).to.be.at.least(1);
    expect(stats.last_sink_error).to.equal(UNRESOLVED);
    expect(stats.last_successful_write_at).to.equal(null);

    const failed = await runEntry(metricEntry({ rate: 20, on_sink_error: 'fail', sink })).done;
    expect(failed.error?.message).to.equal(UNRESOLVED);
  });
});
