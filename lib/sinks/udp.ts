import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { recordOf, type EncodedBatch } from '../../operators/model/batch.js';
import { parseHostPort, type HostPort } from '../language/address.js';
import { SinkCore, type SinkDriver } from './core/sink-core.js';
import { networkError } from './core/errors.js';
import type { Sink } from '../../operators/deliver.js';
import type { SinkError } from './core/errors.js';

export interface UdpSinkOptions {
  /** `host:port`; an IPv6 literal (`[::1]:514`) sends over IPv6. */
  readonly address: string;
  /** Bytes sent but not yet handed to the OS past which `write` makes the chain wait; default 1 MiB. */
  readonly highWaterMark?: number;
}

/** Largest UDP payload: 65 535 minus the IP and UDP headers. */
export const MAX_DATAGRAM = { ipv4: 65_507, ipv6: 65_527 } as const;

/** A chunk whose datagrams are on their way. */
interface Sending {
  /** Chunks written that it stands for (all that waited for a connection that failed). */
  readonly units: number;
  /** Bytes the core holds for it: all of the chunk's. */
  readonly held: number;
  /** Events (and their bytes) still to report: the chunk's, less those already reported lost as too large. */
  size: number;
  bytes: number;
  /** Datagrams whose send callback has not run yet. */
  remaining: number;
  /** Why the chunk was lost. */
  error?: SinkError;
  /** Why some of its events were lost (too large for a datagram), already reported. */
  partial?: SinkError;
  /** When the OS took its last datagram (performance.now()): see {@link REFUSAL_WINDOW_MS}. */
  takenAt?: number;
}

/**
 * How long after the OS took a chunk's datagrams an ICMP "port unreachable" still counts against it: such an answer
 * from the local host or a near one comes within a millisecond (measured here: 0.7 ms on loopback), so a chunk is
 * reported delivered only once this has passed without one. A refusal that comes later (a far host) is a failure of
 * no events, as it cannot be told which datagram it answers.
 */
const REFUSAL_WINDOW_MS = 5;

/**
 * Sink sending one datagram per record (`EncodedBatch.frames`: a line, without its line feed; the
 * datagram frames it, as RFC 5426 does for syslog): one datagram per event, or per line of a
 * multi-line event. A record larger than the datagram limit is never sent: its event is
 * reported `failed` (once, however many of its records are too large) with a message that says
 * so, and the rest of the chunk goes out, reported on its own: each event is counted once.
 *
 * UDP acknowledges nothing: a chunk is delivered (reported) once the OS took all its
 * datagrams and no refusal came within {@link REFUSAL_WINDOW_MS}. The socket is connected, so an
 * ICMP "port unreachable" answer from the host surfaces as a `failed` report (connection
 * refused) for the chunks taken in that window: each event is counted once, failed or delivered.
 *
 * Every failure of the socket arrives as its `error` event (the connect call takes no
 * callback, so a host that does not resolve is one too), and every failure of a send through
 * its callback: both become `failed` reports, never exceptions.
 */
export function udpSink(options: UdpSinkOptions): Sink {
  const address = parseHostPort(options.address);
  const target = address.text;
  const core = new SinkCore({
    name: 'udp',
    target,
    closedDetail: `cannot send to ${target}: the sink is closed`,
    highWaterMark: options.highWaterMark ?? 1 << 20,
  });
  return core.attach(new UdpDriver(core, address));
}

/** A connected datagram socket, opened on the first write (and again after connecting failed). */
class UdpDriver implements SinkDriver {
  private readonly v6: boolean;
  private readonly maxDatagram: number;
  private socket: Socket | undefined;
  private connected = false;
  /** Chunks written before the socket was connected. */
  private waiting: { chunk: EncodedBatch; bytes: number }[] = [];
  /** Chunks the OS took, within the refusal window, oldest first; and the timer that delivers them after it. */
  private readonly taken: Sending[] = [];
  private takenTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly core: SinkCore,
    private readonly address: HostPort,
  ) {
    this.v6 = isIPv6(address.host);
    this.maxDatagram = this.v6 ? MAX_DATAGRAM.ipv6 : MAX_DATAGRAM.ipv4;
  }

  send(chunk: EncodedBatch): void {
    const { bytes } = chunk;
    this.socket ??= this.open();
    if (this.connected) this.sendChunk(this.socket, chunk, bytes);
    else this.waiting.push({ chunk, bytes });
  }

  release(): void {
    this.deliverTaken(Number.POSITIVE_INFINITY);
    this.socket?.close();
    this.socket = undefined;
  }

  /** `chunk` left: lost with its error, or taken by the OS (delivered once no refusal came in the window). */
  private settled(chunk: Sending): void {
    if (chunk.error) {
      this.report(chunk, chunk.error);
      return;
    }
    chunk.takenAt = performance.now();
    this.taken.push(chunk);
    this.takenTimer ??= setTimeout(this.afterWindow, REFUSAL_WINDOW_MS);
  }

  private readonly afterWindow = (): void => {
    this.takenTimer = undefined;
    this.deliverTaken(performance.now() - REFUSAL_WINDOW_MS);
    const next = this.taken[0];
    if (next) this.takenTimer = setTimeout(this.afterWindow, next.takenAt! + REFUSAL_WINDOW_MS - performance.now());
  };

  /** Reports delivered the chunks taken at or before `until`. */
  private deliverTaken(until: number): void {
    while (this.taken.length > 0 && this.taken[0]!.takenAt! <= until) this.report(this.taken.shift()!);
    if (this.taken.length === 0 && this.takenTimer) {
      clearTimeout(this.takenTimer);
      this.takenTimer = undefined;
    }
  }

  /** An ICMP refusal: the chunks taken in the window were lost (the host refused them), else no event is known lost. */
  private refused(failure: SinkError): void {
    if (this.taken.length === 0) return void this.core.failed(0, 0, failure);
    for (const chunk of this.taken.splice(0)) this.report(chunk, failure);
    clearTimeout(this.takenTimer);
    this.takenTimer = undefined;
  }

  /** Reports `chunk` lost with `error`, else delivered, and settles it. */
  private report(chunk: Sending, error?: SinkError): void {
    if (error) this.core.failed(chunk.size, chunk.bytes, error);
    else this.core.delivered(chunk.size, chunk.bytes);
    this.core.settle(chunk.units, chunk.held, error ?? chunk.partial);
  }

  private sendChunk(s: Socket, encoded: EncodedBatch, bytes: number): void {
    const { ends, perEvent, separator } = encoded.frames;
    const chunk: Sending = { units: 1, held: bytes, size: encoded.size, bytes, remaining: 0 };
    const datagrams: (string | Uint8Array)[] = [];
    /** Events with a record too large to send, the last of them, and the bytes not sent. */
    let lost = 0;
    let lastLost = -1;
    let lostBytes = 0;
    for (let i = 0; i < ends.length; i++) {
      const record = recordOf(encoded, i);
      // A UTF-16 unit is at most 3 UTF-8 bytes: only long records need measuring.
      const length =
        typeof record !== 'string'
          ? record.byteLength
          : record.length * 3 <= this.maxDatagram
            ? 0
            : Buffer.byteLength(record);
      if (length <= this.maxDatagram) {
        datagrams.push(record);
        continue;
      }
      chunk.error ??= this.core.error(
        `an event line of ${length} bytes does not fit in one datagram (at most ${this.maxDatagram} bytes over IPv${this.v6 ? 6 : 4}): shorten the events or use the tcp sink`,
      );
      const event = Math.floor(i / perEvent);
      if (event !== lastLost) lost++;
      lastLost = event;
      lostBytes += length + separator;
    }
    if (lost > 0 && datagrams.length > 0) {
      // Report the lost events now, and only the others when the chunk settles: each event counts once.
      this.core.failed(lost, lostBytes, chunk.error!);
      chunk.size -= lost;
      chunk.bytes -= lostBytes;
      chunk.partial = chunk.error;
      chunk.error = undefined;
    }
    chunk.remaining = datagrams.length;
    if (chunk.remaining === 0) {
      this.settled(chunk);
      return;
    }
    // One callback per chunk; a send that throws fails its datagram the same way.
    const onSent = (error?: Error | null): void => {
      if (error) chunk.error ??= networkError('udp', this.address.text, this.address.host, error);
      if (--chunk.remaining === 0) this.settled(chunk);
    };
    for (const datagram of datagrams) {
      try {
        s.send(datagram, onSent);
      } catch (error) {
        onSent(error as Error);
      }
    }
  }

  private open(): Socket {
    const s = createSocket(this.v6 ? 'udp6' : 'udp4');
    s.on('error', (error) => {
      if (s !== this.socket) return; // a socket given up earlier
      const failure = networkError('udp', this.address.text, this.address.host, error);
      if (this.connected) {
        // An ICMP answer to an earlier datagram: it was lost, though the OS took it.
        this.refused(failure);
        return;
      }
      // Connecting failed (a host that does not resolve): what waited is lost; the next write tries again.
      this.socket = undefined;
      s.close();
      const lost = this.waiting;
      this.waiting = [];
      if (lost.length === 0) return;
      const size = lost.reduce((n, w) => n + w.chunk.size, 0);
      const bytes = lost.reduce((n, w) => n + w.bytes, 0);
      this.settled({ units: lost.length, held: bytes, size, bytes, remaining: 0, error: failure });
    });
    s.once('connect', () => {
      this.connected = true;
      const ready = this.waiting;
      this.waiting = [];
      for (const { chunk, bytes } of ready) this.sendChunk(s, chunk, bytes);
    });
    s.connect(this.address.port, this.address.host);
    return s;
  }
}
