import { spawn, type ChildProcess } from 'node:child_process';

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly base: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
  /** SIGKILL, unless it has exited already. */
  kill(): void;
}

export interface ServerProcessOptions {
  /** Flags after `--port 0`. */
  readonly args?: readonly string[];
  /** Added to this process's environment, from which the SVC_ settings of svc-server are removed. */
  readonly env?: Readonly<Record<string, string>>;
  /** Flags of node itself, e.g. `--max-old-space-size=256`. */
  readonly nodeFlags?: readonly string[];
  /** The installation to run `bin/svc-server` of; default this checkout. */
  readonly cwd?: string;
  /** Most KiB a file the server writes may hold (`ulimit -f`): a write past it fails (EFBIG), as on a full disk. */
  readonly fileSizeKiB?: number;
  /** Keep stdout only up to the start-up line (scenarios on a stdout sink would fill memory), and at most 1 MiB of stderr. */
  readonly quiet?: boolean;
}

/** Spawns `bin/svc-server --port 0` (built `dist/`); it is killed when this process exits. */
export function spawnServerProcess({
  args = [],
  env = {},
  nodeFlags = [],
  cwd,
  fileSizeKiB,
}: ServerProcessOptions = {}): ChildProcess {
  const inherited = { ...process.env };
  for (const name of [
    'SVC_BIND',
    'SVC_API_KEY',
    'SVC_FILE_ROOT',
    'SVC_CATALOG',
    'SVC_AUTOSTART',
    'SVC_SHARD',
    'SVC_STATE_DIR',
    'SVC_MAX_ENTRIES',
  ])
    delete inherited[name];
  const argv = [process.execPath, ...nodeFlags, 'bin/svc-server', '--port', '0', ...args];
  // The limit is the shell's (node ignores SIGXFSZ, so the write fails instead of the process); the shell's
  // unit is 512 bytes.
  const [command, ...rest] =
    fileSizeKiB === undefined ? argv : ['sh', '-c', `ulimit -f ${fileSizeKiB * 2} && exec "$@"`, 'sh', ...argv];
  const child = spawn(command!, rest, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...inherited, ...env },
    cwd,
  });
  // A server must not outlive whoever started it (a frozen one would spin on unseen).
  const killOnExit = () => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  return child;
}

/** {@link spawnServerProcess}, then reads the port from the start-up line. */
export async function startServerProcess(options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const child = spawnServerProcess(options);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => {
    if (!options.quiet || !out.includes('\n')) out += s;
  });
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    if (!options.quiet || err.length < 1 << 20) err += s;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await startUpPort(
    child,
    () => out,
    () => err,
  ).catch((error: unknown) => {
    // A server slow to start (a loaded machine) is not left running: it kept mocha from ever exiting.
    child.kill('SIGKILL');
    throw error;
  });
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: () => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')),
  };
}

/**
 * Most ms a server has to print its start-up line. A bound, not a wait: the line is taken as it comes, and an exit
 * before it fails at once. Under load (specs of other areas, two cores) a start took more than the 10 s once waited
 * for every time, and failed about one start in 8. Below mocha's 20 s: a hook that timed out first would leave the
 * server to start later and run on, unkilled, mocha never exiting, and its exit code and stderr unsaid.
 */
const START_UP_TIMEOUT_MS = 18_000;

/** The port of the start-up line, once `out()` holds it; rejects naming the exit code and stderr when the process ends first, or past {@link START_UP_TIMEOUT_MS}. */
function startUpPort(child: ChildProcess, out: () => string, err: () => string): Promise<string> {
  const port = () => /^\{"svc_server":\{"port":(\d+)\}\}\n/.exec(out())?.[1];
  return new Promise<string>((resolve, reject) => {
    const onData = () => {
      const found = port();
      if (found === undefined) return;
      settle();
      resolve(found);
    };
    const timer = setTimeout(() => {
      settle();
      reject(
        new Error(
          `svc-server printed no start-up line within ${START_UP_TIMEOUT_MS} ms (stdout: ${JSON.stringify(out().slice(0, 500))}, stderr: ${JSON.stringify(err().slice(0, 4000))})`,
        ),
      );
    }, START_UP_TIMEOUT_MS);
    const settle = () => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
    };
    child.stdout!.on('data', onData);
    // 'close', not 'exit': its pipes are read to their end by then, the start-up line too had it printed it.
    child.once('close', (code, signal) => {
      if (port() !== undefined) return;
      settle();
      reject(
        new Error(
          `svc-server exited (${code ?? signal}) before its start-up line; stderr: ${JSON.stringify(err().slice(0, 4000))}`,
        ),
      );
    });
  });
}
