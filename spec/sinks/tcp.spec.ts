import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import type { SinkReport } from '../../operators/deliver.js';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { tcpSink } from '../../lib/sinks/tcp.js';
import { chunk } from '../support/batches.js';
import { ManualScheduler } from '../support/clock.js';
import { freeTcpPort, waitFor } from '../support/backends/ports.js';
import { startTcpPeer, type TcpPeer } from '../support/backends/tcp-peer.js';
import { metricEntry } from '../support/entries.js';
import { isSettled } from '../support/streams.js';

/** A TCP server on 127.0.0.1 whose connections are handled by `onConnection`. */
async function server(
  onConnection: (socket: Socket) => void,
): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const s = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    port: (s.address() as { port: number }).port,
    server: s,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        s.close(() => resolve());
      }),
  };
}

describe('tcp sink', () => {
  let peer: TcpPeer | undefined;
  afterEach(async () => {
    await peer?.stop();
    peer = undefined;
  });

  it('writes every chunk over one persistent connection and reports each as delivered', async () => {
    peer = await startTcpPeer();
    const sink = tcpSink({ address: `127.0.0.1:${peer.port}` });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    sink.write(chunk('a 1 1\n'));
    sink.write(chunk('b 2 2\nc 3 3\n', 2));
    await sink.flush();
    sink.write(chunk('d 4 4\n'));
    await sink.close();
    await waitFor('the peer to read everything', () => (peer!.connections[0]?.length === 24 ? true : undefined));
    expect(peer.connections).to.deep.equal(['a 1 1\nb 2 2\nc 3 3\nd 4 4\n']);
    expect(reports).to.deep.equal([
      { kind: 'delivered', size: 1, bytes: 6 },
      { kind: 'delivered', size: 2, bytes: 12 },
      { kind: 'delivered', size: 1, bytes: 6 },
    ]);
  });

  it('with framing octet_counting writes each record as its length in bytes, a space and the record (RFC 6587)', async () => {
    peer = await startTcpPeer();
    const sink = tcpSink({ address: `127.0.0.1:${peer.port}`, framing: 'octet_counting' });
    sink.write(chunk('<14>1 - h svc - - - zoë\n<14>1 - h svc - - - b\n', 2));
    await sink.close();
    const expected = '24 <14>1 - h svc - - - zoë21 <14>1 - h svc - - - b';
    await waitFor('the peer to read everything', () =>
      Buffer.byteLength(peer!.connections[0] ?? '') === Buffer.byteLength(expected) ? true : undefined,
    );
    expect(peer.connections).to.deep.equal([expected]);
  });

  it('reconnects when the peer restarts mid-run: complete lines only, retries visible in the stats', async () => {
    peer = await startTcpPeer();
    const entry = metricEntry({
      name: 'beat',
      rate: 2000,
      duration: 1500,
      generator: { type: 'step', start: 0, step_size: 1 },
      sink: {
        type: 'tcp',
        address: `127.0.0.1:${peer.port}`,
        retry: { max_attempts: 30, initial_backoff: 20, max_backoff: 50 },
      },
    });
    const run = runEntry(entry);
    await waitFor('the first lines at the peer', () => (peer!.connections[0]?.includes('\n') ? true : undefined));
    await peer.down();
    // Back up once the sink noticed and retries: the run is still going, so a second connection follows.
    await waitFor('a reconnect attempt', () => (run.stats.snapshot(Date.now()).sink_retries > 0 ? true : undefined));
    await peer.up();
    expect(await run.done).to.deep.equal({});
    const stats = run.stats.snapshot(Date.now());
    expect(stats).to.include({ total_events: 3000, total_sink_failures: 0, consecutive_failures: 0 });

    await waitFor('the last value at the peer', () =>
      /beat 2999 \d+\n$/.test(peer!.connections.at(-1)!) ? true : undefined,
    );
    expect(peer.connections.length, 'a second connection').to.be.at.least(2);
    for (const [i, data] of peer.connections.entries()) {
      const lines = data.split('\n');
      const tail = lines.pop()!; // a dropped connection may end inside a line; the resend starts it over
      if (i === peer.connections.length - 1) expect(tail).to.equal('');
      for (const line of lines) expect(line, `connection ${i}`).to.match(/^beat \d+ \d+$/);
    }
    // Everything written on the last connection arrived in order, from a line boundary on. (What
    // the OS had taken just before the reset may be lost: TCP acknowledges nothing to us.)
    const after = peer.connections
      .at(-1)!
      .trimEnd()
      .split('\n')
      .map((line) => Number(line.split(' ')[1]));
    after.forEach((value, k) => k > 0 && expect(value).to.equal(after[k - 1]! + 1));
  });

  it('with the destination down under warn the run goes on, failures are counted and the message says what to check', async () => {
    const port = await freeTcpPort();
    const entry = metricEntry({
      rate: 100,
      duration: 500,
      sink: {
        type: 'tcp',
        address: `127.0.0.1:${port}`,
        retry: { max_attempts: 2, initial_backoff: 10, max_backoff: 10 },
      },
    });
    const run = runEntry(entry);
    expect(await run.done).to.deep.equal({});
    const { startedAt } = run.stats;
    const stats = run.stats.snapshot(Date.now());
    expect(stats.total_events).to.equal(50);
    expect(stats.total_sink_failures).to.be.at.least(1);
    expect(stats.consecutive_failures).to.equal(stats.total_sink_failures);
    expect(stats.sink_retries).to.be.at.least(1);
    expect(stats.last_successful_write_at).to.equal(null);
    expect(stats.last_sink_error).to.equal(
      `tcp sink: connection refused by 127.0.0.1:${port}: is the backend running, and is 127.0.0.1:${port} the right port? (gave up after 2 attempts)`,
    );
    // degraded (failures and 30 s without a delivery: spec/runtime/stats.spec.ts) is read as of the entry's end, 0.5 s
    // after its start, however late it is asked.
    expect(run.stats.snapshot(startedAt + 30_000).degraded).to.equal(false);
  });

  it('under fail the entry stops with the sink error', async () => {
    const port = await freeTcpPort();
    const entry = metricEntry({
      rate: 100,
      on_sink_error: 'fail',
      sink: { type: 'tcp', address: `127.0.0.1:${port}`, retry: { max_attempts: 1 } },
    });
    const outcome = await runEntry(entry).done;
    expect(outcome.error?.message).to.equal(
      `tcp sink: connection refused by 127.0.0.1:${port}: is the backend running, and is 127.0.0.1:${port} the right port?`,
    );
  });

  it('holds the chain back while the destination is unreachable: memory stays bounded', async () => {
    const port = await freeTcpPort();
    const sink = tcpSink({
      address: `127.0.0.1:${port}`,
      highWaterMark: 100,
      retry: { maxAttempts: 3, initialBackoff: 40, maxBackoff: 40 },
      random: () => 1,
    });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    let wait: void | Promise<void>;
    let accepted = 0;
    do {
      wait = sink.write(chunk(`${'x'.repeat(29)}\n`));
      accepted++;
    } while (!wait);
    expect(accepted).to.equal(4); // 4 × 30 bytes ≥ 100: the fourth write waits
    expect(await isSettled(wait)).to.equal(false);
    await wait; // released when the held data is given up after 3 attempts
    expect(reports.map((r) => r.kind)).to.deep.equal(['retrying', 'retrying', 'failed']);
    expect(reports[2]).to.deep.include({ size: 4, bytes: 120 });
    await sink.close();
  });

  it('a flush (a stop) gives up after flush_timeout what it could not hand over, naming the last error', async () => {
    const port = await freeTcpPort();
    const sink = tcpSink({
      address: `127.0.0.1:${port}`,
      flushTimeout: 200,
      retry: { maxAttempts: 10, initialBackoff: 60_000, maxBackoff: 60_000 },
    });
    sink.write(chunk('a 1 1\n'));
    const started = Date.now();
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(Date.now() - started).to.be.within(150, 1000);
    expect(error.message).to.equal(
      `tcp sink: 127.0.0.1:${port} took nothing within 0.2 s of the flush; the data still held was dropped ` +
        `(last error: connection refused by 127.0.0.1:${port}: is the backend running, and is 127.0.0.1:${port} the right port?)`,
    );
  });

  it('a host that does not resolve is a sink failure saying what to check', async () => {
    const sink = tcpSink({
      address: 'no-such-host.invalid:514',
      retry: { maxAttempts: 1, initialBackoff: 1, maxBackoff: 1 },
    });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.flush().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(
      'tcp sink: cannot resolve host "no-such-host.invalid": check the host name in the address',
    );
    expect(reports).to.deep.equal([{ kind: 'failed', size: 1, bytes: 6, error }]);
    await sink.close();
  });

  it('a peer that resets every connection is a sink failure that says so in words, without raw error codes', async () => {
    const resetting = await server((socket) => socket.resetAndDestroy());
    try {
      const sink = tcpSink({
        address: `127.0.0.1:${resetting.port}`,
        retry: { maxAttempts: 2, initialBackoff: 5, maxBackoff: 5 },
      });
      sink.write(chunk('a 1 1\n'));
      const error = (await sink.flush().catch((e: unknown) => e)) as Error;
      expect(error.message).to.match(
        new RegExp(
          `^tcp sink: (the connection to 127\\.0\\.0\\.1:${resetting.port} was reset|127\\.0\\.0\\.1:${resetting.port} closed the connection): check the backend's log \\(did it restart, or refuse the data\\?\\) \\(gave up after 2 attempts\\)$`,
        ),
      );
      await sink.close();
    } finally {
      await resetting.close();
    }
  });

  it('a destination that accepts but stops reading is a failure after flush_timeout: new events are dropped until it reads again, so the catch-up is bounded', async () => {
    const stalled: Socket[] = [];
    let received = '';
    const peer = await server((socket) => {
      stalled.push(socket);
      socket.setEncoding('utf8');
      socket.on('data', (part: string) => (received += part));
      socket.pause();
    });
    try {
      const scheduler = new ManualScheduler();
      const sink = tcpSink({
        address: `127.0.0.1:${peer.port}`,
        highWaterMark: 256 * 1024,
        flushTimeout: 10_000,
        scheduler,
      });
      const reports: SinkReport[] = [];
      sink.reports!.subscribe((r) => reports.push(r));
      sink.write(chunk('first 1\n'));
      await sink.flush(); // connected
      let taken = 'first 1\n'.length;
      const line = `${'x'.repeat(64 * 1024 - 1)}\n`;
      // Fill the socket buffers until a write has to wait, and is still waiting at the next poll
      // (real I/O, not time rules: no event says the kernel stopped taking data).
      let pending: Promise<void> | undefined;
      const { wait } = await waitFor(
        'the destination to stop taking data',
        async () => {
          if (pending && !(await isSettled(pending))) return { wait: pending };
          do {
            pending = sink.write(chunk(line)) ?? undefined;
            taken += line.length;
          } while (!pending);
          return undefined;
        },
        15_000,
      );

      await scheduler.advance(9_999);
      expect(sink.write(chunk('kept 1\n')), 'no stall yet: the write waits').to.be.instanceOf(Promise);
      taken += 'kept 1\n'.length;
      expect(reports.some((r) => r.kind === 'failed')).to.equal(false);
      await scheduler.advance(1);
      expect(await isSettled(wait), 'the writer is not held back past the stall').to.equal(true);

      expect(sink.write(chunk('dropped 1\n'))).to.equal(undefined);
      const failure = reports.at(-1)!;
      expect(failure).to.deep.include({ kind: 'failed', size: 1, bytes: 10 });
      expect((failure as { error: Error }).error.message).to.equal(
        `tcp sink: 127.0.0.1:${peer.port} has taken no data for 10 s (it accepted the connection but does not read: is the backend overloaded or stuck?): ` +
          'new events are dropped until it takes data again',
      );

      stalled.forEach((socket) => socket.resume());
      await waitFor('the held data to go out', () => (received.length === taken ? true : undefined));
      expect(sink.write(chunk('after 1\n')), 'reading again: no more drops').to.equal(undefined);
      const closing = sink.close();
      await scheduler.advance(1000);
      await closing;
      await waitFor('the last line', () => (received.endsWith('after 1\n') ? true : undefined));
      expect(received.length, 'what was held when the stall began, then new events; nothing dropped arrives').to.equal(
        taken + 'after 1\n'.length,
      );
      expect(received).to.not.contain('dropped');
    } finally {
      await peer.close();
    }
  });
});
