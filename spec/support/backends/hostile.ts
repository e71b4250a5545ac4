import { createServer, type Socket } from 'node:net';

/**
 * How a hostile receiver treats each connection it accepts:
 * - `silent`: reads everything, answers nothing (an HTTP or gRPC server that never responds);
 * - `trickle`: reads everything, answers each request's worth of data with an HTTP `204` one byte a second;
 * - `stuck`: never reads (its socket buffers fill, the sender's writes stop draining);
 * - `sipping`: reads one byte a second.
 */
export type Hostility = 'silent' | 'trickle' | 'stuck' | 'sipping';

export interface HostileReceiver {
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** Bytes read from every connection so far. */
  readonly received: () => number;
  stop(): Promise<void>;
}

const ANSWER = Buffer.from('HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n');

/** A TCP server on 127.0.0.1 that accepts connections and then behaves as `hostility` says, forever. */
export async function startHostileReceiver(hostility: Hostility, byteEveryMs = 1000): Promise<HostileReceiver> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let received = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (hostility === 'stuck') return socket.pause();
    if (hostility === 'sipping') {
      socket.pause();
      const sip = setInterval(() => {
        const byte = socket.read(1) as Buffer | null;
        if (byte) received += byte.length;
      }, byteEveryMs);
      timers.add(sip);
      socket.on('close', () => (clearInterval(sip), timers.delete(sip)));
      return;
    }
    socket.on('data', (part: Buffer) => (received += part.length));
    if (hostility === 'trickle') {
      let next = 0;
      const drip = setInterval(() => {
        if (socket.writable) socket.write(ANSWER.subarray(next, next + 1));
        next = (next + 1) % ANSWER.length;
      }, byteEveryMs);
      timers.add(drip);
      socket.on('close', () => (clearInterval(drip), timers.delete(drip)));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as { port: number }).port}`,
    received: () => received,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
