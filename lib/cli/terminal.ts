import { fstatSync } from 'node:fs';
import type { BaseContext } from 'clipanion';

type Stream = NodeJS.WritableStream & { readonly isTTY?: boolean; readonly fd?: number };

export function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as Stream).isTTY === true;
}

/**
 * Whether what is written to `out` may show up on `terminal`: the same stream or the same tty
 * device (fstat), or a pipe or socket, whose reader may well print it there (`svc … | grep`), or
 * a stream whose descriptor cannot be looked at. Not for a regular file, `/dev/null` or another
 * terminal. When in doubt, yes: redrawing over data is the mistake to avoid.
 */
export function mayReachTerminal(out: NodeJS.WritableStream, terminal: NodeJS.WritableStream): boolean {
  if (out === terminal) return true;
  const fd = (out as Stream).fd;
  const terminalFd = (terminal as Stream).fd;
  if (typeof fd !== 'number') return true;
  try {
    const stat = fstatSync(fd);
    if (isTerminal(out)) return typeof terminalFd !== 'number' || stat.rdev === fstatSync(terminalFd).rdev;
    return !(stat.isFile() || stat.isCharacterDevice());
  } catch {
    return true;
  }
}

/**
 * Whether svc may colour what it prints: stdout and stderr are colour terminals (help goes to one,
 * errors to the other) and NO_COLOR is unset or empty (no-color.org).
 */
export function coloursAllowed(context: BaseContext): boolean {
  return !context.env.NO_COLOR && context.colorDepth > 1 && isTerminal(context.stdout) && isTerminal(context.stderr);
}
