import type * as t from 'io-ts';
import { isSecretField, MASK, redactText } from '../redact.js';

/** One step of a path into the document: a field name or a list index. */
export type Segment = string | number;

/** A problem found while validating one part of the document, with a path relative to that part. */
export interface Issue {
  readonly path: readonly Segment[];
  readonly message: string;
  readonly code?: ProblemCode;
}

/** What kind of problem, where a caller answers some differently (the server's `feature_not_built`). */
export type ProblemCode = 'feature_not_built';

/** A problem as reported to the user: `path` from the document root, `message` complete and self-contained. */
export interface Problem {
  readonly path: string;
  readonly message: string;
  readonly code?: ProblemCode;
}

/** Where an issue was found: the path of the part and the label that names it in messages. */
export interface Place {
  readonly path: readonly Segment[];
  /** `scenarios[0] (cpu_usage)`, `entry (cpu_usage)`, `defaults`; absent at the top level. */
  readonly label?: string;
}

export const TOP: Place = { path: [] };

/**
 * `syntax`: not YAML/JSON (HTTP 400); `invalid`: fails validation (HTTP 422); `unreadable`: the file cannot
 * be read.
 */
export type ConfigErrorKind = 'syntax' | 'invalid' | 'unreadable';

/** Messages listed in `ConfigError.message`; `problems` always holds all of them. */
const LISTED = 100;

/** A scenario file that cannot be used; `message` lists every problem, one a line, prefixed by the origin. */
export class ConfigError extends Error {
  constructor(
    readonly kind: ConfigErrorKind,
    readonly origin: string,
    readonly problems: readonly Problem[],
  ) {
    const lines = problems.slice(0, LISTED).map((p) => `${origin}: ${p.message}`);
    if (problems.length > LISTED) lines.push(`${origin}: ... and ${problems.length - LISTED} more problems`);
    super(lines.join('\n'));
    this.name = 'ConfigError';
  }
}

/**
 * io-ts errors as issues; every codec of this module sets a message, the fallback is for safety only. A secret
 * field's value (a password, a secret header, of whatever type) is masked where the message shows it.
 */
export function issuesOf(errors: t.Errors): Issue[] {
  return errors.map((error) => {
    // context[0] is the root; an entry's parent (context[i]) tells whether its key is a list index.
    const path = error.context
      .slice(1)
      .map((entry, i) => (Array.isArray(error.context[i]!.actual) ? Number(entry.key) : entry.key));
    const message = error.message ?? `invalid value ${show(error.value)}`;
    const [key, parent] = [path.at(-1), path.at(-2)];
    const secret = typeof key === 'string' && isSecretField(key, typeof parent === 'string' ? parent : undefined);
    return { path, message: secret ? maskLast(message, show(error.value)) : message };
  });
}

/** `message` with the last place it shows `shown` (the value it is about: `got number 123`) masked. */
function maskLast(message: string, shown: string): string {
  const at = message.lastIndexOf(shown);
  return at < 0 ? message : `${message.slice(0, at)}${MASK}${message.slice(at + shown.length)}`;
}

export function problemAt(place: Place, issue: Issue): Problem {
  const field = formatPath(issue.path);
  return {
    path: formatPath([...place.path, ...issue.path]),
    message: [place.label, field, issue.message].filter((part) => part).join(': '),
    ...(issue.code && { code: issue.code }),
  };
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `scenarios[0].labels["bad-key"]`: dotted names, bracketed indexes, quoted odd keys. */
export function formatPath(path: readonly Segment[]): string {
  // A key is the user's text too: a long one is cut as values are.
  return path
    .map((segment, i) =>
      typeof segment === 'number'
        ? `[${segment}]`
        : IDENTIFIER.test(segment)
          ? `${i ? '.' : ''}${shortened(segment)}`
          : `[${JSON.stringify(shortened(segment))}]`,
    )
    .join('');
}

const SHOWN_CHARS = 60;

/** A text of the user's as messages hold it: a long one cut short. */
export function shortened(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 3)}...` : text;
}

/** A value as written in messages: `0`, `"run"`, `a list`. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(shortened(redactText(value)));
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (isMapping(value)) return 'a mapping';
  return value instanceof Uint8Array ? 'binary data' : `a ${typeof value}`;
}

/** A value with its type, for invalid-type messages: `string "5"`, `number 30`, `a list`. */
export function describe(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? `${typeof value} ${show(value)}`
    : show(value);
}

/** A plain object as produced by YAML and JSON parsers (not a list, not binary data). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The candidate closest to what was typed (Damerau–Levenshtein distance, case ignored), when it is
 * close enough to be a typo: one edit for names up to 5 characters, two beyond. The one rule of
 * every "did you mean" (unknown fields, flags and commands). `typed` is the word, or what was typed
 * for each candidate (a command of two words is compared with the first two words given).
 */
export function closest(
  typed: string | ((candidate: string) => string),
  candidates: readonly string[],
): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const word = typeof typed === 'string' ? typed : typed(candidate);
    const allowed = candidate.length <= 5 ? 1 : 2;
    // The distance is at least the difference in length: long keys cost nothing here.
    if (Math.abs(candidate.length - word.length) > allowed) continue;
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= allowed && distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** Edits (insert, delete, substitute, swap two neighbours) turning `a` into `b`; three rows of the table at a time. */
function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        current[j] = Math.min(current[j]!, before[j - 2]! + 1);
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}
