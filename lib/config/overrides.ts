/**
 * CLI flags that override file values. They are written into each raw entry before validation,
 * so a bad override gets the same check as the same mistake in the file; the override layer
 * remembers which flag set which field, so that the message names the flag rather than a field
 * the user never wrote (`--sink file: missing --endpoint`), once for the whole file.
 */
import { formatPath, isMapping, type Issue, type Segment } from '../language/problems.js';
import { SINK_KINDS, sinkKindOf } from '../sinks/kinds/index.js';
import { encoderKindOf } from '../encoders/kinds/index.js';
import { FIELD_SIGNALS, impliedSignal } from './entry.js';
import { SIGNAL_TYPES } from '../language/fields.js';
import type { Entry } from './types.js';

export interface CliOverrides {
  readonly rate?: number;
  readonly duration?: string;
  /** Sink type; a different type replaces the entry's sink, the same type keeps its other fields. */
  readonly sink?: string;
  /** The sink's address field (see ADDRESS_FIELDS); alone, it re-addresses the entry's own sink. */
  readonly endpoint?: string;
  /** The flag that gave `sink` and `endpoint` at once, named in their problems (`-o/--output`, short for both). */
  readonly sinkFlag?: string;
  /** Encoder type; a different type replaces the encoder, the same type keeps its fields. */
  readonly encoder?: string;
  /** Merged key by key over the entry's labels; the override wins. Entries that take no labels (traces) skip them. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly on_sink_error?: string;
  /** Fields a command wrote from its own flags (`svc metrics --name`): their problems name the flag. */
  readonly written?: readonly FlagField[];
}

/** The field that holds each sink type's destination, as its kind declares it. */
export const ADDRESS_FIELDS: Readonly<Record<string, string>> = Object.fromEntries(
  SINK_KINDS.flatMap((kind) => (kind.address ? [[kind.type, kind.address.field]] : [])),
);

/** A field an override wrote, and the flag that wrote it as messages show it (`--sink file`). */
export interface FlagField {
  readonly path: readonly Segment[];
  readonly flag: string;
  /**
   * The flag made this mapping whole (`--sink file` on an entry with another sink): its missing fields are
   * the flags'.
   */
  readonly made?: true;
}

/**
 * A problem that belongs to a flag: `issue.path` is below the field the flag set, `field` the path within the
 * entry.
 */
export interface FlagIssue {
  readonly flag: string;
  readonly issue: Issue;
  readonly field: readonly Segment[];
}

export interface Overridden {
  readonly raw: Record<string, unknown>;
  /** Entry fields whose value the overrides changed. */
  readonly fields: readonly string[];
  /** Which flag wrote which field. */
  readonly flags: readonly FlagField[];
  /** Problems of the overrides themselves. */
  readonly issues: readonly FlagIssue[];
}

export function applyOverrides(entry: Record<string, unknown>, overrides: CliOverrides): Overridden {
  const raw = { ...entry };
  const flags: FlagField[] = [...(overrides.written ?? [])];
  const issues: FlagIssue[] = [];
  const set = (field: 'rate' | 'duration' | 'on_sink_error', flag: string, value: unknown): void => {
    if (value === undefined) return;
    raw[field] = value;
    flags.push({ path: [field], flag });
  };
  set('rate', '--rate', overrides.rate);
  set('duration', '--duration', overrides.duration);
  set('on_sink_error', '--on-sink-error', overrides.on_sink_error);
  // A malformed `labels` stays as written, so that its own error is reported.
  if (overrides.labels !== undefined && takesLabels(raw) && (isMapping(raw.labels) || !Object.hasOwn(raw, 'labels'))) {
    raw.labels = { ...(raw.labels as Record<string, unknown> | undefined), ...overrides.labels };
    for (const key of Object.keys(overrides.labels)) flags.push({ path: ['labels', key], flag: `--label ${key}` });
  }
  if (overrides.encoder !== undefined) {
    const kept = isMapping(raw.encoder) && sameKind(encoderKindOf, raw.encoder.type, overrides.encoder);
    raw.encoder = kept ? raw.encoder : { type: overrides.encoder };
    flags.push(...typeSet('encoder', `--encoder ${overrides.encoder}`, kept));
  }
  if (overrides.sink !== undefined || overrides.endpoint !== undefined) {
    const current = isMapping(raw.sink) ? raw.sink : { type: 'stdout' };
    const kept = overrides.sink === undefined || sameKind(sinkKindOf, current.type, overrides.sink);
    const sink: Record<string, unknown> = kept ? { ...current } : { type: overrides.sink };
    if (overrides.sink !== undefined)
      flags.push(...typeSet('sink', overrides.sinkFlag ?? `--sink ${overrides.sink}`, kept));
    if (overrides.endpoint !== undefined) {
      const field = sinkKindOf(sink.type)?.address?.field;
      if (field) {
        sink[field] = overrides.endpoint;
        flags.push({ path: ['sink', field], flag: overrides.sinkFlag ?? '--endpoint' });
      } else if (sink.type === 'stdout') {
        // An unknown sink type is reported by validation; stdout is known and has no address.
        const message = `the entry's sink is stdout, which has no address: give --sink too (${Object.keys(ADDRESS_FIELDS).join(', ')})`;
        issues.push({ flag: '--endpoint', issue: { path: [], message }, field: ['sink'] });
      }
    }
    raw.sink = sink;
  }
  const fields = Object.keys(raw).filter((key) => raw[key] !== entry[key]);
  return { raw, fields, flags, issues };
}

/**
 * `entry` with the `--label` labels noted when it replays a CSV: the entry's labels hold them already, but a replayed
 * column's header labels win over the entry's, and the flag wins over both (lib/compile/replays.ts).
 */
export function notingFlagLabels(entry: Entry, overrides: CliOverrides): Entry {
  return overrides.labels && entry.generator?.type === 'csv_replay'
    ? { ...entry, flag_labels: overrides.labels }
    : entry;
}

/**
 * Whether `--label` goes to this entry: not to one of a signal that takes no labels (a traces entry, whose spans carry
 * attributes), as a `labels` default skips it; an entry of no known signal gets them, its own error comes first.
 */
function takesLabels(raw: Record<string, unknown>): boolean {
  const signal = typeof raw.signal_type === 'string' ? raw.signal_type : impliedSignal(raw);
  const known = SIGNAL_TYPES.find((type) => type === signal);
  return known === undefined || (FIELD_SIGNALS.labels?.includes(known) ?? true);
}

/** Whether two type names name one kind (an alias names its kind); unknown names are compared as written. */
function sameKind(kindOf: (type: unknown) => { type: string } | undefined, a: unknown, b: string): boolean {
  return a === b || (kindOf(a) !== undefined && kindOf(a) === kindOf(b));
}

/** What `--sink T` or `--encoder T` wrote: the type, and the whole mapping unless the entry's own was kept. */
function typeSet(field: 'sink' | 'encoder', flag: string, kept: boolean): FlagField[] {
  return kept
    ? [{ path: [field, 'type'], flag }]
    : [
        { path: [field, 'type'], flag },
        { path: [field], flag, made: true },
      ];
}

/**
 * The flag an entry's validation issue belongs to, with the issue restated for the flag, or
 * undefined when the file's own values are at fault.
 */
export function flagIssue(issue: Issue, overridden: Overridden): FlagIssue | undefined {
  const owner = overridden.flags
    .filter((f) => f.path.length <= issue.path.length && f.path.every((segment, i) => issue.path[i] === segment))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (!owner) return undefined;
  const below = issue.path.slice(owner.path.length);
  const parent = owner.path.reduce<unknown>(
    (value, key) => (isMapping(value) ? value[key] : undefined),
    overridden.raw,
  );
  const [field] = below;
  if (owner.made && below.length === 1 && isMapping(parent) && !Object.hasOwn(parent, field!)) {
    // A field the flag's mapping lacks: the flag that gives it, or none.
    const type = String(parent.type);
    const message =
      owner.path[0] === 'sink' && sinkKindOf(type)?.address?.field === field
        ? `missing --endpoint (the sink's ${field})`
        : `the ${type} ${owner.path[0]} needs ${field}, which no flag sets: write the ${owner.path[0]} in the scenario file`;
    return { flag: owner.flag, issue: { path: [], message }, field: issue.path };
  }
  return { flag: owner.flag, issue: { ...issue, path: below }, field: issue.path };
}

/** `--sink file: missing --endpoint (the sink's path)`. */
export function flagMessage({ flag, issue }: FlagIssue): string {
  return [flag, formatPath(issue.path), issue.message].filter((part) => part).join(': ');
}
