import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { Subject } from 'rxjs';
import { byteLength, type EncodedBatch } from '../../operators/batch.js';
import { parseHostPort } from './address.js';
import { networkError } from './errors.js';
import { splitLines } from './lines.js';
import { SinkError, type Sink, type SinkReport } from './sink.js';
import { Settlement } from './settlement.js';
import { SpaceWait } from './space.js';

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
  readonly size: number;
  readonly bytes: number;
  /** Datagrams whose send callback has not run yet. */
  remaining: number;
  /** Why the chunk was lost. */
  error?: SinkError;
  /** Why some of its events were lost (too large for a datagram), already reported. */
  partial?: SinkError;
}

/**
 * Sink sending one datagram per line, without its line feed (the datagram frames it, as RFC
 * 5426 does for syslog): one datagram per event, or per line of a multi-line event. A line
 * larger than the datagram limit is never sent: its event is reported `failed` with a message
 * that says so, and the rest of the chunk goes out.
 *
 * UDP acknowledges nothing: a chunk is delivered (reported) once the OS took all its
 * datagrams. The socket is connected, so an ICMP "port unreachable" answer from the host
 * surfaces as a `failed` report (connection refused) for the data that was lost.
 *
 * Every failure of the socket arrives as its `error` event (the connect call takes no
 * callback, so a host that does not resolve is one too), and every failure of a send through
 * its callback: both become `failed` reports, never exceptions.
 */
export function udpSink(options: UdpSinkOptions): Sink {
  const { host, port, text: target } = parseHostPort(options.address);
  const v6 = isIPv6(host);
  const maxDatagram = v6 ? MAX_DATAGRAM.ipv6 : MAX_DATAGRAM.ipv4;
  const highWaterMark = options.highWaterMark ?? 1 << 20;
  const reports = new Subject<SinkReport>();
  const settlement = new Settlement();

  let socket: Socket | undefined;
  let connected = false;
  /** Chunks written before the socket was connected. */
  let waiting: EncodedBatch[] = [];
  let outstanding = 0;
  const space = new SpaceWait();
  let closing: Promise<void> | undefined;

  /** `chunk` (`units` chunks written, reported as one) left: delivered, or lost with its error. */
  const settled = (chunk: Sending, units = 1): void => {
    outstanding -= chunk.bytes;
    if (chunk.error) reports.next({ kind: 'failed', size: chunk.size, bytes: chunk.bytes, error: chunk.error });
    else reports.next({ kind: 'delivered', size: chunk.size, bytes: chunk.bytes });
    settlement.settle(units, chunk.error ?? chunk.partial);
    space.release(outstanding < highWaterMark);
  };

  const sendChunk = (s: Socket, { size, data }: EncodedBatch): void => {
    const lines = splitLines(data);
    const chunk: Sending = { size, bytes: byteLength(data), remaining: 0 };
    const datagrams: string[] = [];
    for (const line of lines) {
      // A UTF-16 unit is at most 3 UTF-8 bytes: only long lines need measuring.
      const bytes = line.length * 3 <= maxDatagram ? 0 : Buffer.byteLength(line);
      if (bytes <= maxDatagram) datagrams.push(line);
      else {
        chunk.error ??= new SinkError(
          'udp',
          `an event line of ${bytes} bytes does not fit in one datagram (at most ${maxDatagram} bytes over IPv${v6 ? 6 : 4}): shorten the events or use the tcp sink`,
        );
      }
    }
    const tooLarge = lines.length - datagrams.length;
    if (tooLarge > 0 && tooLarge < lines.length) {
      // Report the lost events now; the chunk's other events are delivered normally.
      reports.next({ kind: 'failed', size: (size * tooLarge) / lines.length, bytes: 0, error: chunk.error! });
      chunk.partial = chunk.error;
      chunk.error = undefined;
    }
    chunk.remaining = datagrams.length;
    if (chunk.remaining === 0) return settled(chunk);
    // One callback per chunk; a send that throws fails its datagram the same way.
    const onSent = (error?: Error | null): void => {
      if (error) chunk.error ??= networkError('udp', target, host, error);
      if (--chunk.remaining === 0) settled(chunk);
    };
    for (const datagram of datagrams) {
      try {
        s.send(datagram, onSent);
      } catch (error) {
        onSent(error as Error);
      }
    }
  };

  const open = (): Socket => {
    const s = createSocket(v6 ? 'udp6' : 'udp4');
    s.on('error', (error) => {
      if (s !== socket) return; // a socket given up earlier
      const failure = networkError('udp', target, host, error);
      if (connected) {
        // An ICMP answer to an earlier datagram: it was lost, though the OS took it.
        reports.next({ kind: 'failed', size: 0, bytes: 0, error: failure });
        return;
      }
      // Connecting failed (a host that does not resolve): what waited is lost; the next write tries again.
      socket = undefined;
      s.close();
      const lost = waiting;
      waiting = [];
      if (lost.length === 0) return;
      const bytes = lost.reduce((n, c) => n + byteLength(c.data), 0);
      settled({ size: lost.reduce((n, c) => n + c.size, 0), bytes, remaining: 0, error: failure }, lost.length);
    });
    s.once('connect', () => {
      connected = true;
      const ready = waiting;
      waiting = [];
      for (const chunk of ready) sendChunk(s, chunk);
    });
    s.connect(port, host);
    return s;
  };
  return {
    reports,
    write(chunk: EncodedBatch): void | Promise<void> {
      if (closing) throw new SinkError('udp', `cannot send to ${target}: the sink is closed`);
      settlement.issue();
      outstanding += byteLength(chunk.data);
      socket ??= open();
      if (connected) sendChunk(socket, chunk);
      else waiting.push(chunk);
      if (outstanding < highWaterMark) return undefined;
      return space.wait();
    },
    flush: () => settlement.flush(),
    close(): Promise<void> {
      closing ??= settlement.flush().finally(() => {
        socket?.close();
        socket = undefined;
        reports.complete();
      });
      return closing;
    },
  };
}
