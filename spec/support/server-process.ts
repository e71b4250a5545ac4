import { spawn, type ChildProcess } from 'node:child_process';
import { waitFor } from './backends/ports.js';

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly base: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
  /** SIGKILL, unless it has exited already. */
  kill(): void;
}

/**
 * Spawns `bin/svc-server --port 0` (built `dist/`) with `args`, and reads the port from its
 * start-up line. Its stdout is kept only up to the start-up line when `quiet` (scenarios on a
 * stdout sink would fill memory otherwise).
 */
export async function startServerProcess(args: readonly string[] = [], env: Record<string, string> = {}, options: { quiet?: boolean } = {}): Promise<ServerProcess> {
  const child = spawn('bin/svc-server', ['--port', '0', '--bind', '127.0.0.1', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => {
    if (!options.quiet || !out.includes('\n')) out += s;
  });
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    if (!options.quiet || err.length < 1 << 20) err += s;
  });
  // A server must not outlive whoever started it (a frozen one would spin on unseen).
  const killOnExit = () => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      process.off('exit', killOnExit);
      resolve(code);
    }),
  );
  const port = await waitFor('the start-up line', () => /^\{"svc_server":\{"port":(\d+)\}\}\n/.exec(out)?.[1], 10_000);
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: () => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')),
  };
}
