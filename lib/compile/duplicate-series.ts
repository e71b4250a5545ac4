/**
 * Entries that write the same series (metric name and label set) into the same destination at overlapping
 * times: a store keeps one sample per series and timestamp, so Prometheus, promtool and remote write drop or
 * overwrite the other's samples (as duplicates or out of order), and a dashboard shows the two mixed. The
 * rule of docs/signals.md ("Two entries, one series"): an advisory warning naming both entries, the series
 * and the destination, never an error (two phases of one series that never overlap in time are fine).
 *
 * Each entry is reduced to a {@link SeriesWriter}: the sample names it writes, the values each of its label
 * keys can take (a rotating label's range as a prefix and a count, never its values one by one) and the span
 * of timestamps it writes, so the check costs the same at any cardinality.
 */
import type { Entry, ScenarioFile, SinkConfig } from '../config/types.js';
import type { While } from '../language/fields.js';
import type { EntryPlan } from './index.js';
import { sinkKindOf } from '../sinks/kinds/index.js';
import { isEmptyLabel } from '../config/entry.js';
import { redactText } from '../redact.js';
import { familyName } from '../protocols/metric-units.js';
import { SplitMix64 } from '../random.js';

/** An entry as the check reads it: what it writes, where, and when. */
export interface SeriesWriter {
  /** How messages name the entry: its id, or more (`cpu (scenario 1b9e…)`) for one of another file. */
  readonly name: string;
  readonly family: string;
  /** The sample names its encoder writes into its sink. */
  readonly samples: readonly string[];
  /** The sample names svc-server's aggregate scrape shows of it (the text format's, and a native histogram's). */
  readonly scraped: readonly string[];
  /** The label a sample carries besides the entry's: a histogram's `_bucket` its `le`, a summary's quantiles `quantile`. */
  readonly bound?: { readonly sample: string; readonly key: string };
  /** Where its sink writes; undefined for a store that keeps every record (a log store: metrics as log lines). */
  readonly destination: string | undefined;
  readonly labels: ReadonlyMap<string, KeyValues>;
  /** Timestamps it writes, in ms since 1970: from `from` up to (not at) `to`. */
  readonly from: number;
  readonly to: number;
  /**
   * When it runs, by the wall clock (ms since 1970): what a scrape of its latest values (svc-server's aggregate)
   * sees, whatever its timestamps.
   */
  readonly runs: Span;
  /** Its `while` gate, and the file whose ids its `ref` names. */
  readonly gate?: { readonly file: object } & While;
}

/** Times from `from` up to (not at) `to`, in ms since 1970. */
interface Span {
  readonly from: number;
  readonly to: number;
}

/** The values one label key can take on an entry's events. */
interface KeyValues {
  /**
   * Some events lack the key (a cardinality spike outside its window), or, given a list, those whose value in it
   * is empty (known once the list is indexed).
   */
  readonly absent: boolean | ValueList;
  readonly parts: readonly ValueSet[];
}

/**
 * Values written as they are (static labels, a list), `prefix` + 0 … count−1 (counter form), or a `random`
 * spike's `prefix` + the 16 hex digits SplitMix64 of `seed` gives 0 … count−1 (operators/labels.ts). A list is
 * kept as the entry has it and indexed ({@link indexOf}) the first time a comparison needs it; a random spike's
 * values are made ({@link randomList}) the first time one call of {@link duplicateSeriesWarnings} needs them, and
 * dropped after it (a spike of 250,000 values is about 17 MB, too much to keep in every running entry's writer).
 */
type ValueSet = { readonly list: ValueList } | CounterRange | RandomSpike | { readonly anything: true };

interface CounterRange {
  readonly prefix: string;
  readonly count: number;
}

interface RandomSpike {
  readonly prefix: string;
  readonly count: number;
  readonly seed: number;
}

type ValueList = readonly string[];

/** A list's values but the empty one, and whether it has the empty one. */
interface ListIndex {
  readonly values: ReadonlySet<string>;
  readonly empty: boolean;
}

/**
 * Work left to one comparison ({@link WORK_BUDGET}), the pairs it compared, and the values of random spikes made
 * in this call of {@link duplicateSeriesWarnings}.
 */
interface Budget {
  left: number;
  pairs: number;
  readonly randomLists: Map<RandomSpike, ValueList>;
}

/** Thrown out of a comparison when the budget ran out. */
const SPENT = Symbol('duplicate-series budget spent');

function spend(budget: Budget, work: number): void {
  budget.left -= work;
  if (budget.left < 0) throw SPENT;
}

/** The indexes of the lists compared so far: a running entry's lists are indexed once, for every POST after. */
const indexes = new WeakMap<ValueList, ListIndex>();

function indexOf(list: ValueList, budget: Budget): ListIndex {
  let index = indexes.get(list);
  if (!index) {
    spend(budget, list.length);
    const values = new Set(list);
    const empty = values.delete('');
    indexes.set(list, (index = { values, empty }));
  }
  return index;
}

function isAbsent({ absent }: KeyValues, budget: Budget): boolean {
  return typeof absent === 'boolean' ? absent : indexOf(absent, budget).empty;
}

const NO_KEY: KeyValues = { absent: true, parts: [] };
const ANY_VALUE: KeyValues = { absent: false, parts: [{ anything: true }] };

/**
 * How an entry's start is known: `at` ms after its file's start, or (an `after` trigger decided at run time)
 * not before `atLeast`.
 */
export interface KnownStart {
  readonly at?: number;
  readonly atLeast: number;
}

/**
 * The starts of a compiled file's entries, from their predicted starts: an `after` entry whose crossing is
 * decided at run time starts no sooner than its watched entry plus `after.delay`.
 */
function knownStarts(plans: readonly EntryPlan[]): Map<string, KnownStart> {
  const byId = new Map(plans.map((plan) => [plan.entry.id, plan]));
  const starts = new Map<string, KnownStart>();
  // `after` chains were checked for cycles, and each link is resolved once.
  const startOf = (plan: EntryPlan): KnownStart => {
    const known = starts.get(plan.entry.id);
    if (known) return known;
    const { predictedStart: predicted, entry } = plan;
    const watched = entry.after && byId.get(entry.after.ref);
    const start =
      predicted.at !== undefined
        ? { at: predicted.at, atLeast: predicted.at }
        : { atLeast: (watched ? startOf(watched).atLeast : 0) + (entry.after?.delay ?? 0) };
    starts.set(entry.id, start);
    return start;
  };
  for (const plan of plans) startOf(plan);
  return starts;
}

/**
 * The writers of a file's entries, its start at `fileStart` (ms since 1970): their starts predicted by the plan
 * when the file has one, else from their phase offsets.
 */
export function fileWriters(
  file: ScenarioFile & { readonly plans?: readonly EntryPlan[] },
  fileStart: number,
): SeriesWriter[] {
  const starts = file.plans ? knownStarts(file.plans) : undefined;
  return file.scenarios.flatMap((entry) => {
    const offset = entry.phase_offset ?? 0;
    const start =
      starts?.get(entry.id) ?? (entry.after ? { atLeast: entry.after.delay ?? 0 } : { at: offset, atLeast: offset });
    const writer = seriesWriter(entry, start, fileStart);
    if (!writer) return [];
    return entry.while ? { ...writer, gate: { file, ...entry.while } } : writer;
  });
}

/**
 * The writer of `entry`, started `start` after its file's start at `fileStart` (ms since 1970); undefined
 * for an entry whose series the check cannot know: logs and traces (a log store keeps every record of a
 * stream, a trace store every span) and the span metrics of a traces entry (their labels come from its spans).
 */
export function seriesWriter(
  entry: Entry,
  start: KnownStart,
  fileStart: number,
  name = entry.id,
): SeriesWriter | undefined {
  if (entry.name === undefined || entry.span_metrics_of) return;
  const samples = sampleNames(entry, entry.encoder.type);
  if (!samples.length) return;
  const { from, to } = timestampSpan(entry, start, fileStart);
  const runsFrom = fileStart + start.atLeast;
  const runsTo =
    entry.duration === undefined || start.at === undefined ? Number.POSITIVE_INFINITY : runsFrom + entry.duration;
  return {
    name,
    family: entry.name,
    samples,
    scraped: sampleNames(entry, 'metrics_text'),
    ...(entry.signal_type === 'histogram' && entry.buckets && { bound: { sample: `${entry.name}_bucket`, key: 'le' } }),
    ...(entry.signal_type === 'summary' && { bound: { sample: entry.name, key: 'quantile' } }),
    destination: destinationOf(entry.sink),
    labels: labelValues(entry),
    from,
    to,
    runs: { from: runsFrom, to: runsTo },
  };
}

/**
 * The sample names an entry's events carry as `encoder` writes them: OpenMetrics a counter's as `<family>_total`
 * (its family the name without `_total`) and a counter's, histogram's or summary's creation time as
 * `<family>_created`; the others (the text format, remote write, OTLP, Influx, JSON lines) the name as it is.
 */
function sampleNames(entry: Entry, encoder: string): string[] {
  const name = entry.name!;
  const openMetrics = encoder === 'openmetrics';
  switch (entry.signal_type) {
    case 'metrics': {
      if (!openMetrics || entry.metric_type !== 'counter') return [name];
      const family = familyName(name, 'counter');
      return [`${family}_total`, `${family}_created`];
    }
    case 'histogram':
      return [
        ...(entry.buckets ? [`${name}_bucket`] : []),
        ...(entry.native ? [name] : []),
        `${name}_sum`,
        `${name}_count`,
        ...(openMetrics ? [`${name}_created`] : []),
      ];
    case 'summary':
      return [name, `${name}_sum`, `${name}_count`, ...(openMetrics ? [`${name}_created`] : [])];
    default:
      return [];
  }
}

/**
 * The span of timestamps an entry writes (docs/timing.md, "Timestamps"): from its anchor plus its start, but
 * an absolute `start_time` outside a clock group stamps the entry's own tick 0 at that instant whatever its
 * phase offset; to its `duration` later. An `after` start decided at run time is taken as early as it can be,
 * and so as writing from there on.
 */
function timestampSpan(entry: Entry, start: KnownStart, fileStart: number): Span {
  const { start_time: anchor, duration, clock_group } = entry;
  const shift = anchor.kind === 'absolute' && clock_group === undefined ? 0 : start.atLeast;
  const base =
    anchor.kind === 'absolute' ? anchor.epochMs : fileStart + (anchor.kind === 'relative' ? anchor.offsetMs : 0);
  const from = base + shift;
  const known = start.at !== undefined || shift === 0;
  return { from, to: duration === undefined || !known ? Number.POSITIVE_INFINITY : from + duration };
}

/**
 * Sink kinds whose store keeps every record written: a log store (Loki) keeps two lines of one stream and
 * timestamp unless their text is the same too, so two entries' samples of one series both stay.
 */
const KEEPS_EVERY_RECORD: ReadonlySet<string> = new Set(['logstore']);

/**
 * Where a sink writes, as its kind names it (`remote_write http://prom:9090/api/v1/write`, `stdout`), with the
 * tenant a multi-tenant store (Mimir, Cortex) reads from the `X-Scope-OrgID` header: each tenant is a store of
 * its own. Undefined for a kind that keeps every record ({@link KEEPS_EVERY_RECORD}).
 */
function destinationOf(sink: SinkConfig): string | undefined {
  const kind = sinkKindOf(sink.type);
  if (kind && KEEPS_EVERY_RECORD.has(kind.type)) return;
  const fields = sink as unknown as Record<string, unknown>;
  const field = kind?.address?.field;
  const address = kind?.destination?.(sink as never) ?? (field && fields[field]);
  const headers = Object.entries((fields.headers ?? {}) as Record<string, string>);
  const tenant = headers.find(([name]) => name.toLowerCase() === 'x-scope-orgid')?.[1];
  const where = address === undefined || address === '' ? sink.type : `${sink.type} ${String(address)}`;
  return redactText(tenant === undefined ? where : `${where} (tenant ${tenant})`);
}

/**
 * The values each label key of the entry can take: static, then rotating (which win), then spikes (present in their
 * windows). An empty value is no label (a label set leaves it out): the key is absent where it is written.
 */
function labelValues(entry: Entry): Map<string, KeyValues> {
  const keys = new Map<string, KeyValues>();
  for (const [key, value] of Object.entries(entry.labels))
    if (value !== '') keys.set(key, { absent: false, parts: [{ list: [value] }] });
  for (const label of entry.dynamic_labels) {
    // A list of empty values only takes a static value of its key off every event.
    if (isEmptyLabel(label)) keys.delete(label.key);
    else if (label.form === 'list') keys.set(label.key, { absent: label.values, parts: [{ list: label.values }] });
    else keys.set(label.key, { absent: false, parts: [{ prefix: label.prefix, count: label.cardinality }] });
  }
  for (const spike of entry.cardinality_spikes) {
    const outside = keys.get(spike.label) ?? NO_KEY;
    const inside: ValueSet =
      spike.strategy === 'random'
        ? { prefix: spike.prefix, count: spike.cardinality, seed: spike.seed ?? 0 }
        : { prefix: spike.prefix, count: spike.cardinality };
    keys.set(spike.label, { absent: outside.absent, parts: [...outside.parts, inside] });
  }
  return keys;
}

/**
 * A label set both writers can write, or undefined when none: key by key, a value both can give the key (or
 * both lacking it). Keys are taken one by one, so two rotating labels of one entry that move together count as
 * free: the check may find a set that one of them never writes, and it never misses one.
 */
function sharedLabelSet(
  a: SeriesWriter,
  b: SeriesWriter,
  sample: string,
  budget: Budget,
): Map<string, string> | undefined {
  // On `sample`, a writer's bound label (`le`, `quantile`) takes any value.
  const boundOf = ({ bound }: SeriesWriter) => (bound && bound.sample === sample ? bound.key : undefined);
  const [boundA, boundB] = [boundOf(a), boundOf(b)];
  const valuesOf = (writer: SeriesWriter, bound: string | undefined, key: string) =>
    key === bound ? ANY_VALUE : (writer.labels.get(key) ?? NO_KEY);
  const shared = new Map<string, string>();
  const agree = (key: string): boolean => {
    // Two histograms' `le`: their buckets, not their labels.
    if (key === boundA && key === boundB) return true;
    const value = sharedValue(valuesOf(a, boundA, key), valuesOf(b, boundB, key), budget);
    if (value === undefined) return false;
    if (value !== null) shared.set(key, value);
    return true;
  };
  for (const key of a.labels.keys()) if (!agree(key)) return;
  for (const key of b.labels.keys()) if (!a.labels.has(key) && !agree(key)) return;
  for (const key of [boundA, boundB])
    if (key !== undefined && !a.labels.has(key) && !b.labels.has(key) && !agree(key)) return;
  return shared;
}

/** A value both can give a key, null when both can lack it, undefined when they have nothing in common. */
function sharedValue(a: KeyValues, b: KeyValues, budget: Budget): string | null | undefined {
  for (const x of a.parts)
    for (const y of b.parts) {
      const value = commonValue(x, y, budget);
      if (value !== undefined) return value;
    }
  return isAbsent(a, budget) && isAbsent(b, budget) ? null : undefined;
}

/**
 * A value two sets share. Two lists: the shorter walked, the longer looked up. A list and a counter range: the
 * range's values looked up in the list when fewer, else the list walked. A random spike: as the list of its values.
 * The work charged to `budget`.
 */
function commonValue(x: ValueSet, y: ValueSet, budget: Budget): string | undefined {
  if ('anything' in x) return 'anything' in y ? '0' : someValue(y, budget);
  if ('anything' in y) return someValue(x, budget);
  if ('seed' in x) return commonValue({ list: randomList(x, budget) }, y, budget);
  if ('seed' in y) return commonValue(x, { list: randomList(y, budget) }, budget);
  if ('list' in x && 'list' in y) {
    const [small, large] = x.list.length <= y.list.length ? [x.list, y.list] : [y.list, x.list];
    const index = indexOf(large, budget);
    return walk(small, (value) => index.values.has(value), budget);
  }
  if ('list' in x || 'list' in y) {
    const [{ list }, made] = ('list' in x ? [x, y] : [y, x]) as [{ list: ValueList }, CounterRange];
    if (made.count < list.length) {
      const index = indexOf(list, budget);
      spend(budget, made.count);
      for (let n = 0; n < made.count; n++) if (index.values.has(`${made.prefix}${n}`)) return `${made.prefix}${n}`;
      return;
    }
    return walk(list, (value) => madeValue(made, value), budget);
  }
  // Two counter ranges: the shorter prefix must begin the longer, the rest of it being digits of the shorter's numbers.
  const [short, long] = (x.prefix.length <= y.prefix.length ? [x, y] : [y, x]) as [CounterRange, CounterRange];
  if (!long.prefix.startsWith(short.prefix)) return;
  const rest = long.prefix.slice(short.prefix.length);
  const first = `${long.prefix}0`;
  // `short.prefix` + n, n = rest followed by the digits of one of `long`'s numbers: rest·10 at least.
  if (rest === '') return first;
  return /^[1-9]\d*$/.test(rest) && Number(rest) * 10 < short.count ? first : undefined;
}

/** The first of `list` that `test` passes, the values looked at charged to `budget` (a list is at most one POST long). */
function walk(list: ValueList, test: (value: string) => boolean, budget: Budget): string | undefined {
  const at = list.findIndex(test);
  spend(budget, at < 0 ? list.length : at + 1);
  return list[at];
}

/** A value of a set: a list's first not empty, a range's first. */
function someValue(set: Exclude<ValueSet, { anything: true }>, budget: Budget): string | undefined {
  if ('seed' in set) return `${set.prefix}${new SplitMix64(set.seed).hex(0)}`;
  if ('list' in set) return walk(set.list, (value) => value !== '', budget);
  return `${set.prefix}0`;
}

/** A random spike's values, made once a call (charged to `budget`, a value each). */
function randomList(spike: RandomSpike, budget: Budget): ValueList {
  let list = budget.randomLists.get(spike);
  if (!list) {
    spend(budget, spike.count);
    const random = new SplitMix64(spike.seed);
    list = Array.from({ length: spike.count }, (_, n) => `${spike.prefix}${random.hex(n)}`);
    budget.randomLists.set(spike, list);
  }
  return list;
}

/** Whether `value` is one of a counter range's: `prefix` + a number below `count`. */
function madeValue(made: CounterRange, value: string): boolean {
  if (!value.startsWith(made.prefix) || value.length === made.prefix.length) return false;
  const number = value.slice(made.prefix.length);
  return /^(0|[1-9]\d*)$/.test(number) && Number(number) < made.count;
}

/** Options of {@link duplicateSeriesWarnings}. */
export interface DuplicateOptions {
  /** Writers already running (svc-server's other scenarios): compared with each of `writers`, not with each other. */
  readonly running?: readonly SeriesWriter[];
  /** What `running` are, in the warning where a budget ran out; default `the entries running`. */
  readonly runningAre?: string;
  /**
   * A destination every writer writes to as well as its sink (svc-server's `GET /scenarios/metrics`, which
   * shows each series once).
   */
  readonly shared?: string;
}

/**
 * Work {@link duplicateSeriesWarnings} does at most comparing a file's entries with each other, and again with
 * the entries running, a pair of writers compared costing
 * {@link PAIR_WORK} and a list value indexed or walked 1: a file of 500 entries of one name and varying labels
 * posted beside 10,000 such running ones would make 5,000,000 pairs, and 250 entries each rotating a list of
 * 100,000 values 25,000,000 values. Past it, what is left is not compared (a warning says where the check
 * stopped), so a POST stays quick whatever the server runs.
 */
const WORK_BUDGET = 250_000;

/** What comparing a pair of writers costs, against a list value indexed or walked (measured: about twice as long). */
const PAIR_WORK = 2;

/**
 * For each writer that writes a series an earlier one (or a running one) writes into the same destination at
 * overlapping times, one warning naming the other entry, the series and the destination, keyed by the writer's
 * name, and one where a budget ran out. Writers are grouped by destination and sample name, and within a group those whose labels are all
 * static by their label set, so only writers that may clash are compared (within {@link WORK_BUDGET}).
 */
export function duplicateSeriesWarnings(
  writers: readonly SeriesWriter[],
  { running = [], runningAre = 'the entries running', shared }: DuplicateOptions = {},
): { name: string; warning: string }[] {
  const placesOf = (writer: SeriesWriter): Place[] =>
    [...new Set([writer.destination, shared])].flatMap((destination) =>
      destination === undefined
        ? []
        : (destination === shared ? writer.scraped : writer.samples).map((sample) => ({
            destination,
            sample,
            key: `${destination}\n${sample}`,
            byRunTime: destination === shared,
          })),
    );
  const warnings: { name: string; warning: string }[] = [];
  /** The writers warned of a clash: one warning each is enough (one the budget stopped at is still compared). */
  const clashed = new Set<string>();
  const randomLists = new Map<RandomSpike, ValueList>();
  /** Compares each of `writers` with `groups` (and, `growing`, with the writers before it), within a budget. */
  const compare = (writers: readonly SeriesWriter[], groups: Map<string, Group>, growing: boolean, whom: string) => {
    const budget: Budget = { left: WORK_BUDGET, pairs: 0, randomLists };
    for (const writer of writers)
      try {
        const places = placesOf(writer);
        const found = firstClash(writer, places, groups, budget);
        if (found) {
          warnings.push({ name: writer.name, warning: clashMessage(writer, found) });
          clashed.add(writer.name);
        }
        if (growing) addTo(groups, writer, places);
      } catch (error) {
        if (error !== SPENT) throw error;
        const pairs = budget.pairs.toLocaleString('en-US');
        warnings.push({
          name: writer.name,
          warning: `the check for entries that write one series stopped here, after ${pairs} pairs: this entry and those after it were not compared with ${whom}, and clashes among them are not warned of`,
        });
        return;
      }
  };
  // The file's entries with each other first, then with the running ones: each with a budget of its own, so
  // however many run, a clash within the file is found.
  compare(writers, new Map(), true, 'the entries before them');
  if (!running.length) return warnings;
  const groups = new Map<string, Group>();
  for (const writer of running) addTo(groups, writer, placesOf(writer));
  compare(
    writers.filter(({ name }) => !clashed.has(name)),
    groups,
    false,
    runningAre,
  );
  return warnings;
}

/** Adds `writer` to the groups of its places. */
function addTo(groups: Map<string, Group>, writer: SeriesWriter, places: readonly Place[]): void {
  for (const { key, sample } of places) {
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { byLabels: new Map(), varied: [] }));
    const signature = staticSignature(writer, sample);
    const same = signature === undefined ? group.varied : group.byLabels.get(signature);
    if (same) same.push(writer);
    else group.byLabels.set(signature!, [writer]);
  }
}

/** The writers of one sample name into one destination: those of static labels by their label set, the others. */
interface Group {
  readonly byLabels: Map<string, SeriesWriter[]>;
  readonly varied: SeriesWriter[];
}

interface Clash {
  readonly other: SeriesWriter;
  readonly sample: string;
  readonly destination: string;
  readonly labels: Map<string, string>;
}

/** Where a writer writes a sample, and whether two writers overlap there by run time (a scrape) or by timestamps. */
interface Place {
  readonly destination: string;
  readonly sample: string;
  readonly key: string;
  readonly byRunTime: boolean;
}

function overlap(a: Span, b: Span): boolean {
  return a.from < b.to && b.from < a.to;
}

/**
 * The first writer of `places` that clashes with `writer`, each pair's labels compared once and its times once
 * by timestamps and once by run time; throws {@link SPENT} past the budget.
 */
function firstClash(
  writer: SeriesWriter,
  places: readonly Place[],
  groups: ReadonlyMap<string, Group>,
  budget: Budget,
): Clash | undefined {
  // Others settled at every place: their labels share no set (on a sample where no bound label changes that).
  const apart = new Set<SeriesWriter>();
  // Others settled at the places judged by timestamps, or by run time: they never write together there.
  const notTogether = { stamps: new Set<SeriesWriter>(), runs: new Set<SeriesWriter>() };
  for (const { destination, sample, key, byRunTime } of places) {
    const group = groups.get(key);
    if (!group) continue;
    const elsewhere = byRunTime ? notTogether.runs : notTogether.stamps;
    const signature = staticSignature(writer, sample);
    // A writer of static labels clashes only with one of the same set or one whose labels vary.
    const lists =
      signature === undefined
        ? [...group.byLabels.values(), group.varied]
        : [group.byLabels.get(signature) ?? [], group.varied];
    for (const list of lists)
      for (const other of list) {
        if (apart.has(other) || elsewhere.has(other)) continue;
        spend(budget, PAIR_WORK);
        budget.pairs++;
        const overlaps = byRunTime ? overlap(writer.runs, other.runs) : overlap(writer, other);
        if (!overlaps || takeTurns(writer, other)) {
          elsewhere.add(other);
          continue;
        }
        const labels = sharedLabelSet(writer, other, sample, budget);
        if (labels) return { other, sample, destination, labels };
        // Compared once, but again on each sample where a bound label (`le`, `quantile`) makes the answer differ.
        if (writer.bound?.sample !== sample && other.bound?.sample !== sample) apart.add(other);
      }
  }
}

/**
 * Whether two writers of one file take turns: gated (`while`) on one watched entry by conditions that never
 * hold together (`> 50` and `< 50`), each gate closing no later than the other opens, and neither writing a
 * last sample after it closed (`snap_to`). Both gates read the same values, so one opens as the other closes.
 */
function takeTurns(a: SeriesWriter, b: SeriesWriter): boolean {
  const [x, y] = [a.gate, b.gate];
  if (!x || !y || x.file !== y.file || x.ref !== y.ref || x.op === y.op) return false;
  if (x.snap_to !== undefined || y.snap_to !== undefined) return false;
  const [above, below] = x.op === '>' ? [x, y] : [y, x];
  const open = (gate: While) => gate.delay?.open ?? 0;
  const close = (gate: While) => gate.delay?.close ?? 0;
  return below.value <= above.value && close(x) <= open(y) && close(y) <= open(x);
}

/** A writer's label set on `sample` when each of its labels has one value there; undefined when one varies (`le`). */
function staticSignature(writer: SeriesWriter, sample: string): string | undefined {
  if (writer.bound?.sample === sample) return;
  const pairs: string[] = [];
  for (const [key, { absent, parts }] of writer.labels) {
    const [part] = parts;
    const only = parts.length === 1 && absent === false && part && 'list' in part && part.list.length === 1;
    if (!only) return;
    pairs.push(`${key}=${JSON.stringify(part.list[0])}`);
  }
  return pairs.sort().join(',');
}

function clashMessage(writer: SeriesWriter, { other, sample, destination, labels }: Clash): string {
  const series = `${writer.family === other.family ? writer.family : sample}${labelText(labels)}`;
  return `writes the same series as ${other.name}: ${series} into ${destination}, at times that overlap: a store keeps one sample per series and timestamp (Prometheus drops the others as duplicates or out of order) and dashboards show the two mixed; tell them apart with a label (labels: {source: b}) or another name, or give them times that do not overlap (phase_offset, duration)`;
}

function labelText(labels: ReadonlyMap<string, string>): string {
  if (!labels.size) return '';
  const pairs = [...labels]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return `{${pairs.join(',')}}`;
}
