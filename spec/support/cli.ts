import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** The non-empty lines of a text. */
export const lines = (text: string) => text.split('\n').filter(Boolean);

/** A STOPPED line: entry, optional sink error, event count. */
export const STOPPED = /^\[progress\] (\S+)  STOPPED( \(sink: .+\))? \| events: (\d+) \| bytes: .+ \| elapsed: .+$/;

/** A fresh temporary directory, and a function writing scenario files into it (returns their paths). */
export function scenarioDir(prefix: string): { dir: string; scenario: (name: string, text: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    scenario: (name, text) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}
