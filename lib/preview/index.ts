/**
 * A preview: what the entries of a compiled file make over a span of virtual time, reduced to a few numbers per
 * point of a time grid, for `svc plot` and `POST /preview` to draw. The file runs as a backfill does
 * (lib/runtime/backfill.ts: the same `after` and `while` wiring, phase offsets, clock groups, bursts and gaps)
 * into sinks that discard; the chain's hooks hand over the batches. Nothing is written to the entries' sinks.
 */
import type { Labelled, LogBatch, ObservationBatch, SampleBatch } from '../../operators/model/batch.js';
import { SPAN_STATUS, type SpanBatch } from '../../operators/model/span.js';
import type { Entry } from '../config/types.js';
import type { EntryPlan } from '../compile/index.js';
import { rateScheduleOf, rowsPerEvent } from '../config/entry.js';
import { anchorOf } from '../language/start-time.js';
import { labelOptions } from '../runtime/chain/labels.js';
import { internsLabelSets } from '../../operators/labels.js';
import { BackfillScheduler } from '../runtime/backfill-scheduler.js';
import { backfillEntries } from '../runtime/backfill.js';
import { clockLinkedIds } from '../runtime/file-run.js';
import type { SignalHooks } from '../runtime/chain/signal.js';
import { DISCARD } from '../runtime/chain/sink.js';
import { formatMs } from '../format.js';
import { entryMarks } from './marks.js';
import { bySeverity, QuantileBand, RateLines, SpanLines, ValueLines } from './series.js';
import type { Preview, PreviewEntry, PreviewSeries } from './types.js';

export type { Preview, PreviewEntry, PreviewMark, PreviewSeries } from './types.js';

/** Longest span of virtual time a preview covers (ms): a day. */
export const MAX_PREVIEW_MS = 24 * 3_600_000;
/** The span a preview covers when the caller gives none, at most: 30 minutes. */
export const DEFAULT_PREVIEW_MS = 30 * 60_000;
/** The shortest span a preview defaults to: its points stay milliseconds apart, not fractions of one. */
const MIN_DEFAULT_PREVIEW_MS = 1000;
/** Fewest and most points of a preview's grid. */
export const MIN_POINTS = 10;
export const MAX_POINTS = 2000;
/**
 * Most rows a preview makes (samples, log records and spans, and the observations of histograms and summaries):
 * about 10 seconds of work on one core. A file that would make more is refused, naming its costliest entry.
 */
export const MAX_PREVIEW_ROWS = 10_000_000;
/**
 * What a row counts for when its entry can write more label sets than the labels operator interns: each tick then
 * builds a label set of its own, and a row takes about 2.5 times as long (a gauge of 5,000 events/s over 30m, 9,000,000
 * rows: 9 s with one label set, 22 s with a rotating label of 10,000,000 values).
 */
export const BUILT_LABEL_SET_ROW_WEIGHT = 2.5;
/**
 * Rows each event of an entry that runs in step with the clock counts for besides its own (a `while` gate, the entry
 * it watches, an entry naming spans and its traces entry: {@link clockLinkedIds}): the clock wakes up for each of its
 * events, which costs more than the event (a gauge of 100 events/s: 5.7 µs an event in step, 0.75 µs ahead of the
 * clock; logs of 200 events/s: 9.4 µs gated by `while`, 13 µs with trace_context, 1.2 µs without either).
 */
export const CLOCK_LINKED_EVENT_ROWS = 8;
/**
 * Where a preview's virtual clock starts when neither the caller nor an absolute `start_time` says:
 * 2026-01-01T00:00:00Z, so the same file gives the same data on any day.
 */
export const PREVIEW_EPOCH = Date.UTC(2026, 0, 1);

export interface PreviewOptions {
  /**
   * Milliseconds of virtual time from the file's start: at most {@link MAX_PREVIEW_MS}. Default: until the entries
   * end ({@link defaultPreviewFor}).
   */
  readonly for?: number;
  /** Steps of the grid: {@link MIN_POINTS} to {@link MAX_POINTS}. */
  readonly points: number;
  /** Only this entry's chart (the entries it watches or counts the spans of run too). */
  readonly entry?: string;
  /** Epoch ms the virtual clock starts at; default: an absolute `start_time` of the file, else {@link PREVIEW_EPOCH}. */
  readonly start?: number;
  /** Stops the computing when aborted (whoever asked went away): the preview rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * A preview that cannot be made: `option` names what is wrong (`for`, `points`, `entry`), or `rate` when it is too much
 * work, whose message the caller ends with what to ask instead in its own terms (flags, query parameters).
 */
export class PreviewError extends Error {
  override readonly name = 'PreviewError';
  constructor(
    readonly option: 'for' | 'points' | 'entry' | 'rate',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The preview of the entries of `plans` (compiled: lib/compile). Throws a {@link PreviewError} when the options are
 * out of bounds or the preview would make more than {@link MAX_PREVIEW_ROWS} rows; rejects when an entry fails.
 */
export async function previewScenario(plans: readonly EntryPlan[], options: PreviewOptions): Promise<Preview> {
  const entries = plans.map((plan) => plan.entry);
  const shown = chosen(entries, options.entry);
  // An entry runs with those it watches and whose spans it counts: without them it would not start, or differ.
  const referenced = withReferences(entries, shown);
  const forMs = options.for ?? untilLastEnd(plans, referenced);
  const { points } = options;
  if (!(forMs >= 1 && forMs <= MAX_PREVIEW_MS))
    throw new PreviewError('for', `for: expected a duration from 1ms to 24h, got ${formatMs(forMs)}`);
  if (!Number.isInteger(points) || points < MIN_POINTS || points > MAX_POINTS)
    throw new PreviewError(
      'points',
      `points: expected a whole number from ${MIN_POINTS} to ${MAX_POINTS}, got ${points}`,
    );
  if (shown.length === 0)
    throw new PreviewError(
      'entry',
      `entry: no entry of the file has the id "${options.entry}" (its ids: ${entries.map((e) => e.id).join(', ')})`,
    );
  const running = referenced.map((entry) => ({
    ...entry,
    duration: Math.min(entry.duration ?? Infinity, forMs),
  }));
  refuseCostly(running, forMs);

  const start = options.start ?? absoluteStart(entries) ?? PREVIEW_EPOCH;
  const from = anchorOf(shown[0]!.start_time)(start);
  const step = forMs / points;
  const clock = new BackfillScheduler(start);
  const charts = new Map(shown.map((entry) => [entry.id, chartOf(entry, points, step)]));
  // Rows are placed once the entry's start is known: those of the first instants come before backfillEntries returns.
  let startedAt: ((id: string) => number | undefined) | undefined;
  const early: (() => void)[] = [];
  const placed =
    (entry: Entry, place: (at: (offset: number) => number) => void): (() => void) =>
    () => {
      const began = startedAt!(entry.id)! - start;
      place((offset) => Math.floor((began + offset) / step));
    };
  const whenStarted = (run: () => void) => (startedAt ? run() : early.push(run));
  const gates = new Map<string, [number, number][]>();

  const hooksOf = (entry: Entry): SignalHooks => {
    const own = charts.get(entry.id);
    // The span metrics entries shown that count this traces entry's spans: their band is of the spans' durations.
    const counting = shown.filter(
      (other) => other.span_metrics_of?.from === entry.id && other.span_metrics_of.family === 'duration',
    );
    const hooks: { -readonly [K in keyof SignalHooks]: SignalHooks[K] } = {};
    if (own?.kind === 'values')
      hooks.onSamples = (batch: Labelled<SampleBatch>) =>
        whenStarted(placed(entry, (at) => addSamples(own.lines, batch, at, points)));
    if (own?.kind === 'logs')
      hooks.onLogs = (batch: Labelled<LogBatch>) =>
        whenStarted(placed(entry, (at) => addLogs(own.lines, batch, at, points)));
    if (own?.kind === 'band' && !entry.span_metrics_of)
      hooks.onObservations = (batch: Labelled<ObservationBatch>) =>
        whenStarted(placed(entry, (at) => addObservations(own.band, batch, at, points)));
    const bands = counting.flatMap((other) => {
      const chart = charts.get(other.id);
      return chart?.kind === 'band'
        ? [{ band: chart.band, nsPerUnit: other.span_metrics_of!.unit === 's' ? 1e9 : 1e6 }]
        : [];
    });
    if (own?.kind === 'spans' || bands.length > 0)
      hooks.onSpans = (batch: SpanBatch) =>
        whenStarted(
          placed(entry, (at) => {
            if (own?.kind === 'spans') addSpans(own.lines, batch, at, points);
            for (const { band, nsPerUnit } of bands) addDurations(band, batch, at, points, nsPerUnit);
          }),
        );
    if (own && entry.while) {
      const open: [number, number][] = [];
      gates.set(entry.id, open);
      // The gate's edges are read on the clock as they happen; an open span ends at its close (entryMarks cuts it).
      hooks.onGate = (isOpen) => {
        const at = from + clock.now() - start;
        if (isOpen) open.push([at, Infinity]);
        else if (open.length > 0) open[open.length - 1]![1] = at;
      };
    }
    return hooks;
  };

  const backfill = backfillEntries(running, { clock, createSink: () => DISCARD, hooks: hooksOf });
  startedAt = backfill.startedAt;
  for (const run of early.splice(0)) run();
  // Entries without a duration run for the whole preview: the file is stopped where the axis ends.
  backfill.clock.schedule(() => void backfill.stop(), Math.max(0, start + forMs - backfill.clock.now()));
  // The virtual clock lets the event loop run every 10 ms, so an abort is heard while it computes.
  const stopOnAbort = () => void backfill.stop();
  options.signal?.addEventListener('abort', stopOnAbort, { once: true });
  const outcomes = await backfill.done.finally(() => options.signal?.removeEventListener('abort', stopOnAbort));
  options.signal?.throwIfAborted();
  const failed = outcomes.findIndex((outcome) => outcome.error);
  if (failed >= 0) throw new Error(`${running[failed]!.id}: ${outcomes[failed]!.error!.message}`);

  const to = from + forMs;
  return {
    from,
    step,
    points,
    entries: shown.map((entry) => {
      const chart = charts.get(entry.id)!;
      // An `after` start is known once triggered, its delay still to run: past the axis, it never started here.
      const planned = backfill.startedAt(entry.id);
      const began = planned !== undefined && planned - start < forMs ? planned : undefined;
      const span = {
        from,
        to,
        started: began === undefined ? to : from + began - start,
        ended: began === undefined ? to : from + began - start + (entry.duration ?? Infinity),
      };
      return {
        id: entry.id,
        ...kindOf(entry),
        series: chart.series(),
        marks: began === undefined ? [] : entryMarks(entry, span, gates.get(entry.id) ?? []),
      };
    }),
  };
}

/** The entries a preview shows: the one whose id is `entry`, else every one. */
function chosen(entries: readonly Entry[], entry: string | undefined): readonly Entry[] {
  return entry === undefined ? entries : entries.filter((e) => e.id === entry);
}

/**
 * The span of a preview of `plans` (of its entry `entry`, else of every entry) when the caller gives none: until the
 * last of the entries it runs ends, when each has a `duration` and a start known before running (at once, a phase
 * offset, an `after` crossing the compiler predicted), from 1s to {@link DEFAULT_PREVIEW_MS}; else that 30 minutes.
 * A 3-second file then fills the chart instead of its first column.
 */
export function defaultPreviewFor(plans: readonly EntryPlan[], entry?: string): number {
  const entries = plans.map((plan) => plan.entry);
  return untilLastEnd(plans, withReferences(entries, chosen(entries, entry)));
}

/** {@link defaultPreviewFor} of the entries `referenced` runs. */
function untilLastEnd(plans: readonly EntryPlan[], referenced: readonly Entry[]): number {
  const running = new Set(referenced);
  let end = 0;
  for (const { entry, predictedStart } of plans) {
    if (!running.has(entry)) continue;
    if (entry.duration === undefined || predictedStart.at === undefined) return DEFAULT_PREVIEW_MS;
    end = Math.max(end, predictedStart.at + entry.duration);
  }
  return Math.min(DEFAULT_PREVIEW_MS, Math.max(MIN_DEFAULT_PREVIEW_MS, end));
}

/** `shown` and every entry they reference (`after`, `while`, `exemplars`, `trace_context`, span metrics), in file order. */
function withReferences(entries: readonly Entry[], shown: readonly Entry[]): readonly Entry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const needed = new Set<string>();
  const visit = (entry: Entry | undefined): void => {
    if (!entry || needed.has(entry.id)) return;
    needed.add(entry.id);
    for (const ref of [
      entry.after?.ref,
      entry.while?.ref,
      entry.exemplars?.from,
      entry.trace_context?.from,
      entry.span_metrics_of?.from,
    ])
      if (ref !== undefined) visit(byId.get(ref));
  };
  shown.forEach(visit);
  return entries.filter((entry) => needed.has(entry.id));
}

/**
 * Refuses a preview of more than {@link MAX_PREVIEW_ROWS} rows, naming the entry that makes the most. The rows of an
 * entry whose ticks build their own label sets count {@link BUILT_LABEL_SET_ROW_WEIGHT} each; each event of an entry
 * in step with the clock, {@link CLOCK_LINKED_EVENT_ROWS} more.
 */
function refuseCostly(entries: readonly Entry[], forMs: number): void {
  const linked = clockLinkedIds(entries);
  const wakeUps = (entry: Entry) => (linked.has(entry.id) ? CLOCK_LINKED_EVENT_ROWS : 0);
  const costs = entries.map((entry) => {
    // The events its rate and burst windows schedule within its run: a burst counts while it lasts, not throughout.
    const events = rateScheduleOf(entry).slotsBefore(entry.duration!);
    return events * ((rowsPerEvent(entry) + (entry.observations_per_tick ?? 0)) * rowWeight(entry) + wakeUps(entry));
  });
  const total = costs.reduce((sum, cost) => sum + cost, 0);
  if (total <= MAX_PREVIEW_ROWS) return;
  const worst = costs.indexOf(Math.max(...costs));
  const entry = entries[worst]!;
  const built =
    rowWeight(entry) > 1
      ? `, a row counted ${BUILT_LABEL_SET_ROW_WEIGHT} times as it builds its own label set (its dynamic_labels and cardinality_spikes make more than 65,536)`
      : '';
  const inStep =
    wakeUps(entry) > 0
      ? `, each event counted ${CLOCK_LINKED_EVENT_ROWS} rows more as it runs in step with the clock (a while gate, or spans named by exemplars, trace_context or span metrics)`
      : '';
  throw new PreviewError(
    'rate',
    `the preview would make the work of about ${Math.round(total).toLocaleString('en')} rows (samples, log records, spans and observations), more than ${MAX_PREVIEW_ROWS.toLocaleString('en')}; most come from ${entry.id}, at rate ${entry.rate} events/s over ${formatMs(Math.min(entry.duration!, forMs))}${built}${inStep}`,
  );
}

/** What each row of `entry` counts for in the bound. */
function rowWeight(entry: Entry): number {
  return internsLabelSets(labelOptions(entry)) ? 1 : BUILT_LABEL_SET_ROW_WEIGHT;
}

/** The `start_time` instant of the first entry that has an absolute one. */
function absoluteStart(entries: readonly Entry[]): number | undefined {
  for (const { start_time } of entries) if (start_time.kind === 'absolute') return start_time.epochMs;
  return undefined;
}

/** What a preview keeps of one entry, by the kind of chart it gets. */
type Chart = (
  | { readonly kind: 'values'; readonly lines: ValueLines }
  | { readonly kind: 'logs'; readonly lines: RateLines }
  | { readonly kind: 'spans'; readonly lines: SpanLines }
  | { readonly kind: 'band'; readonly band: QuantileBand }
) & { series(): PreviewSeries[] };

function chartOf(entry: Entry, points: number, step: number): Chart {
  switch (entry.signal_type) {
    case 'metrics': {
      const lines = new ValueLines(points);
      return { kind: 'values', lines, series: () => lines.series() };
    }
    case 'logs': {
      const lines = new RateLines(points, step);
      return { kind: 'logs', lines, series: () => lines.series(bySeverity) };
    }
    case 'traces': {
      const lines = new SpanLines(points, step);
      return { kind: 'spans', lines, series: () => lines.series() };
    }
    case 'histogram':
    case 'summary': {
      const band = new QuantileBand(points);
      return { kind: 'band', band, series: () => band.series() };
    }
  }
}

function kindOf(entry: Entry): Pick<PreviewEntry, 'signal' | 'type' | 'unit'> {
  switch (entry.signal_type) {
    case 'metrics':
      return { signal: 'metrics', type: entry.metric_type === 'counter' ? 'counter' : 'gauge', unit: 'value' };
    case 'logs':
      return { signal: 'logs', type: 'logs', unit: 'events/s' };
    case 'traces':
      return { signal: 'traces', type: 'traces', unit: 'spans/s' };
    case 'histogram':
    case 'summary': {
      const unit = entry.span_metrics_of ? (entry.span_metrics_of.unit === 's' ? 'seconds' : 'milliseconds') : 'value';
      return { signal: 'metrics', type: entry.signal_type, unit };
    }
  }
}

// The add functions read the batch's columns once a batch: they take the batches of every entry shown, whose shapes
// differ with the operators before, so a load from the batch a row is polymorphic, and megamorphic past four shapes.

function addSamples(lines: ValueLines, batch: Labelled<SampleBatch>, at: (offset: number) => number, points: number) {
  const { size, offset, series, value } = batch;
  for (let i = 0; i < size; i++) {
    const point = at(offset[i]!);
    if (point >= 0 && point < points) lines.add(point, series[i]!.key, value[i]!);
  }
}

function addLogs(lines: RateLines, batch: Labelled<LogBatch>, at: (offset: number) => number, points: number) {
  const { size, offset, severity } = batch;
  for (let i = 0; i < size; i++) {
    const point = at(offset[i]!);
    if (point >= 0 && point < points) lines.add(point, severity[i]!);
  }
}

function addObservations(
  band: QuantileBand,
  batch: Labelled<ObservationBatch>,
  at: (offset: number) => number,
  points: number,
) {
  const { size, offset, observations } = batch;
  for (let i = 0; i < size; i++) {
    const point = at(offset[i]!);
    if (point >= 0 && point < points) for (const value of observations[i]!) band.add(point, value);
  }
}

function addSpans(lines: SpanLines, batch: SpanBatch, at: (offset: number) => number, points: number) {
  const { size, offset, firstSpan, spanCount, spans } = batch;
  const { status } = spans;
  for (let i = 0; i < size; i++) {
    const point = at(offset[i]!);
    if (point < 0 || point >= points) continue;
    const first = firstSpan[i]!;
    const count = spanCount[i]!;
    let errors = 0;
    for (let s = first; s < first + count; s++) if (status[s] !== SPAN_STATUS.unset) errors++;
    lines.add(point, count, errors);
  }
}

/** The durations of a tick's spans, as the span metrics that count them write them (ns → ms or s). */
function addDurations(
  band: QuantileBand,
  batch: SpanBatch,
  at: (offset: number) => number,
  points: number,
  nsPerUnit: number,
) {
  const { size, offset, firstSpan, spanCount, spans } = batch;
  const { start, end } = spans;
  for (let i = 0; i < size; i++) {
    const point = at(offset[i]!);
    if (point < 0 || point >= points) continue;
    const first = firstSpan[i]!;
    const last = first + spanCount[i]!;
    for (let s = first; s < last; s++) band.add(point, (end[s]! - start[s]!) / nsPerUnit);
  }
}
