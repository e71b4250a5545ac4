import { Option } from 'clipanion';

/**
 * The value each flag takes, as help and usage errors write it (`--rate <n>`): clipanion itself
 * writes `#0`. Flags are declared through {@link valueFlag} and {@link listFlag}, which record it.
 */
const VALUES = new Map<string, string>();

/** A flag taking one value, e.g. `valueFlag('--rate', '<n>', 'Events per second')`. */
export function valueFlag(name: string, value: string, description: string) {
  VALUES.set(name, value);
  return Option.String(name, { description });
}

/** A repeatable flag taking one value each time. */
export function listFlag(name: string, value: string, description: string) {
  VALUES.set(name, value);
  return Option.Array(name, { description });
}

/** The value `flag` takes, as help writes it; `<value>` for a flag declared otherwise. */
export function valueOf(flag: string): string {
  return VALUES.get(flag) ?? '<value>';
}

/** `text` (a usage line or option definition of clipanion's) with each `#0` replaced by the value its flag takes. */
export function withValues(text: string): string {
  return text.replace(/(-[\w-]+) #0/g, (_, flag: string) => `${flag} ${valueOf(flag)}`);
}
