import { createServer, type Server, type Socket } from 'node:net';

/** A TCP server on 127.0.0.1 that keeps what each connection sent, and can go down and come back. */
export interface TcpPeer {
  readonly port: number;
  /** The bytes of each connection, in connection order. */
  readonly connections: string[];
  /** Drops every connection at once (no FIN wait) and stops listening. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a peer on `port` (0: a free one). */
export async function startTcpPeer(port = 0): Promise<TcpPeer> {
  const connections: string[] = [];
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let bound = port;

  const up = async (): Promise<void> => {
    const s = createServer((socket) => {
      const i = connections.push('') - 1;
      sockets.add(socket);
      socket.setEncoding('utf8');
      socket.on('data', (part: string) => (connections[i] += part));
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(bound, '127.0.0.1', () => resolve());
    });
    bound = (s.address() as { port: number }).port;
    server = s;
  };
  const down = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.resetAndDestroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await up();
  return {
    get port() {
      return bound;
    },
    connections,
    down,
    up,
    stop: down,
  };
}
