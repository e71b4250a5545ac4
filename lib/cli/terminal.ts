import { fstatSync } from 'node:fs';
import type { BaseContext } from 'clipanion';

type Stream = NodeJS.WritableStream & { readonly isTTY?: boolean; readonly fd?: number };

export function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as Stream).isTTY === true;
}

/**
 * Whether two streams draw on one terminal: both terminals, and the same stream or the same
 * device (fstat of their descriptors: device and inode of the tty). When that cannot be told (a
 * terminal stream without a descriptor), they are taken to be one: redrawing over data is the
 * mistake to avoid.
 */
export function sameTerminal(a: NodeJS.WritableStream, b: NodeJS.WritableStream): boolean {
  if (!isTerminal(a) || !isTerminal(b)) return false;
  if (a === b) return true;
  const fa = (a as Stream).fd;
  const fb = (b as Stream).fd;
  if (typeof fa !== 'number' || typeof fb !== 'number') return true;
  try {
    const [sa, sb] = [fstatSync(fa), fstatSync(fb)];
    return sa.dev === sb.dev && sa.ino === sb.ino && sa.rdev === sb.rdev;
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
