import type { Entry } from '../../config/types.js';

/** An entry the runtime cannot run (a configuration the validator let through by mistake). */
export class UnsupportedEntryError extends Error {}

/** `value`, which the entry's signal type needs: an entry without it is refused. */
export function required<T>(entry: Entry, field: string, value: T | undefined): T {
  if (value === undefined)
    throw new UnsupportedEntryError(`${entry.id}: ${field} is required for signal_type ${entry.signal_type}`);
  return value;
}
