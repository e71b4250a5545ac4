import { classicRows, timestampOf, type Labelled, type SampleBatch } from '../../operators/model/batch.js';
import type { Series } from '../../operators/model/series.js';
import type { MetricType } from '../language/types.js';
import { textValueFormat } from '../encoders/number.js';
import { sampleName } from '../encoders/metrics-text.js';

/** Most events an entry's drain buffer holds (the `limit` query maximum). */
export const MAX_SCRAPE_EVENTS = 1000;
/** Most series whose latest value an entry keeps for `GET /scenarios/metrics`: the first ones seen. */
export const MAX_LATEST_SERIES = 100_000;

/** One metric family as a scrape shows it. */
export interface Family {
  readonly name: string;
  readonly type: MetricType;
  readonly help?: string;
}

interface Row {
  readonly series: Series;
  readonly value: number;
}

const formatValue = textValueFormat();

/**
 * What the scrape endpoints read of one started entry: a ring of its most recent events (rows of
 * one tick: a sample, or a histogram's series set) with their timestamps, drained by
 * `GET /scenarios/{id}/metrics`, and the latest value of every series, read without draining
 * by `GET /scenarios/metrics`.
 *
 * The ring is allocated once, at the first samples, and then only overwritten: recording an
 * event copies its numbers into place (the oldest event gives way when the ring is full), so an
 * entry's buffer costs the same memory and no garbage however long it runs. The table of latest
 * values holds the first {@link MAX_LATEST_SERIES} series seen, so that memory is bounded at any
 * cardinality too.
 */
export class ScrapeBuffer {
  /** Rows of one event: 1 for a sample; a histogram or summary writes a fixed series set per event. */
  private width = 0;
  private rowSeries: Series[] = [];
  private rowValues = new Float64Array(0);
  private stamps = new Float64Array(0);
  /** Slot of the oldest event kept, and how many are kept. */
  private first = 0;
  private kept = 0;
  /** The series seen, in order of appearance (up to MAX_LATEST_SERIES), with their latest values. */
  private readonly indexOf = new Map<string, number>();
  /** The same index by object, for interned series: the common case builds no text per sample. */
  private readonly indexOfObject = new WeakMap<Series, number>();
  private readonly series: Series[] = [];
  private readonly latest: number[] = [];

  constructor(readonly family: Family) {}

  /**
   * Records a labelled sample batch (the `onSamples` hook of the entry's chain): its classic rows, which text
   * exposition can show (a native histogram's row cannot be written as text).
   */
  record(samples: Labelled<SampleBatch>): void {
    const batch = classicRows(samples);
    const events = batch.events ?? batch.size;
    if (events === 0) return;
    if (this.width === 0) this.allocate(batch.size / events);
    // Only the last MAX_SCRAPE_EVENTS events of a batch can survive in the ring.
    const firstKept = Math.max(0, events - MAX_SCRAPE_EVENTS);
    for (let e = 0; e < events; e++) {
      const kept = e >= firstKept;
      const at = kept ? this.nextSlot(timestampOf(batch, e * this.width)) * this.width : 0;
      for (let r = 0; r < this.width; r++) {
        const row = e * this.width + r;
        this.seen(batch.series[row]!, batch.value[row]!);
        if (!kept) continue;
        this.rowSeries[at + r] = batch.series[row]!;
        this.rowValues[at + r] = batch.value[row]!;
      }
    }
  }

  /** The most recent `limit` events as text exposition with timestamps; empties the buffer. `undefined` when empty. */
  drain(limit: number): string | undefined {
    if (this.kept === 0) return undefined;
    const count = Math.min(limit, this.kept);
    let text = header(this.family);
    for (let k = this.kept - count; k < this.kept; k++) {
      const slot = (this.first + k) % MAX_SCRAPE_EVENTS;
      const ms = this.stamps[slot]!;
      for (let row = slot * this.width; row < (slot + 1) * this.width; row++) {
        text += `${sampleName(this.family.name, this.rowSeries[row]!)} ${formatValue(this.rowValues[row]!)} ${ms}\n`;
      }
    }
    this.first = this.kept = 0;
    return text;
  }

  /** The latest value of every series, without timestamps. */
  latestRows(): readonly Row[] {
    return this.series.map((series, i) => ({ series, value: this.latest[i]! }));
  }

  private allocate(width: number): void {
    this.width = width;
    this.rowSeries = new Array<Series>(MAX_SCRAPE_EVENTS * width);
    this.rowValues = new Float64Array(MAX_SCRAPE_EVENTS * width);
    this.stamps = new Float64Array(MAX_SCRAPE_EVENTS);
  }

  /** Takes the slot after the newest event, over the oldest when full, stamped `ms`; returns it. */
  private nextSlot(ms: number): number {
    const slot = (this.first + this.kept) % MAX_SCRAPE_EVENTS;
    if (this.kept < MAX_SCRAPE_EVENTS) this.kept++;
    else this.first = (this.first + 1) % MAX_SCRAPE_EVENTS;
    this.stamps[slot] = ms;
    return slot;
  }

  /** Records `value` as the latest of `series`, if the table holds it or has room for it. */
  private seen(series: Series, value: number): void {
    const index = this.indexOfObject.get(series) ?? this.indexOfText(series);
    if (index !== undefined) this.latest[index] = value;
  }

  /**
   * The index of a series by its name suffix and labels (a transient one comes as a new object each time),
   * adding it while there is room.
   */
  private indexOfText(series: Series): number | undefined {
    const id = sampleName('', series);
    let index = this.indexOf.get(id);
    if (index === undefined) {
      if (this.series.length >= MAX_LATEST_SERIES) return undefined;
      index = this.series.push(series) - 1;
      this.indexOf.set(id, index);
    }
    if (!series.transient) this.indexOfObject.set(series, index);
    return index;
  }
}

/**
 * Text exposition of the latest value of every series of every entry, one `# HELP`/`# TYPE`
 * block per metric name. Entries that share a name but not a type are written as one
 * `untyped` family; `onConflict` is told so it can log a warning.
 */
export function aggregate(
  buffers: readonly ScrapeBuffer[],
  onConflict: (name: string, types: MetricType[]) => void,
): string {
  const byName = new Map<string, ScrapeBuffer[]>();
  for (const buffer of buffers) {
    const group = byName.get(buffer.family.name);
    if (group) group.push(buffer);
    else byName.set(buffer.family.name, [buffer]);
  }
  let out = '';
  for (const [name, group] of byName) {
    const rows = group.flatMap((buffer) => buffer.latestRows());
    if (rows.length === 0) continue;
    const types = [...new Set(group.map((buffer) => buffer.family.type))];
    if (types.length > 1) onConflict(name, types);
    const help = group.find((buffer) => buffer.family.help)?.family.help;
    out += header({ name, type: types.length > 1 ? 'untyped' : types[0]!, help });
    const seen = new Set<string>();
    for (const { series, value } of rows) {
      const sample = sampleName(name, series);
      // Two entries writing the very same series: one sample per series in a scrape.
      if (seen.has(sample)) continue;
      seen.add(sample);
      out += `${sample} ${formatValue(value)}\n`;
    }
  }
  return out;
}

function header({ name, type, help }: Family): string {
  return `${help ? `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n` : ''}# TYPE ${name} ${type}\n`;
}
