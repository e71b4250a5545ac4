import { fstatSync } from 'node:fs';
import { WriteStream } from 'node:tty';
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
 * The colour depth of a terminal described by `env`, as Node reckons it (`TERM`, `FORCE_COLOR`, `TERM=dumb`), except
 * that an empty `NO_COLOR` leaves colours on, as no-color.org and {@link coloursAllowed} read it: Node counts the
 * variable as set whatever its value, so `NO_COLOR=` turned colours off.
 */
export function colourDepth(env: NodeJS.ProcessEnv): number {
  const { NO_COLOR: noColour, ...others } = env;
  return WriteStream.prototype.getColorDepth(noColour ? env : others);
}

/**
 * Whether svc may colour what it prints: stdout and stderr are colour terminals (help goes to one,
 * errors to the other) and NO_COLOR is unset or empty (no-color.org).
 */
export function coloursAllowed(context: BaseContext): boolean {
  return !context.env.NO_COLOR && context.colorDepth > 1 && isTerminal(context.stdout) && isTerminal(context.stderr);
}

/**
 * `text` with its control characters (Unicode's Cc) escaped, `\n` `\r` `\t` or `\u001b`: text of a scenario (a label
 * value, a sink's error message) printed as it is could move the cursor, recolour or clear a terminal, and would take
 * cells its width does not count.
 */
export function escapeControls(text: string): string {
  return text.replace(
    /\p{Cc}/gu,
    (char) => CONTROL_ESCAPES[char] ?? `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`,
  );
}

const CONTROL_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
