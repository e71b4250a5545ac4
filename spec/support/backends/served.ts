import { rm } from 'node:fs/promises';
import { temporaryDirectory } from '../directories.js';
import { requireBinary } from './binaries.js';
import { startBackend } from './child.js';
import { freeTcpPort, waitFor } from './ports.js';

/** A backend serving HTTP on a free 127.0.0.1 port, its files in a fresh temporary directory. */
export interface ServedBackend {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Stops the process and removes its directory. */
  stop(): Promise<void>;
}

export interface ServedBackendOptions {
  /** Its name in messages (`Prometheus`), and, lower-cased, in its directory's name. */
  readonly name: string;
  /** Its binary, and the Debian package that installs it. */
  readonly binary: string;
  readonly debianPackage: string;
  /** The path that answers 2xx once it is ready (`/-/ready`). */
  readonly readyPath: string;
  /** Its arguments for its directory and port; may write its configuration there first. */
  args(dir: string, port: number): readonly string[] | Promise<readonly string[]>;
}

/**
 * Starts the binary and waits (15 s at most) until it is ready. A backend that does not get
 * ready is stopped and its directory removed; the error carries what it printed.
 */
export async function startServedBackend({
  name,
  binary,
  debianPackage,
  readyPath,
  args,
}: ServedBackendOptions): Promise<ServedBackend> {
  const command = requireBinary(binary, debianPackage);
  const dir = temporaryDirectory(`svc-${name.toLowerCase()}-`);
  const port = await freeTcpPort();
  const url = `http://127.0.0.1:${port}`;
  const backend = startBackend(command, await args(dir, port));
  const stop = async (): Promise<void> => {
    await backend.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(`${name} ready`, async () => ((await fetch(`${url}${readyPath}`)).ok ? true : undefined), 15_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${backend.output()}`);
  }
  return { url, stop };
}
