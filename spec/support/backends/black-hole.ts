import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';

/**
 * A listener that never completes a handshake: a child process listens with the smallest backlog, then blocks its
 * thread (`Atomics.wait`, no CPU) so it never accepts. Once the two connections made here fill its queue, the kernel
 * drops further SYNs, as a firewall or a host gone from the network does: a client's connect stays pending.
 */
export interface BlackHole {
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  stop(): Promise<void>;
}

const CHILD = `
const { createServer } = require('node:net');
const server = createServer();
server.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () => {
  process.send(server.address().port, () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000));
});
`;

export async function startBlackHole(): Promise<BlackHole> {
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve(message as number));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the black hole exited (${code}) before it listened`)));
  });
  // Fill the accept queue (a backlog of 1 holds two).
  const fillers: Socket[] = [0, 1, 2].map(() => connect(port, '127.0.0.1').on('error', () => undefined));
  await new Promise((resolve) => setTimeout(resolve, 100));
  return {
    address: `127.0.0.1:${port}`,
    async stop() {
      for (const socket of fillers) socket.destroy();
      child.kill('SIGKILL');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    },
  };
}
