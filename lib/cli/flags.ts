import { Option, UsageError } from 'clipanion';
import { decimal } from '../language/decimal.js';

/**
 * The value each flag takes, as help and usage errors write it (`--rate <n>`): clipanion itself
 * writes `#0`. Flags are declared through {@link valueFlag} and {@link listFlag}, which record it.
 */
const VALUES = new Map<string, string>();

/** A flag taking one value, e.g. `valueFlag('--rate', '<n>', 'Events per second')`. */
export function valueFlag(name: string, value: string, description: string) {
  for (const alias of name.split(',')) recordValue(alias, value);
  return Option.String(name, { description });
}

/** A repeatable flag taking one value each time. */
export function listFlag(name: string, value: string, description: string) {
  recordValue(name, value);
  return Option.Array(name, { description });
}

/**
 * The map is keyed by flag, not by command, and filled as each command is instantiated: a flag that two
 * commands wrote differently would show whichever was instantiated last, so that is refused.
 */
function recordValue(flag: string, value: string): void {
  const known = VALUES.get(flag);
  if (known !== undefined && known !== value) throw new Error(`${flag} is declared as ${known} and as ${value}`);
  VALUES.set(flag, value);
}

/** The value `flag` takes, as help writes it; `<value>` for a flag declared otherwise. */
export function valueNameOf(flag: string): string {
  return VALUES.get(flag) ?? '<value>';
}

/** `text` (a usage line or option definition of clipanion's) with each `#0` replaced by the value its flag takes. */
export function withValues(text: string): string {
  return text.replace(/(-[\w-]+) #0/g, (_, flag: string) => `${flag} ${valueNameOf(flag)}`);
}

/** What a number flag accepts beyond a number: a whole number, a range, and how to say so. */
export interface NumberRange {
  readonly integer?: boolean;
  readonly min?: number;
  readonly max?: number;
  /** Replaces "a number" in the message, e.g. "a port from 0 to 65535". */
  readonly expected?: string;
}

/** The number `flag`'s `text` gives, or a UsageError naming the flag: the one parser of every number flag. */
export function flagNumber(flag: string, text: string, range: NumberRange = {}): number {
  // Decimal notation only, and finite (1e400 is Infinity).
  const n = decimal(text) ?? Number.NaN;
  const fits =
    Number.isFinite(n) &&
    (!range.integer || Number.isInteger(n)) &&
    !(n < (range.min ?? -Infinity)) &&
    !(n > (range.max ?? Infinity));
  if (!fits) throw new UsageError(`${flag}: expected ${range.expected ?? 'a number'}, got "${text}"`);
  return n;
}

/**
 * `name=value` texts of a repeatable `flag` as a record (`form` is how its usage writes a pair: `key=value`); a
 * name given twice is a UsageError ending with `once(name)`, as the later value would silently replace the earlier
 * one (`--field user=ann --field user=bob` wrote bob only).
 */
export function flagPairs<T>(
  flag: string,
  form: string,
  texts: readonly string[],
  value: (raw: string) => T,
  once: (name: string) => string,
): Record<string, T> {
  const pairs = new Map<string, T>();
  for (const text of texts) {
    const at = text.indexOf('=');
    if (at <= 0) throw new UsageError(`${flag}: expected ${form}, got "${text}"`);
    const name = text.slice(0, at);
    if (pairs.has(name))
      throw new UsageError(`${flag}: ${name} is given twice, and only one value could be kept: ${once(name)}`);
    pairs.set(name, value(text.slice(at + 1)));
  }
  return Object.fromEntries(pairs);
}

/**
 * The file `-o` names, or undefined for `-o -`: standard output, as `-` for the scenario file is standard input.
 */
export function outputFileOf(output: string | undefined): string | undefined {
  return output === '-' ? undefined : output;
}

/** `text` of `flag` when it is one of `choices`, else a UsageError naming the flag and the choices. */
export function flagChoice<T extends string>(flag: string, text: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(text)) return text as T;
  throw new UsageError(`${flag}: expected one of ${choices.join(', ')}, got "${text}"`);
}

/** The value of a flag with the spelling it was given in: the spelling errors about it name. */
export interface GivenFlag<T> {
  readonly flag: string;
  readonly value: T;
}

/**
 * The one given of the `spellings` of one flag (each declared as its own option, e.g. `--file` and the reference
 * tool's `--replay-file`), or undefined; both given is a UsageError rather than a silent last-wins.
 */
export function givenSpelling<T>(spellings: Readonly<Record<string, T | undefined>>): GivenFlag<T> | undefined {
  const given = Object.entries(spellings).filter((entry): entry is [string, T] => entry[1] !== undefined);
  if (given.length > 1)
    throw new UsageError(`${given.map(([flag]) => flag).join(' and ')} are one flag: give one of them`);
  const [first] = given;
  return first && { flag: first[0], value: first[1] };
}
