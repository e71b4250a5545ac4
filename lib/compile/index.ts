/**
 * A validated scenario file -> the plan the runtime runs: packs expanded (built-in packs first, then the
 * catalog), the entries of span metrics made, `after` references checked on the expanded entries, clock groups assigned (automatic ones for
 * entries linked by `after`), and each entry's start predicted where the generators allow it (for
 * `--dry-run`; the runtime decides the real starts as it runs). Every problem is reported in the style of
 * lib/config, as a ConfigError.
 */
import { ConfigError, problemAt, type Issue, type Place, type Problem } from '../language/problems.js';
import { referenceIssues } from '../config/references.js';
import { encoderLabelIssues, unlabelledStreamRefusal } from '../config/entry.js';
import type { Entry, ScenarioFile } from '../config/types.js';
import type { Catalog } from '../catalog/index.js';
import type { PackAtPath } from '../config/pack.js';
import { CROSSING_STEPS, firstCrossing, type Crossing } from './crossing.js';
import { formatCondition, formatMs } from '../format.js';
import { assignClockGroups, type ClockGroup } from './groups.js';
import { expandPacks, type PackOrigin } from './packs.js';
import { withSpanMetrics } from './span-metrics.js';

export type { ClockGroup } from './groups.js';
export { describeLinks } from './groups.js';
export type { Crossing } from './crossing.js';
export type { PackOrigin } from './packs.js';

/**
 * When an entry is predicted to start, relative to the file's start, for `--dry-run` to show. A
 * prediction only: the runtime never reads it and wires the real starts itself (lib/runtime/file-run.ts).
 */
export type PredictedStart =
  /** At once (`at` 0) or after its phase offset. */
  | { readonly kind: 'offset'; readonly at: number }
  /** On its `after` trigger; `at` (ms after the file start) when it can be computed before running. */
  | { readonly kind: 'after'; readonly crossing: Crossing; readonly at?: number };

export interface EntryPlan {
  readonly entry: Entry;
  /** Names the entry in messages: `scenarios[0] (node.node_load1)`. */
  readonly label: string;
  /** Set on an entry expanded from a pack. */
  readonly pack?: PackOrigin;
  readonly predictedStart: PredictedStart;
}

/** A runnable file: its `scenarios` are the expanded entries, in file order. */
export interface ScenarioPlan extends ScenarioFile {
  readonly plans: readonly EntryPlan[];
  readonly groups: readonly ClockGroup[];
}

export interface CompileOptions {
  /** Names the file in messages. */
  readonly origin: string;
  /** Where packs that are not built in are looked up. */
  readonly catalog?: Catalog;
  /** The pack files entries name by path, read before compiling (./plan.ts): compiling does no file I/O. */
  readonly packFiles?: ReadonlyMap<string, PackAtPath>;
}

export function compileScenario(file: ScenarioFile, options: CompileOptions): ScenarioPlan {
  const prefix = (i: number) => (file.flat ? 'entry' : `scenarios[${i}]`);
  const place = (i: number, id: string): Place => ({
    path: file.flat ? [] : ['scenarios', i],
    label: `${prefix(i)} (${id})`,
  });
  const fail = (problems: Problem[]) => {
    if (problems.length) throw new ConfigError('invalid', options.origin, problems);
  };

  const packs = expandPacks(file.scenarios, options.catalog, options.packFiles);
  fail(packs.issues.map(({ index, issue }) => problemAt(place(index, file.scenarios[index]!.id), issue)));
  // The entries that write span metrics come from their traces entry's place in the file.
  const made = withSpanMetrics(packs.entries);
  const expansion = {
    entries: made.entries,
    origins: made.sources.map((i) => packs.origins[i]),
    sources: made.sources.map((i) => packs.sources[i]!),
  };
  const { origins, sources } = expansion;
  const placeOf = (i: number) => place(sources[i]!, expansion.entries[i]!.id);
  const labels = expansion.entries.map((_, i) => placeOf(i).label!);
  const report = (issues: readonly { index: number; issue: Issue }[]) =>
    fail(
      folded(issues, sources).map(({ index, issue, count }) =>
        problemAt(
          count > 1
            ? place(sources[index]!, `${file.scenarios[sources[index]!]!.id}, ${count} of its entries`)
            : placeOf(index),
          issue,
        ),
      ),
    );

  report(ambiguousRefs(expansion.entries, sources, origins));
  report(broughtLabelIssues(expansion.entries, origins));
  // The checks of lib/config once more, now that the ids inside packs exist.
  report(
    referenceIssues(
      expansion.entries.map(({ id, signal_type, generator, after, while: gate }) => ({
        id,
        signal_type,
        generator,
        after,
        while: gate,
      })),
      expansion.entries.map((_, i) => prefix(sources[i]!)),
    ),
  );
  const grouped = assignClockGroups(expansion.entries, labels);
  report(grouped.issues);
  const { entries, groups } = grouped;

  const predicted = predictStarts(entries);
  report(predicted.issues);
  const plans = entries.map((entry, i) => ({
    entry,
    label: labels[i]!,
    ...(origins[i] && { pack: origins[i] }),
    predictedStart: predicted.starts[i]!,
  }));
  return { ...file, scenarios: entries, plans, groups };
}

/**
 * Labels a pack's metric or a CSV's column brought that its entry's encoder cannot write (influx_lp: `time`), and
 * streams left without a label for a log store: the file's entry was checked before they were known, and every line
 * (every push) would be refused.
 */
function broughtLabelIssues(
  entries: readonly Entry[],
  origins: readonly (PackOrigin | undefined)[],
): { index: number; issue: Issue }[] {
  return entries.flatMap((entry, index) => {
    const origin = origins[index];
    const { generator } = entry;
    const source = origin
      ? `the metric ${origin.metric} of the pack "${origin.pack}"`
      : generator?.type === 'csv_replay'
        ? `the column ${generator.series?.header} of ${generator.file}`
        : undefined;
    if (source === undefined) return [];
    const unlabelled = unlabelledStreamRefusal(entry.sink.type, entry.labels, entry.dynamic_labels);
    return [
      ...encoderLabelIssues({ labels: entry.labels }, entry.encoder.type).map(({ path, message }) => ({
        path,
        message: `a label of ${source}: ${message}`,
      })),
      ...(unlabelled ? [{ path: ['labels'], message: `${source}: ${unlabelled}` }] : []),
    ].map((issue) => ({ index, issue }));
  });
}

/**
 * Refs that name a metric of which a pack or CSV expansion made several series (one per `mode`):
 * `<entry>.<metric>` is the first of them only by its id, or none of them when the pack gives them ids
 * (`<entry>.<metric>.<id>`), so the ref must say which one it means.
 */
function ambiguousRefs(
  entries: readonly Entry[],
  sources: readonly number[],
  origins: readonly (PackOrigin | undefined)[],
): { index: number; issue: Issue }[] {
  const byId = new Map(entries.map((entry, i) => [entry.id, i]));
  const issues: { index: number; issue: Issue }[] = [];
  entries.forEach((entry, i) => {
    for (const field of ['after', 'while'] as const) {
      const ref = entry[field]?.ref;
      if (ref === undefined) continue;
      const target = byId.get(ref);
      const named = (id: string) => id === ref || (id.startsWith(`${ref}#`) && /^\d+$/.test(id.slice(ref.length + 1)));
      const candidates =
        target === undefined
          ? entries.filter((_, j) => origins[j] && `${origins[j].entry}.${origins[j].metric}` === ref)
          : entries.filter((other, j) => sources[j] === sources[target] && named(other.id));
      if (candidates.length < (target === undefined ? 1 : 2)) continue;
      const listed = candidates.map((c) => `${c.id} ${formatLabels(c.labels)}`).join(', ');
      const message = `${JSON.stringify(ref)} names ${candidates.length} series (${listed}): give the id of the one to watch`;
      issues.push({ index: i, issue: { path: [field, 'ref'], message } });
    }
  });
  return issues;
}

/** `{cpu="0", mode="user"}`, as the series reads. */
function formatLabels(labels: Readonly<Record<string, string>>): string {
  return `{${Object.entries(labels)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(', ')}}`;
}

/** Each entry's predicted start, in dependency order; an `after` that can never fire, or fires at once, is an issue. */
function predictStarts(entries: readonly Entry[]): {
  starts: PredictedStart[];
  issues: { index: number; issue: Issue }[];
} {
  const byId = new Map(entries.map((entry, i) => [entry.id, i]));
  const starts: PredictedStart[] = [];
  const issues: { index: number; issue: Issue }[] = [];
  // One budget for the crossing searches of the whole file.
  const budget = { left: CROSSING_STEPS };
  const startOf = (i: number): PredictedStart => {
    const known = starts[i];
    if (known) return known;
    const entry = entries[i]!;
    if (!entry.after) return (starts[i] = { kind: 'offset', at: entry.phase_offset ?? 0 });
    // References are acyclic here (checked before), so the recursion ends.
    const watchedIndex = byId.get(entry.after.ref)!;
    const watched = entries[watchedIndex]!;
    const crossing = firstCrossing(watched, entry.after, budget);
    const watchedAt = startOf(watchedIndex).at;
    const { ref, op, value } = entry.after;
    const condition = formatCondition(entry.after);
    if (crossing.kind === 'never') {
      issues.push({
        index: i,
        issue: {
          path: ['after'],
          message: `${ref} never goes ${op === '>' ? 'above' : 'below'} ${value} ${crossing.reason}, so this entry would never start`,
        },
      });
    } else if (crossing.kind === 'tick' && crossing.tick === 0) {
      issues.push({
        index: i,
        issue: {
          path: ['after'],
          message: `${condition} already holds at the first tick of ${ref} (value ${crossing.value}): the condition must become true later; to start at a fixed time use phase_offset`,
        },
      });
    }
    const at =
      crossing.kind === 'tick' && watchedAt !== undefined
        ? watchedAt + crossing.offset + (entry.after.delay ?? 0)
        : undefined;
    return (starts[i] = { kind: 'after', crossing, ...(at !== undefined && { at }) });
  };
  for (let i = 0; i < entries.length; i++) startOf(i);
  return { starts, issues };
}

/** One line saying when an entry is predicted to start, for `--dry-run`. */
export function describePredictedStart(entry: Entry, start: PredictedStart): string {
  if (start.kind === 'offset')
    return start.at ? `${formatMs(start.at)} after the file start (phase offset)` : 'at the file start';
  const { ref, delay } = entry.after!;
  const when = `when ${formatCondition(entry.after!)}${delay ? ` (+ ${formatMs(delay)} delay)` : ''}`;
  const { crossing } = start;
  if (crossing.kind === 'runtime') return `${when}: decided at run time (${crossing.reason})`;
  if (crossing.kind === 'never') return `${when}: never`;
  const first = `${ref}'s tick ${crossing.tick} (value ${crossing.value}) ${formatMs(crossing.offset)} after it starts`;
  return start.at === undefined
    ? `${when}: ${first}; ${ref}'s own start is decided at run time`
    : `${when}: ${first} → ${formatMs(start.at)} after the file start`;
}

/**
 * Issues told once for the entries one file entry expanded into (a pack's metrics, a CSV's columns) when they are
 * the same issue, with how many of them have it: a pack entry's `after` that can never hold is one mistake, not one
 * a metric.
 */
function folded(
  issues: readonly { index: number; issue: Issue }[],
  sources: readonly number[],
): { index: number; issue: Issue; count: number }[] {
  const seen = new Map<string, { index: number; issue: Issue; count: number }>();
  for (const { index, issue } of issues) {
    const key = JSON.stringify([sources[index], issue.path, issue.message]);
    const first = seen.get(key);
    if (first) first.count++;
    else seen.set(key, { index, issue, count: 1 });
  }
  return [...seen.values()];
}
