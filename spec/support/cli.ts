import { PassThrough } from 'node:stream';
import type { Observable } from 'rxjs';
import { main } from '../../lib/cli/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `svc <argv>` in-process on captured streams. */
export async function svc(argv: string[], options: { signals?: Observable<string> } = {}): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await main(argv, {
    stdin: process.stdin,
    stdout,
    stderr,
    env: process.env,
    colorDepth: 1,
    signals: options.signals,
  });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}
