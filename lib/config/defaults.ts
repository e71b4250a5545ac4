/**
 * `defaults`: validated once on their own (so a bad default is reported once, under `defaults`),
 * then merged raw into each entry before the entry is validated. An entry value wins; `labels`
 * merge key by key (the entry's key wins); every other field, objects included, is replaced whole.
 */
import * as t from 'io-ts';
import { decodeFields } from '../language/combinators.js';
import { ENTRY_ONLY_FIELDS, defaultsFields, type EntryField } from './entry-fields.js';
import { FIELD_SIGNALS } from './entry.js';
import { isMapping, issuesOf, type Issue } from '../language/problems.js';
import { desugarAlias } from '../language/aliases.js';

export interface Defaults {
  /** The raw values of the fields that passed validation. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Those fields decoded: an entry that gets one as it is takes its decoded value, not a decode of its own. */
  readonly decoded: Readonly<Record<string, unknown>>;
  /** Fields that failed: entries lacking them are not blamed for their absence. */
  readonly broken: ReadonlySet<string>;
  readonly issues: readonly Issue[];
}

export const NO_DEFAULTS: Defaults = { fields: {}, decoded: {}, broken: new Set(), issues: [] };

/** A default that an entry's own field rules out. */
const EXCLUDED_BY: Partial<Record<EntryField, EntryField>> = {
  phase_offset: 'after',
  after: 'phase_offset',
  generator: 'pack',
  metric_type: 'pack',
  help: 'pack',
};

/** A default that only reaches entries having this field. */
const ONLY_WITH: Partial<Record<EntryField, EntryField>> = { overrides: 'pack' };

export function decodeDefaults(raw: Record<string, unknown>): Defaults {
  const entryOnly = ENTRY_ONLY_FIELDS.filter((key) => Object.hasOwn(raw, key));
  const desugared = desugarAlias(
    Object.fromEntries(Object.entries(raw).filter(([key]) => !entryOnly.includes(key as EntryField))),
  );
  const shared = desugared.fields;
  const { value, errors } = decodeFields(defaultsFields, [], shared, [{ key: '', type: t.unknown, actual: shared }]);
  // An alias that failed is still the generator: its problems replace the generator codec's.
  const fieldIssues = [
    ...desugared.issues,
    ...issuesOf(errors).filter((issue) => !(desugared.issues.length && issue.path[0] === 'generator')),
  ];
  return {
    fields: Object.fromEntries(Object.entries(shared).filter(([key]) => Object.hasOwn(value, key))),
    decoded: value,
    broken: new Set(fieldIssues.map((issue) => String(issue.path[0]))),
    issues: [
      ...entryOnly.map((key) => ({
        path: [key],
        message: 'not allowed in defaults (it identifies one entry: set it on each entry)',
      })),
      ...fieldIssues,
    ],
  };
}

/** The entry with the defaults it lacks, and which fields came from the defaults (for messages). */
export function mergeDefaults(
  defaults: Defaults,
  entry: Record<string, unknown>,
): { raw: Record<string, unknown>; fromDefaults: Set<string> } {
  const raw = { ...entry };
  const fromDefaults = new Set<string>();
  const signal = Object.hasOwn(entry, 'signal_type') ? entry.signal_type : defaults.fields.signal_type;
  for (const [key, value] of Object.entries(defaults.fields)) {
    if (Object.hasOwn(entry, key)) {
      if (key === 'labels' && isMapping(value) && isMapping(entry.labels)) raw.labels = { ...value, ...entry.labels };
      continue;
    }
    const signals = FIELD_SIGNALS[key as EntryField];
    if (signals && !signals.includes(signal as never)) continue;
    const excludedBy = EXCLUDED_BY[key as EntryField];
    if (excludedBy && Object.hasOwn(entry, excludedBy)) continue;
    const onlyWith = ONLY_WITH[key as EntryField];
    if (onlyWith && !Object.hasOwn(entry, onlyWith)) continue;
    raw[key] = value;
    fromDefaults.add(key);
  }
  return { raw, fromDefaults };
}
