import { spawn } from 'node:child_process';

/** What one `promtool test rules` run said: its verdict, and its output for a failure that is not a check's. */
export interface PromtoolResult {
  readonly passed: boolean;
  readonly output: string;
  readonly code: number;
}

/**
 * What promtool said, to follow a message: `:` and its output, or its exit code when it printed nothing. Its
 * framing is left out (`Unit Testing:  <the unit test, removed by then>`, `FAILED:`), and so is a block of lines it
 * repeats right after itself (a rules file's YAML error comes twice). Lines keep their indentation but for the one
 * they all share: a check's `exp:` and `got:` stay under its `expr:`, and two checks failing with the same lines
 * are both told.
 */
export function promtoolWords({ output, code }: PromtoolResult): string {
  const lines = withoutRepeatedBlocks(
    output
      .split('\n')
      .map((line) => line.trimEnd())
      .filter((line) => line && !/^\s*Unit Testing:/.test(line) && line.trim() !== 'FAILED:'),
  );
  const indent = Math.min(...lines.map((line) => line.length - line.trimStart().length));
  const said = lines.map((line) => line.slice(indent)).join('\n');
  return said ? `:\n${said}` : `: it exited with code ${code} and printed nothing`;
}

/** `lines` without any block of them that repeats, line for line, the block right before it. */
function withoutRepeatedBlocks(lines: readonly string[]): string[] {
  const kept = [...lines];
  for (let size = 1; size <= kept.length / 2; size++)
    for (let at = 0; at + 2 * size <= kept.length; ) {
      const repeats = kept.slice(at, at + size).every((line, i) => line === kept[at + size + i]);
      if (repeats) kept.splice(at + size, size);
      else at++;
    }
  return kept;
}

/** Runs `promtool test rules` on a unit test file; `stop` aborted ends the run (rejecting with its reason). */
export type Promtool = (testFile: string, stop?: AbortSignal) => Promise<PromtoolResult>;

/** A run that takes longer is stopped: promtool evaluates a few thousand steps in well under a second. */
const PROMTOOL_TIMEOUT_MS = 60_000;

/** `promtool test rules`, run from `command` (a path, or a name looked up on PATH). */
export function promtool(command: string): Promtool {
  return (testFile, stop) =>
    new Promise((resolve, reject) => {
      if (stop?.aborted) return reject(stop.reason);
      const child = spawn(command, ['test', 'rules', testFile], { stdio: ['ignore', 'pipe', 'pipe'] });
      const abort = () => child.kill('SIGTERM');
      stop?.addEventListener('abort', abort, { once: true });
      // A timer of our own, cleared on every end: spawn's `timeout` stayed armed after a failed start (ENOENT),
      // holding the process for its whole length.
      const timer = setTimeout(() => child.kill('SIGTERM'), PROMTOOL_TIMEOUT_MS);
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        stop?.removeEventListener('abort', abort);
        reject(
          new Error(
            error.code === 'ENOENT'
              ? `promtool not found ("${command}"): install Prometheus's promtool (Debian: apt install prometheus) or set PROMTOOL to its path`
              : `promtool: ${error.message}`,
          ),
        );
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        stop?.removeEventListener('abort', abort);
        if (stop?.aborted) reject(stop.reason);
        else if (signal)
          reject(
            new Error(
              `promtool stopped by ${signal}${signal === 'SIGTERM' ? ` (no answer within ${PROMTOOL_TIMEOUT_MS / 1000}s)` : ''}`,
            ),
          );
        else resolve({ passed: code === 0, output, code: code! });
      });
    });
}
