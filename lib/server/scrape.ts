import { timestampOf, type Labelled, type SampleBatch, type Series } from '../../operators/batch.js';
import type { MetricType } from '../config/types.js';
import { textValueFormat } from '../encoders/number.js';
import { sampleName } from '../encoders/metrics-text.js';

/** Most events a scenario's drain buffer holds (the `limit` query maximum). */
export const MAX_SCRAPE_EVENTS = 1000;

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
 * What the scrape endpoints read of one scenario: a ring of its most recent events (rows of
 * one tick: a sample, or a histogram's series set) with their timestamps, drained by
 * `GET /scenarios/{id}/metrics`, and the latest value of every series, read without draining
 * by `GET /scenarios/metrics`.
 */
export class ScrapeBuffer {
  private recent: { rows: Row[]; ms: number }[] = [];
  private readonly latest = new Map<Series, number>();

  constructor(readonly family: Family) {}

  /** Records a labelled sample batch (the `onSamples` hook of the entry's chain). */
  record(batch: Labelled<SampleBatch>): void {
    const events = batch.events ?? batch.size;
    const rowsPerEvent = batch.size / events;
    // Only the last MAX_SCRAPE_EVENTS events of a batch can survive in the ring.
    for (let e = Math.max(0, events - MAX_SCRAPE_EVENTS); e < events; e++) {
      const rows: Row[] = [];
      for (let r = e * rowsPerEvent; r < (e + 1) * rowsPerEvent; r++) {
        rows.push({ series: batch.series[r]!, value: batch.value[r]! });
        this.latest.set(batch.series[r]!, batch.value[r]!);
      }
      this.recent.push({ rows, ms: timestampOf(batch, e * rowsPerEvent) });
    }
    if (this.recent.length > MAX_SCRAPE_EVENTS) this.recent = this.recent.slice(-MAX_SCRAPE_EVENTS);
  }

  /** The most recent `limit` events as text exposition with timestamps; empties the buffer. `undefined` when empty. */
  drain(limit: number): string | undefined {
    if (this.recent.length === 0) return undefined;
    const events = this.recent.slice(-limit);
    this.recent = [];
    const lines = events.flatMap(({ rows, ms }) => rows.map((row) => `${sampleName(this.family.name, row.series)} ${formatValue(row.value)} ${ms}\n`));
    return header(this.family) + lines.join('');
  }

  /** The latest value of every series, without timestamps. */
  latestRows(): readonly Row[] {
    return [...this.latest].map(([series, value]) => ({ series, value }));
  }
}

/**
 * Text exposition of the latest value of every series of every scenario, one `# HELP`/`# TYPE`
 * block per metric name. Scenarios that share a name but not a type are written as one
 * `untyped` family; `onConflict` is told so it can log a warning.
 */
export function aggregate(buffers: readonly ScrapeBuffer[], onConflict: (name: string, types: MetricType[]) => void): string {
  const byName = new Map<string, ScrapeBuffer[]>();
  for (const buffer of buffers) byName.set(buffer.family.name, [...(byName.get(buffer.family.name) ?? []), buffer]);
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
      // Two scenarios writing the very same series: one sample per series in a scrape.
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
