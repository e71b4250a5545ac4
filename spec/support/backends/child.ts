import { spawn, type ChildProcess } from 'node:child_process';

/** A backend process this spec started, stopped by its PID only. */
export interface Backend {
  readonly child: ChildProcess;
  /** Everything it wrote to stderr and stdout, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `command` in the foreground; `stop` sends SIGTERM to its PID, then SIGKILL after 5 s. */
export function startBackend(command: string, args: readonly string[]): Backend {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (part: string) => (output = (output + part).slice(-20_000)));
  child.stderr!.setEncoding('utf8').on('data', (part: string) => (output = (output + part).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error) => (output += `\nspawn failed: ${error.message}`));
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(
        () => child.pid !== undefined && child.exitCode === null && process.kill(child.pid, 'SIGKILL'),
        5000,
      );
      await exited;
      clearTimeout(timer);
    },
  };
}
