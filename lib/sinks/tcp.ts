import { createConnection, type Socket } from 'node:net';
import { asyncScheduler, Subject, type SchedulerLike, type Subscription } from 'rxjs';
import { byteLength, type EncodedBatch } from '../../operators/batch.js';
import { parseHostPort } from './address.js';
import { networkError } from './errors.js';
import { backoff, DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { SinkError, type Sink, type SinkReport } from './sink.js';
import { Settlement } from './settlement.js';
import { SpaceWait } from './space.js';

export interface TcpSinkOptions {
  /** `host:port`. */
  readonly address: string;
  /** Attempts to deliver the data held during an outage (connects included), with backoff. */
  readonly retry?: RetryPolicy;
  /** Unacknowledged bytes held past which `write` makes the chain wait; default 1 MiB. */
  readonly highWaterMark?: number;
  /** A connection attempt with no answer for this long fails (ms); default 5 s. */
  readonly connectTimeout?: number;
  /**
   * What a flush (a stop) could not hand over after this long (ms) is given up; default 10 s.
   * A destination that takes nothing for this long while data waits is stalled.
   */
  readonly flushTimeout?: number;
  /** Timers of the retry backoff, the flush timeout and the stall watch. */
  readonly scheduler?: SchedulerLike;
  readonly random?: () => number;
}

/** How long `close` waits for the connection to finish after its last write. */
const CLOSE_GRACE_MS = 1000;

interface Held {
  readonly data: string | Uint8Array;
  readonly size: number;
  readonly bytes: number;
}

/**
 * Sink writing the encoded bytes to one persistent TCP connection, opened on the first write.
 *
 * A chunk is delivered (reported) once the socket handed it to the OS. When the connection
 * fails or the peer drops it, every chunk not yet handed over is kept and written again, from
 * its first byte, on a new connection after a backoff: what is written after a reconnect
 * always starts on a line boundary, never mid-line. Attempts are counted per outage; after
 * `retry.maxAttempts` failed ones, the held data is given up (reported `failed`) and the next
 * write starts over. TCP acknowledges nothing to the application: chunks the OS took just
 * before the peer vanished can be lost without an error.
 *
 * Backpressure: once `highWaterMark` bytes are held (in the socket buffer or waiting for a
 * connection), `write` returns a promise that resolves when they drop below it.
 *
 * Stall: when the destination takes none of the held data for `flushTimeout` (it accepted the
 * connection but does not read, or it stays unreachable), the writer is let go and every
 * chunk written from then on is dropped and reported `failed` at once, until the destination
 * takes data again. So the chain is held back at most `flushTimeout`, what falls due while
 * stalled is counted as lost rather than queued, and once the destination reads again it gets
 * what was held (at most about `highWaterMark`), then new data at the entry's rate.
 */
export function tcpSink(options: TcpSinkOptions): Sink {
  const { host, port, text: target } = parseHostPort(options.address);
  const retry = options.retry ?? DEFAULT_RETRY;
  const highWaterMark = options.highWaterMark ?? 1 << 20;
  const connectTimeout = options.connectTimeout ?? 5000;
  const flushTimeout = options.flushTimeout ?? 10_000;
  const scheduler = options.scheduler ?? asyncScheduler;
  const random = options.random ?? Math.random;
  const reports = new Subject<SinkReport>();
  const space = new SpaceWait();
  // Stalled: let the writer held back by backpressure go; write drops from then on.
  const settlement = new Settlement({ after: flushTimeout, scheduler, onStall: () => space.release(true) });

  /** Chunks not handed to the OS yet, oldest first. */
  let held: Held[] = [];
  let heldBytes = 0;
  let socket: Socket | undefined;
  /** Writes a chunk to the open connection; absent while there is none. */
  let send: ((chunk: Held) => void) | undefined;
  let failures = 0;
  let lastError: SinkError | undefined;
  let reconnect: Subscription | undefined;
  let closing: Promise<void> | undefined;
  let closed = false;

  const connect = (): void => {
    reconnect = undefined;
    if (closed) return;
    const s = createConnection({ host, port });
    socket = s;
    // One callback per connection, not per write; a dead connection's callbacks are ignored.
    const onWritten = (error?: Error | null): void => {
      if (socket !== s || error) return;
      const chunk = held.shift()!;
      heldBytes -= chunk.bytes;
      failures = 0;
      lastError = undefined;
      reports.next({ kind: 'delivered', size: chunk.size, bytes: chunk.bytes });
      settlement.settle(1);
      wakeWriter();
    };
    s.setNoDelay(true);
    s.setTimeout(connectTimeout, () => s.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })));
    s.once('connect', () => {
      if (socket !== s) return;
      s.setTimeout(0);
      s.setKeepAlive(true);
      send = (chunk) => s.write(chunk.data, onWritten);
      // Everything held goes out from its first byte: the new connection starts on a line boundary.
      for (const chunk of held) send(chunk);
    });
    s.resume(); // discard whatever the peer sends, so closing never leaves unread data behind
    s.on('error', (error) => lost(s, error));
    // The peer closing its side ends the connection for us too: reconnect for what is held.
    const peerClosed = (): Error => Object.assign(new Error('the peer closed the connection'), { code: 'EPIPE' });
    s.on('end', () => lost(s, peerClosed()));
    s.on('close', () => lost(s, peerClosed()));
  };

  /** The connection `s` failed: hold everything not handed over, and retry or give up. */
  const lost = (s: Socket, cause: Error): void => {
    if (socket !== s) return;
    socket = undefined;
    send = undefined;
    s.destroy();
    if (held.length === 0 || closed) return;
    const error = networkError('tcp', target, host, cause);
    lastError = error;
    failures++;
    if (failures >= retry.maxAttempts) return giveUp(error);
    const delay = backoff(retry, failures, random);
    reports.next({ kind: 'retrying', attempt: failures, delay, error });
    reconnect = scheduler.schedule(connect, delay);
  };

  const giveUp = (cause: SinkError): void => {
    dropHeld(failures > 1 ? new SinkError('tcp', `${cause.detail} (gave up after ${failures} attempts)`, { cause }) : cause);
  };

  /** A flush ran out of time: drop the connection and everything held. */
  const expire = (): void => {
    if (held.length === 0) return;
    const s = socket;
    socket = undefined;
    send = undefined;
    s?.destroy();
    reconnect?.unsubscribe();
    reconnect = undefined;
    const last = lastError ? ` (last error: ${lastError.detail})` : '';
    dropHeld(new SinkError('tcp', `${target} took nothing within ${flushTimeout / 1000} s of the flush; the data still held was dropped${last}`, { cause: lastError }));
  };

  const dropHeld = (error: SinkError): void => {
    const dropped = held;
    held = [];
    heldBytes = 0;
    failures = 0;
    reports.next({ kind: 'failed', size: sum(dropped, 'size'), bytes: sum(dropped, 'bytes'), error });
    settlement.settle(dropped.length, error);
    wakeWriter();
  };

  const flush = (): Promise<void> => {
    const done = settlement.flush();
    if (settlement.pending > 0) {
      const timer = scheduler.schedule(expire, flushTimeout);
      const stop = () => timer.unsubscribe();
      done.then(stop, stop);
    }
    return done;
  };

  /** The failure of a chunk written while stalled (one error object per report: each counts). */
  const stalledError = (): SinkError => {
    const why = lastError ? `last error: ${lastError.detail}` : 'it accepted the connection but does not read: is the backend overloaded or stuck?';
    return new SinkError('tcp', `${target} has taken no data for ${flushTimeout / 1000} s (${why}): new events are dropped until it takes data again`, { cause: lastError });
  };

  const wakeWriter = (): void => {
    space.release(heldBytes < highWaterMark);
  };

  return {
    reports,
    write({ size, data }: EncodedBatch): void | Promise<void> {
      if (closing) throw new SinkError('tcp', `cannot write to ${target}: the sink is closed`);
      const chunk = { data, size, bytes: byteLength(data) };
      if (settlement.stalled) {
        reports.next({ kind: 'failed', size, bytes: chunk.bytes, error: stalledError() });
        return undefined;
      }
      held.push(chunk);
      heldBytes += chunk.bytes;
      settlement.issue();
      if (send) send(chunk);
      else if (!socket && !reconnect) connect();
      if (heldBytes < highWaterMark) return undefined;
      return space.wait();
    },
    flush,
    close(): Promise<void> {
      closing ??= flush().finally(async () => {
        closed = true;
        reconnect?.unsubscribe();
        const s = socket;
        socket = undefined;
        send = undefined;
        // Send FIN after the last bytes and give the peer a moment to take them, then let go.
        if (s && !s.destroyed) {
          await new Promise<void>((resolve) => {
            const timer = scheduler.schedule(resolve, CLOSE_GRACE_MS);
            s.end(() => {
              timer.unsubscribe();
              resolve();
            });
          });
        }
        s?.destroy();
        reports.complete();
      });
      return closing;
    },
  };
}

function sum(chunks: readonly Held[], field: 'size' | 'bytes'): number {
  return chunks.reduce((n, c) => n + c[field], 0);
}
