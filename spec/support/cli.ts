import { expect } from 'chai';
import { type ChildProcess, execFileSync, spawn, type StdioOptions } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { Observable } from 'rxjs';
import { main } from '../../lib/cli/main.js';
import { temporaryDirectory } from './directories.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface SvcOptions {
  readonly signals?: Observable<string>;
  /** Streams to run on instead of captured ones (a fake terminal); what they receive is not in the result. */
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  readonly stdin?: Readable;
  /** Default: process.env. */
  readonly env?: Record<string, string | undefined>;
  /** Default: 1 (no colours). */
  readonly colorDepth?: number;
}

/** Runs `svc <argv>` in-process on captured streams (or on the streams given). */
export async function svc(argv: string[], options: SvcOptions = {}): Promise<CliResult> {
  const capture = () => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    return { stream, text: () => Buffer.concat(chunks).toString() };
  };
  const stdout = capture();
  const stderr = capture();
  const code = await main(argv, {
    stdin: options.stdin ?? process.stdin,
    stdout: options.stdout ?? stdout.stream,
    stderr: options.stderr ?? stderr.stream,
    env: options.env ?? process.env,
    colorDepth: options.colorDepth ?? 1,
    signals: options.signals,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** The non-empty lines of a text. */
export const lines = (text: string) => text.split('\n').filter(Boolean);

/** A STOPPED line: entry, optional sink error, event count. */
export const STOPPED = /^\[progress\] (\S+) {2}STOPPED( \(sink: .+\))? \| events: (\d+) \| bytes: .+ \| elapsed: .+$/;

/** A fresh temporary directory, and a function writing scenario files into it (returns their paths). */
export function scenarioDir(prefix: string): { dir: string; scenario: (name: string, text: string) => string } {
  const dir = temporaryDirectory(prefix);
  return {
    dir,
    scenario: (name, text) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}

/**
 * A named pipe `name` made in `dir` that no process reads: it passes the checks before a run (it exists and may be
 * written), and a file sink's open of it fails.
 */
export function unreadPipe(dir: string, name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

export interface SpawnOptions {
  /** Standard input: a file descriptor (default: none). */
  readonly stdin?: number;
  /** Standard output piped and collected (`stdout()`); child.stdout is there for a spec to read or close too. Default: ignored. */
  readonly stdout?: boolean;
  /** Default: process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Where bin/svc is run from (another installation of it). Default: this one. */
  readonly cwd?: string;
  /** Shell commands run first in the process that then becomes svc (a limit: `ulimit -f 64`). */
  readonly shell?: string;
  /** SIGKILL after this many ms: a run that should have ended and did not fails its spec, and is not left behind. */
  readonly killAfterMs?: number;
}

/**
 * Starts `svc argv` as a real process, collecting its stderr (and its stdout when asked); `closed` resolves with how
 * it ended. A spec kills it in its `finally`, so that a failed assertion leaves no process running mocha waits for.
 */
export function spawnSvc(argv: readonly string[], options: SpawnOptions = {}) {
  const { stdin = 'ignore', env, cwd, shell, killAfterMs } = options;
  const stdio: StdioOptions = [stdin, options.stdout ? 'pipe' : 'ignore', 'pipe'];
  const child: ChildProcess = shell
    ? spawn('sh', ['-c', `${shell}; exec bin/svc "$@"`, 'sh', ...argv], { stdio, env, cwd })
    : spawn('bin/svc', argv, { stdio, env, cwd });
  const collect = (stream: Readable | null) => {
    let text = '';
    stream?.setEncoding('utf8').on('data', (part: string) => (text += part));
    return () => text;
  };
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  if (killAfterMs !== undefined) {
    const guard = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    const clear = () => clearTimeout(guard);
    closed.then(clear, clear);
  }
  return { child, stdout, stderr, closed };
}

/** Runs `svc argv` as a real process to its end: its exit code (null when a signal ended it), stdout and stderr. */
export async function runSvc(
  argv: readonly string[],
  options: SpawnOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { stdout, stderr, closed } = spawnSvc(argv, { ...options, stdout: true });
  return { code: (await closed).code, stdout: stdout(), stderr: stderr() };
}

/** Runs bin/svc on `file` (with `flags`), sends SIGTERM once `started()` says data flows, returns exit code and stderr. */
export async function runUntilTerm(
  file: string,
  started: () => boolean,
  flags: readonly string[] = [],
): Promise<{ code: number | null; stderr: string }> {
  const { child, stderr, closed } = spawnSvc(['run', file, ...flags]);
  const poll = setInterval(() => {
    if (started()) {
      clearInterval(poll);
      child.kill('SIGTERM');
    }
  }, 20);
  try {
    return { code: (await closed).code, stderr: stderr() };
  } finally {
    clearInterval(poll);
  }
}

/** Events and dropped events (0 when its line names none) of an entry's STOPPED line (default: the entry `beat`). */
export const stoppedCounts = (stderr: string, entry = 'beat'): { events: number; dropped: number } => {
  const match = new RegExp(
    `\\[progress\\] ${entry}  STOPPED(?: \\(sink: .+\\))? \\| events: (\\d+) \\|(?:[^\\n]* \\| dropped: (\\d+))?`,
  ).exec(stderr);
  expect(match, stderr).to.not.equal(null);
  return { events: Number(match![1]), dropped: Number(match![2] ?? 0) };
};

/** Events of an entry's STOPPED line (default: the entry `beat`). */
export const stoppedEvents = (stderr: string, entry = 'beat'): number => stoppedCounts(stderr, entry).events;

/**
 * A scenario file (written with `scenario`) whose one metrics entry `beat` counts up by one a
 * tick (a step generator, so tick n writes n) over `pods` pod labels, at `rate`, until stopped,
 * into `sink` (YAML flow text); `extra` lines (two-space indent under the entry) add fields.
 */
export function foreverScenario(
  scenario: (name: string, text: string) => string,
  sink: string,
  { rate = 2000, pods = 4, extra = [] as string[] } = {},
): string {
  return scenario(
    `forever-${Math.random().toString(36).slice(2)}.yaml`,
    [
      'version: 2',
      'kind: runnable',
      'scenarios:',
      '  - signal_type: metrics',
      '    name: beat',
      `    rate: ${rate}`,
      '    generator: { type: step, start: 0, step_size: 1 }',
      `    dynamic_labels: [{ key: pod, cardinality: ${pods} }]`,
      ...extra.map((line) => `    ${line}`),
      `    sink: ${sink}`,
      '',
    ].join('\n'),
  );
}

/** The text of a scenario file whose one entry `up` writes the constant 1 into `sink` (YAML flow text), with `fields` (e.g. `rate: 10`, `duration: 1s`). */
export function upScenario(sink: string, fields: readonly string[] = ['rate: 1']): string {
  return [
    'version: 2',
    'kind: runnable',
    'scenarios:',
    '  - signal_type: metrics',
    '    name: up',
    ...fields.map((f) => `    ${f}`),
    '    generator: { type: constant, value: 1 }',
    `    sink: ${sink}`,
    '',
  ].join('\n');
}
