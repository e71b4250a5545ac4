import { setImmediate } from 'node:timers/promises';
import {
  classicRows,
  ExemplarCursor,
  timestampAt,
  type Exemplar,
  type Labelled,
  type SampleBatch,
} from '../../operators/model/batch.js';
import type { NativeHistogram } from '../../operators/model/native-histogram.js';
import type { Series } from '../../operators/model/series.js';
import type { MetricType } from '../language/types.js';
import { textValueFormat } from '../encoders/number.js';
import { sampleName } from '../encoders/metrics-text.js';

/** Most events an entry's drain buffer holds (the `limit` query maximum). */
export const MAX_SCRAPE_EVENTS = 1000;
/** Events an entry's drain ring holds at first; it doubles as they pile up. */
const INITIAL_EVENTS = 8;
/**
 * Rows (one number each: about 16 bytes, 24 with its event's timestamp) that the drain rings of all of a server's
 * entries hold together: five hundred sample entries keep their last 1000 events each, ten thousand their last 50.
 */
export const SCRAPE_BUDGET_ROWS = 500_000;
/**
 * Characters of label text (`{k="v",…}`) those rows may have together: a row's cost grows with its labels (a label
 * set built per tick is held by its row, and every drain writes it out). Labels of 100 characters or fewer reach
 * the row bound first; rows of 1 KB of labels: 50,000 of them.
 */
export const SCRAPE_BUDGET_RING_LABEL_CHARS = 50_000_000;

/**
 * The bound on what a server's undrained rings hold together: each ring that recorded an event may hold an equal
 * share of {@link rows}, and of {@link ringLabelChars} by its longest event's label text, in whole events, at least
 * its latest one and at most {@link MAX_SCRAPE_EVENTS}. A ring
 * reads its share at every event, so it grows when entries are deleted and gives up its oldest events when more
 * entries share the budget (docs/http-api.md, "Scraping").
 */
export class ScrapeBudget {
  private members = 0;
  /** Series the tables of latest values of every entry hold together, and the characters of their label text. */
  private seriesKept = 0;
  private labelCharsKept = 0;

  constructor(
    readonly rows = SCRAPE_BUDGET_ROWS,
    readonly series = SCRAPE_BUDGET_SERIES,
    readonly labelChars = SCRAPE_BUDGET_LABEL_CHARS,
    readonly ringLabelChars = SCRAPE_BUDGET_RING_LABEL_CHARS,
  ) {}

  /**
   * Takes room for one more series, whose label text (`{k="v",…}`) is `chars` long, in a table of latest values;
   * false when the server's tables are full.
   */
  claimSeries(chars: number): boolean {
    if (this.seriesKept >= this.series || this.labelCharsKept + chars > this.labelChars) return false;
    this.seriesKept++;
    this.labelCharsKept += chars;
    return true;
  }

  /** Gives back the room of `count` series of label text `chars` long together (their entry is deleted). */
  releaseSeries(count: number, chars: number): void {
    this.seriesKept -= count;
    this.labelCharsKept -= chars;
  }

  /** Counts a ring in (at its first event) or out (when its entry is deleted). */
  join(): void {
    this.members++;
  }

  leave(): void {
    this.members--;
  }

  /** Events a ring of `width` rows an event, of `chars` characters of label text an event, may hold now. */
  eventsFor(width: number, chars: number): number {
    const members = Math.max(1, this.members);
    const share = Math.min(
      Math.floor(this.rows / (members * width)),
      Math.floor(this.ringLabelChars / (members * Math.max(1, chars))),
    );
    return Math.max(1, Math.min(MAX_SCRAPE_EVENTS, share));
  }
}
/** Most series whose latest value an entry keeps for `GET /scenarios/metrics`: the first ones seen. */
export const MAX_LATEST_SERIES = 100_000;
/**
 * Most series whose latest values the entries of a server keep together, first come (about 400 bytes each, with
 * short labels): at high cardinality the tables were the largest part of a server's memory, 40 MB an entry at its
 * 100,000.
 */
export const SCRAPE_BUDGET_SERIES = 500_000;
/**
 * Characters of label text (`{k="v",…}`) those series may have together, first come: a series costs its text
 * again in the table, and in every exposition `GET /scenarios/metrics` builds. By count alone, 100,000 series of
 * 1 KB of labels held 200 MB more heap after one scrape, and a 100 MB exposition.
 */
export const SCRAPE_BUDGET_LABEL_CHARS = 50_000_000;

/**
 * How an entry's label sets come and go, for the scrape of latest values to show only the series it still writes:
 * `period`, after how many events it has written every label set it writes again (`labelSetPeriod`; default never:
 * series leave only by the spikes' windows and the entry's end); `spikeLabels`, the labels only its cardinality
 * spikes write (a spike's series leave when its window closes, those without its label while it is open).
 */
export interface LabelCycle {
  readonly period?: number;
  readonly spikeLabels?: readonly string[];
}

/** One metric family as a scrape shows it. */
export interface Family {
  readonly name: string;
  readonly type: MetricType;
  readonly help?: string;
}

/** The latest state of one series of an entry, as a scrape shows it. */
export interface LatestRow {
  readonly series: Series;
  /** The latest value (of a native histogram's row: its count). */
  readonly value: number;
  /** Of a native histogram's row (text exposition cannot show it): the latest native histogram. */
  readonly native?: NativeHistogram;
  /** The latest exemplar the series carried, if any did. */
  readonly exemplar?: Exemplar;
  /** Epoch ms from which the entry's counter, histogram and summary counts are cumulative: its start. */
  readonly created: number;
}

/** A metric family of every entry's latest rows: the tables of the entries that write it, read by {@link eachRow}. */
export interface LatestFamily {
  readonly family: Family;
  readonly buffers: readonly ScrapeBuffer[];
}

const formatValue = textValueFormat();

/**
 * What the scrape endpoints read of one started entry: a ring of its most recent events (rows of
 * one tick: a sample, or a histogram's classic series set) with their timestamps, drained by
 * `GET /scenarios/{id}/metrics`, and the latest value of every series (with its latest native
 * histogram and exemplar, for the protobuf exposition), read without draining by `GET /scenarios/metrics`.
 *
 * The ring starts small at the first samples and doubles as events pile up undrained, up to its share of the
 * server's {@link ScrapeBudget} (at most {@link MAX_SCRAPE_EVENTS}; so ten thousand entries that nobody drains do not
 * each hold a full ring); from then on it is only overwritten: recording an event copies its numbers into place
 * (the oldest event gives way when the ring is full), so an entry's buffer costs bounded memory and no garbage
 * however long it runs. The table of latest
 * values holds the first {@link MAX_LATEST_SERIES} series seen, within the room the budget has left of the server's
 * {@link SCRAPE_BUDGET_SERIES} and {@link SCRAPE_BUDGET_LABEL_CHARS}, so that memory is bounded at any cardinality,
 * label length and number of entries too.
 */
export class ScrapeBuffer {
  /** Rows of one event: 1 for a sample; a histogram or summary writes a fixed series set per event. */
  private width = 0;
  private rowSeries: Series[] = [];
  private rowValues = new Float64Array(0);
  private stamps = new Float64Array(0);
  /** Events the ring holds now: it doubles when full, up to the budget's share. */
  private capacity = 0;
  /** Label text of the longest event recorded (its rows' `key`s): what an event is charged against the budget. */
  private eventChars = 0;
  /** Set when its entry is deleted: the ring is given back and records nothing more. */
  private released = false;
  /** Slot of the oldest event kept, and how many are kept. */
  private first = 0;
  private kept = 0;
  /**
   * The series seen, in order of appearance (up to MAX_LATEST_SERIES), with their latest values; a series the entry
   * moved on from ({@link isLive}) may be forgotten to make room, its slot listed in `free` for the next new one.
   */
  private readonly indexOf = new Map<string, number>();
  private readonly free: number[] = [];
  /** Characters of the label text of those series, claimed from the budget. */
  private labelChars = 0;
  /** The same index by object, for interned series: the common case builds no text per sample. */
  private readonly indexOfObject = new WeakMap<Series, number>();
  private readonly series: (Series | undefined)[] = [];
  private readonly latest: number[] = [];
  /** Per series: the entry's event count when it was last written, and which spikes' labels it has ({@link spikesOf}). */
  private readonly writtenAt: number[] = [];
  private readonly spikesOfSeries: number[] = [];
  /** Which spikes' labels the latest event has: the spikes whose window is open. */
  private latestSpikes = 0;
  /**
   * The event count at which that set of spikes last changed: only a series written since has the shape the entry
   * writes now. A window shorter than a spike's cardinality writes other values at each opening: those of earlier
   * windows have the same labels but are not written again.
   */
  private shapeSince = 0;
  /** Events recorded so far. */
  private events = 0;
  /** Set when the entry ended: it writes no series any more. */
  private ended = false;
  /** The event count at the last sweep of the table for room ({@link claim}), and how many sweeps there were. */
  private sweptAt = Number.NEGATIVE_INFINITY;
  private sweepCount = 0;
  /** Per slot: the sweep count when it took its series ({@link takenAfter}). */
  private readonly takenAt: number[] = [];
  /** Sparse: filled only at the indexes of native histogram rows and of series that carried an exemplar. */
  private readonly latestNative: (NativeHistogram | undefined)[] = [];
  private readonly latestExemplar: (Exemplar | undefined)[] = [];
  /** The `anchor` of the entry's batches: its start. */
  private created = 0;

  /** After how many events the entry has written every label set it writes again. */
  private readonly period: number;
  /** The labels only its cardinality spikes write: at most MAX_CARDINALITY_SPIKES (8), one bit each in {@link spikesOf}. */
  private readonly spikeLabels: readonly string[];

  /** `budget`: shared by every ring of a server; a ring alone gets the whole budget. */
  constructor(
    readonly family: Family,
    private readonly budget = new ScrapeBudget(),
    { period = Number.POSITIVE_INFINITY, spikeLabels = [] }: LabelCycle = {},
  ) {
    this.period = period;
    this.spikeLabels = spikeLabels;
  }

  /**
   * Records a labelled sample batch (the `onSamples` hook of the entry's chain): every row as the latest of its
   * series, and the classic rows in the ring (text exposition cannot write a native histogram's row).
   */
  record(samples: Labelled<SampleBatch>): void {
    if (samples.size === 0 || this.released) return;
    if (this.series.length === 0) this.created = samples.anchor;
    // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
    const { size, series, value, native } = samples;
    const exemplars = new ExemplarCursor(samples.exemplars);
    // Every row counts as written at the batch's last event: a series leaves at most a batch late, never early.
    this.events += samples.events ?? size;
    const spikes = this.spikesOf(series[size - 1]!);
    if (spikes !== this.latestSpikes) {
      this.latestSpikes = spikes;
      this.shapeSince = this.events;
    }
    for (let row = 0; row < size; row++) this.seen(series[row]!, value[row]!, native?.[row], exemplars.at(row));
    const batch = classicRows(samples);
    // A native histogram alone has no row the text exposition shows: nothing for the ring to keep, and no share of
    // the budget to take (joining at every such batch shrank the other rings' shares without end).
    if (batch.size === 0) return;
    const { anchor, offset, series: rowSeries, value: rowValue } = batch;
    const events = batch.events ?? batch.size;
    if (this.width === 0) this.allocate(batch.size / events);
    // Only the last MAX_SCRAPE_EVENTS events of a batch can survive in the ring.
    for (let e = Math.max(0, events - MAX_SCRAPE_EVENTS); e < events; e++) {
      let chars = 0;
      // Only a label set built for its tick is held by the ring alone; an interned one is shared.
      for (let r = 0; r < this.width; r++) {
        const series = rowSeries[e * this.width + r]!;
        if (series.transient) chars += series.key.length;
      }
      if (chars > this.eventChars) this.eventChars = chars;
      const at = this.nextSlot(timestampAt(anchor, offset, e * this.width)) * this.width;
      for (let r = 0; r < this.width; r++) {
        this.rowSeries[at + r] = rowSeries[e * this.width + r]!;
        this.rowValues[at + r] = rowValue[e * this.width + r]!;
      }
    }
  }

  /** The most recent `limit` events as text exposition with timestamps; empties the buffer. `undefined` when empty. */
  drain(limit: number): string | undefined {
    const text = this.peek(limit);
    this.first = this.kept = 0;
    return text;
  }

  /** What {@link drain} would answer, the events left in the ring (an HTTP HEAD, which must not change anything). */
  peek(limit: number): string | undefined {
    if (this.kept === 0) return undefined;
    const count = Math.min(limit, this.kept);
    let text = header(this.family);
    for (let k = this.kept - count; k < this.kept; k++) {
      const slot = (this.first + k) % this.capacity;
      const ms = this.stamps[slot]!;
      for (let row = slot * this.width; row < (slot + 1) * this.width; row++) {
        text += `${sampleName(this.family.name, this.rowSeries[row]!)} ${formatValue(this.rowValues[row]!)} ${ms}\n`;
      }
    }
    return text;
  }

  /** Gives the ring's share of the budget back (its entry is deleted); it records nothing more. */
  release(): void {
    if (this.released) return;
    this.released = true;
    // An ended entry gave its series' room back already.
    if (!this.ended) this.giveSeriesBack();
    if (this.width === 0) return;
    this.budget.leave();
    this.first = this.kept = this.capacity = 0;
    this.rowSeries = [];
    this.rowValues = this.stamps = new Float64Array(0);
  }

  /** The latest state of every series the table holds, without timestamps. */
  latestRows(): readonly LatestRow[] {
    const rows: LatestRow[] = [];
    for (let i = 0; i < this.series.length; i++) if (this.series[i]) rows.push(this.latestRow(i));
    return rows;
  }

  /** Slots of the table of latest values (some may be free: see {@link isLive}): at most {@link MAX_LATEST_SERIES}. */
  get latestCount(): number {
    return this.series.length;
  }

  /**
   * Marks the entry ended: none of its series is written any more, so none is {@link isLive}; their room in the
   * server's tables goes to the entries still running (its rows stay, for `GET /scenarios/{id}/series`).
   */
  end(): void {
    if (this.ended || this.released) return;
    this.ended = true;
    this.giveSeriesBack();
  }

  /** Gives the room the table's series take back to the budget (once: its entry ended or was deleted). */
  private giveSeriesBack(): void {
    this.budget.releaseSeries(this.series.length - this.free.length, this.labelChars);
  }

  /**
   * Whether the series at `index` is one the entry still writes, which the scrape of latest values shows: its entry
   * has not ended nor been deleted, it has the labels of the spikes whose window is open (those of the latest event) and no other's,
   * it was written since those windows opened (not in an earlier window of the same spikes), and within the last
   * {@link period} events (a rotation came round to it).
   */
  isLive(index: number): boolean {
    return (
      !this.ended &&
      !this.released &&
      this.series[index] !== undefined &&
      this.spikesOfSeries[index] === this.latestSpikes &&
      this.writtenAt[index]! >= this.shapeSince &&
      this.events - this.writtenAt[index]! < this.period
    );
  }

  /** Whether any series of the table is {@link isLive}: a family of none is left out of the scrape. */
  hasLive(): boolean {
    // Every scrape asks, of every entry: an ended or deleted one's whole table need not be read to answer.
    if (this.ended || this.released) return false;
    for (let i = 0; i < this.series.length; i++) if (this.isLive(i)) return true;
    return false;
  }

  /** Sweeps of the table for room so far: a walk of the table notes it as it begins ({@link takenAfter}). */
  get sweeps(): number {
    return this.sweepCount;
  }

  /**
   * Whether the slot at `index` took its series after sweep number `sweeps`. A walk begun before that sweep may
   * have shown the series already, in the slot the sweep freed: a series that left and came back (a spike's window
   * closed and opened again) takes a free slot, maybe one the walk has yet to reach.
   */
  takenAfter(index: number, sweeps: number): boolean {
    return this.takenAt[index]! > sweeps;
  }

  /** The latest state of the series at `index` (a slot of the first {@link latestCount} that holds one), as it is now. */
  latestRow(index: number): LatestRow {
    const native = this.latestNative[index];
    const exemplar = this.latestExemplar[index];
    return {
      series: this.series[index]!,
      value: this.latest[index]!,
      created: this.created,
      ...(native && { native }),
      ...(exemplar && { exemplar }),
    };
  }

  private allocate(width: number): void {
    this.width = width;
    this.budget.join();
    this.resize(Math.min(INITIAL_EVENTS, this.budget.eventsFor(width, this.eventChars)));
  }

  /** Moves the kept events, oldest first, to a ring of `capacity` events: the newest ones, when fewer fit. */
  private resize(capacity: number): void {
    const rowSeries = new Array<Series>(capacity * this.width);
    const rowValues = new Float64Array(capacity * this.width);
    const stamps = new Float64Array(capacity);
    const dropped = Math.max(0, this.kept - capacity);
    this.first += dropped;
    this.kept -= dropped;
    for (let k = 0; k < this.kept; k++) {
      const from = (this.first + k) % this.capacity;
      stamps[k] = this.stamps[from]!;
      for (let r = 0; r < this.width; r++) {
        rowSeries[k * this.width + r] = this.rowSeries[from * this.width + r]!;
        rowValues[k * this.width + r] = this.rowValues[from * this.width + r]!;
      }
    }
    this.rowSeries = rowSeries;
    this.rowValues = rowValues;
    this.stamps = stamps;
    this.capacity = capacity;
    this.first = 0;
  }

  /** Takes the slot after the newest event, over the oldest when full, stamped `ms`; returns it. */
  private nextSlot(ms: number): number {
    const share = this.budget.eventsFor(this.width, this.eventChars);
    if (this.capacity > share) this.resize(share);
    else if (this.kept === this.capacity && this.capacity < share) this.resize(Math.min(share, this.capacity * 2));
    const slot = (this.first + this.kept) % this.capacity;
    if (this.kept < this.capacity) this.kept++;
    else this.first = (this.first + 1) % this.capacity;
    this.stamps[slot] = ms;
    return slot;
  }

  /**
   * Records `value` (and the row's native histogram and exemplar) as the latest of `series`, if the table holds it
   * or has room for it. A row without an exemplar keeps the series' previous one: exemplars are sparse.
   */
  private seen(series: Series, value: number, native?: NativeHistogram, exemplar?: Exemplar): void {
    const known = this.indexOfObject.get(series);
    // A slot given to another series since: this object's index is stale.
    const index = known !== undefined && this.series[known] === series ? known : this.indexOfText(series);
    if (index === undefined) return;
    this.latest[index] = value;
    this.writtenAt[index] = this.events;
    if (native) this.latestNative[index] = native;
    if (exemplar) this.latestExemplar[index] = exemplar;
  }

  /**
   * The index of a series by its name suffix and labels (a transient one comes as a new object each time),
   * adding it while there is room.
   */
  private indexOfText(series: Series): number | undefined {
    const id = sampleName('', series);
    let index = this.indexOf.get(id);
    if (index === undefined) {
      if (!this.claim(id.length)) return undefined;
      this.labelChars += id.length;
      index = this.free.pop();
      if (index === undefined) index = this.series.push(series) - 1;
      else {
        this.series[index] = series;
        this.latestNative[index] = this.latestExemplar[index] = undefined;
      }
      this.spikesOfSeries[index] = this.spikesOf(series);
      this.takenAt[index] = this.sweepCount;
      this.indexOf.set(id, index);
    }
    if (!series.transient) this.indexOfObject.set(series, index);
    return index;
  }

  /**
   * Takes room for a new series of label text `chars` long: a free slot, or a new one within the bounds; when there
   * is none, forgets the series the entry moved on from and tries again. A sweep reads the whole table, so it runs
   * only when series can have left since the last one: a spike's window opened or closed, or a period of
   * events went by. (Once a batch, a rotation of 1,000,000 values past a full table swept its 100,000 live series
   * at every batch: 200 batches of 1000 new series took 1 s instead of 10 ms.)
   */
  private claim(chars: number): boolean {
    // An ended entry's series take no room: it gave its room back, and none of them would show.
    if (this.ended) return false;
    if (this.room(chars)) return true;
    if (this.shapeSince <= this.sweptAt && this.events - this.sweptAt < this.period) return false;
    this.sweptAt = this.events;
    this.sweepCount++;
    // From the last slot down, so that the free slots are taken again from the first up.
    for (let i = this.series.length - 1; i >= 0; i--) {
      const series = this.series[i];
      if (!series || this.isLive(i)) continue;
      const id = sampleName('', series);
      this.indexOf.delete(id);
      this.budget.releaseSeries(1, id.length);
      this.labelChars -= id.length;
      this.series[i] = undefined;
      this.free.push(i);
    }
    return this.room(chars);
  }

  /** A free slot or a new one, and the server's room for label text `chars` long. */
  private room(chars: number): boolean {
    return (this.free.length > 0 || this.series.length < MAX_LATEST_SERIES) && this.budget.claimSeries(chars);
  }

  /** Which of the spikes' labels a series has, bit k for label k. */
  private spikesOf(series: Series): number {
    let spikes = 0;
    for (let k = 0; k < this.spikeLabels.length; k++)
      if (Object.hasOwn(series.labels, this.spikeLabels[k]!)) spikes |= 1 << k;
    return spikes;
  }
}

/**
 * A build that yields (`yield;`) every {@link STEP_ROWS} rows or so, so that {@link sliced} can hand the event loop
 * back between slices; its return value is the result.
 */
export type Steps<T> = Generator<void, T, void>;

/** Rows a build handles between two looks at the clock: about a millisecond of work. */
export const STEP_ROWS = 1000;

/**
 * The rows a build has handled: it yields every {@link STEP_ROWS} of them however they are split over entries and
 * families (a thousand families of a hundred series must yield as one of a hundred thousand does).
 */
export class Pace {
  private rows = 0;

  /** Counts a row; true when the build should yield after it. */
  due(): boolean {
    return ++this.rows % STEP_ROWS === 0;
  }
}
/** How long (ms) a slice of a build holds the event loop before the requests and sinks waiting get their turn. */
const SLICE_MS = 15;

/**
 * Runs a build in slices of about `sliceMs` ms (0: a step a slice), each after the I/O and timers that were waiting
 * (`setImmediate`): a 170,000-series exposition took seconds, during which the server answered nothing and its
 * sinks stood still.
 */
export async function sliced<T>(steps: Steps<T>, sliceMs = SLICE_MS): Promise<T> {
  for (;;) {
    const start = performance.now();
    let step = steps.next();
    while (!step.done && performance.now() - start < sliceMs) step = steps.next();
    if (step.done) return step.value;
    await setImmediate();
  }
}

/** Runs a build to its result at once (specs, benches). */
export function unsliced<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The metric families of the latest rows of every entry, one per metric name, in order of first appearance; those
 * with no row yet are left out. Entries that share a name but not a type make one `untyped` family; `onConflict` is
 * told so it can log a warning.
 */
export function latestFamilies(
  buffers: readonly ScrapeBuffer[],
  onConflict: (name: string, types: MetricType[]) => void,
): LatestFamily[] {
  const byName = new Map<string, ScrapeBuffer[]>();
  for (const buffer of buffers) {
    const group = byName.get(buffer.family.name);
    if (group) group.push(buffer);
    else byName.set(buffer.family.name, [buffer]);
  }
  const families: LatestFamily[] = [];
  for (const [name, group] of byName) {
    if (group.every((buffer) => !buffer.hasLive())) continue;
    const types = [...new Set(group.map((buffer) => buffer.family.type))];
    if (types.length > 1) onConflict(name, types);
    const help = group.find((buffer) => buffer.family.help)?.family.help;
    families.push({ family: { name, type: types.length > 1 ? 'untyped' : types[0]!, help }, buffers: group });
  }
  return families;
}

/**
 * Hands each series of a family's latest rows to `visit` once, read as it is when its step runs: in a
 * {@link sliced} build, rows read in a later slice may be newer. Two entries writing the very same series: the first
 * one's row only, one sample per series in a scrape. A series a table adds after its walk began is for the next
 * scrape: in a new slot, past the walk's end; in a slot freed since, as it may be one that left and came back,
 * shown already in its old slot. The rows are read one at a time and not kept: a build that held every row (and
 * its text) for seconds had them promoted to the old generation, whose collection then stalled the server for up
 * to a second.
 */
export function* eachRow({ buffers }: LatestFamily, pace: Pace, visit: (row: LatestRow) => void): Steps<void> {
  // An entry's table holds each series once: only the tables of entries sharing a name need telling apart.
  const seen = buffers.length > 1 ? new Set<string>() : undefined;
  for (const buffer of buffers) {
    // A series that left and took another slot since the walk began may have been shown already.
    const sweeps = buffer.sweeps;
    for (let i = 0, count = buffer.latestCount; i < count; i++) {
      if (pace.due()) yield;
      if (!buffer.isLive(i) || buffer.takenAfter(i, sweeps)) continue;
      const row = buffer.latestRow(i);
      if (seen) {
        // A native histogram's row is named as its family is, with no suffix: not the same series as a sample of
        // that name.
        const sample = sampleName('', row.series);
        const key = row.native ? `${sample} native` : sample;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      visit(row);
    }
  }
}

/** Bytes of text a build gathers before it encodes them: its strings stay small and short-lived. */
const TEXT_CHUNK = 64 * 1024;

/**
 * Text exposition of the latest value of every series of every entry ({@link latestFamilies}), one `# HELP`/`# TYPE`
 * block per metric name, UTF-8. A native histogram's row has no text form: a family of native histograms only is
 * left out.
 */
export function* aggregateSteps(
  buffers: readonly ScrapeBuffer[],
  onConflict: (name: string, types: MetricType[]) => void,
): Steps<Buffer> {
  const chunks: Buffer[] = [];
  let text = '';
  const pace = new Pace();
  for (const latest of latestFamilies(buffers, onConflict)) {
    const { family } = latest;
    let head = header(family);
    yield* eachRow(latest, pace, ({ series, value, native }) => {
      if (native) return;
      text += `${head}${sampleName(family.name, series)} ${formatValue(value)}\n`;
      head = '';
      // Encoded a piece at a time: one string of the whole exposition (8 MB at 190,000 series) is a rope of
      // hundreds of thousands of parts, all kept until it is flattened in one go.
      if (text.length >= TEXT_CHUNK) {
        chunks.push(Buffer.from(text));
        text = '';
      }
    });
  }
  chunks.push(Buffer.from(text));
  return Buffer.concat(chunks);
}

/** {@link aggregateSteps} at once, as a string. */
export function aggregate(
  buffers: readonly ScrapeBuffer[],
  onConflict: (name: string, types: MetricType[]) => void,
): string {
  return unsliced(aggregateSteps(buffers, onConflict)).toString();
}

function header({ name, type, help }: Family): string {
  return `${help ? `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n` : ''}# TYPE ${name} ${type}\n`;
}
