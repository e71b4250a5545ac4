import { createConnection, type Socket } from 'node:net';
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { recordOf, type EncodedBatch } from '../../operators/model/batch.js';
import { parseHostPort, type HostPort } from '../language/address.js';
import { DEFAULT_FLUSH_TIMEOUT, SinkCore, type SinkDriver } from './core/sink-core.js';
import { networkError } from './core/errors.js';
import { DEFAULT_RETRY, type RetryPolicy } from './core/retry.js';
import type { Sink } from '../../operators/deliver.js';
import type { SinkError } from './core/errors.js';

export interface TcpSinkOptions {
  /** `host:port`. */
  readonly address: string;
  /** Attempts to deliver the data held during an outage (connects included), with backoff. */
  readonly retry?: RetryPolicy;
  /**
   * How records are framed on the stream: `lf`, each line as the encoder ends it (default), or `octet_counting`
   * (RFC 6587 §3.4.1, syslog over TCP): each record as its length in bytes, a space and the record, without its
   * line feed.
   */
  readonly framing?: TcpFraming;
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

export type TcpFraming = 'lf' | 'octet_counting';

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
  const address = parseHostPort(options.address);
  const target = address.text;
  const core = new SinkCore({
    name: 'tcp',
    target,
    closedDetail: `cannot write to ${target}: the sink is closed`,
    highWaterMark: options.highWaterMark ?? 1 << 20,
    silence: {
      flushTimeout: options.flushTimeout ?? DEFAULT_FLUSH_TIMEOUT,
      scheduler: options.scheduler ?? asyncScheduler,
      wording: {
        expired: 'took nothing',
        partly: 'taken',
        stalled: 'has taken no data',
        quiet: 'it accepted the connection but does not read: is the backend overloaded or stuck?',
        resumes: 'takes data again',
      },
    },
  });
  return core.attach(new TcpDriver(core, address, options));
}

/** One persistent connection at a time, and the chunks it has not handed to the OS yet. */
class TcpDriver implements SinkDriver {
  private readonly retry: RetryPolicy;
  private readonly scheduler: SchedulerLike;
  /** Chunks not handed to the OS yet, oldest first: written again on a new connection. */
  private held: Held[] = [];
  private socket: Socket | undefined;
  /** Writes to the connected `socket`; absent while there is none. */
  private writeOut: ((data: string | Uint8Array) => void) | undefined;
  /** Failed attempts in the current outage. */
  private failures = 0;
  private reconnect: Subscription | undefined;
  private released = false;

  constructor(
    private readonly core: SinkCore,
    private readonly address: HostPort,
    private readonly options: TcpSinkOptions,
  ) {
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.scheduler = options.scheduler ?? asyncScheduler;
  }

  send(batch: EncodedBatch): void {
    const { size, bytes } = batch;
    const data = this.options.framing === 'octet_counting' ? octetCounted(batch) : batch.data;
    const chunk = { data, size, bytes };
    this.held.push(chunk);
    if (this.writeOut) this.writeOut(data);
    else if (!this.socket && !this.reconnect) this.connect();
  }

  /** A flush ran out of time: drop the connection and everything held. */
  expire(error: SinkError): void {
    this.drop(this.socket);
    this.reconnect?.unsubscribe();
    this.reconnect = undefined;
    this.dropHeld(error);
  }

  async release(): Promise<void> {
    this.released = true;
    this.reconnect?.unsubscribe();
    const s = this.socket;
    this.socket = undefined;
    this.writeOut = undefined;
    // Send FIN after the last bytes and give the peer a moment to take them, then let go.
    if (s && !s.destroyed) {
      await new Promise<void>((resolve) => {
        const timer = this.scheduler.schedule(resolve, CLOSE_GRACE_MS);
        s.end(() => {
          timer.unsubscribe();
          resolve();
        });
      });
    }
    s?.destroy();
  }

  private readonly connect = (): void => {
    this.reconnect = undefined;
    if (this.released) return;
    const s = createConnection({ host: this.address.host, port: this.address.port });
    this.socket = s;
    // One callback per connection, not per write; a dead connection's callbacks are ignored.
    const onWritten = (error?: Error | null): void => {
      if (this.socket !== s || error) return;
      const chunk = this.held.shift()!;
      this.failures = 0;
      this.core.delivered(chunk.size, chunk.bytes);
      this.core.settle(1, chunk.bytes);
    };
    s.setNoDelay(true);
    s.setTimeout(this.options.connectTimeout ?? 5000, () =>
      s.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })),
    );
    s.once('connect', () => {
      if (this.socket !== s) return;
      s.setTimeout(0);
      s.setKeepAlive(true);
      this.writeOut = (data) => s.write(data, onWritten);
      // Everything held goes out from its first byte: the new connection starts on a line boundary.
      for (const chunk of this.held) this.writeOut(chunk.data);
    });
    s.resume(); // discard whatever the peer sends, so closing never leaves unread data behind
    s.on('error', (error) => this.lost(s, error));
    // The peer closing its side ends the connection for us too: reconnect for what is held.
    const peerClosed = (): Error => Object.assign(new Error('the peer closed the connection'), { code: 'EPIPE' });
    s.on('end', () => this.lost(s, peerClosed()));
    s.on('close', () => this.lost(s, peerClosed()));
  };

  /** The connection `s` failed: hold everything not handed over, and retry or give up. */
  private lost(s: Socket, cause: Error): void {
    if (this.socket !== s) return;
    this.drop(s);
    if (this.held.length === 0 || this.released) return;
    const error = networkError('tcp', this.address.text, this.address.host, cause);
    this.failures++;
    const next = this.core.nextAttempt(error, this.failures, this.retry, this.options.random);
    if (typeof next !== 'number') {
      this.dropHeld(next);
      return;
    }
    this.reconnect = this.scheduler.schedule(this.connect, next);
  }

  /** Forgets connection `s`: its write callbacks that still run are ignored. */
  private drop(s: Socket | undefined): void {
    if (this.socket === s) {
      this.socket = undefined;
      this.writeOut = undefined;
    }
    s?.destroy();
  }

  /** Gives up every chunk held, with `error`; the next write starts over. */
  private dropHeld(error: SinkError): void {
    const dropped = this.held;
    this.held = [];
    this.failures = 0;
    const bytes = sum(dropped, 'bytes');
    this.core.failed(sum(dropped, 'size'), bytes, error);
    this.core.settle(dropped.length, bytes, error);
  }
}

/** The records of a chunk as RFC 6587 octet counting frames them: `<length in bytes> <record>`. */
function octetCounted(chunk: EncodedBatch): Buffer {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < chunk.frames.ends.length; i++) {
    const record = recordOf(chunk, i);
    const bytes = typeof record === 'string' ? Buffer.from(record) : record;
    parts.push(Buffer.from(`${bytes.byteLength} `), bytes);
  }
  return Buffer.concat(parts);
}

function sum(chunks: readonly Held[], field: 'size' | 'bytes'): number {
  return chunks.reduce((n, c) => n + c[field], 0);
}
