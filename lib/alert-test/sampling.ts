/**
 * A scenario as Prometheus would see it at one rule evaluation interval: the file is backfilled
 * on virtual time (lib/runtime/backfill.ts) into sinks that discard, and every labelled sample
 * is placed on the step grid 0, I, 2I, … counted from the file's start.
 */
import type { SchedulerLike } from 'rxjs';
import { classicRows, type Labelled, type SampleBatch } from '../../operators/model/batch.js';
import type { Entry } from '../config/types.js';
import { sampleName } from '../encoders/metrics-text.js';
import { prometheusFace } from '../compile/span-metrics.js';
import { backfillEntries, type Backfill } from '../runtime/backfill.js';
import { DISCARD } from '../runtime/chain/sink.js';

/** Most values (series × steps) a sampling holds: 8 bytes each, so about 40 MB. */
export const MAX_SAMPLED_VALUES = 5_000_000;

/** One series on the step grid: `values[k]` is its sample at step k, NaN where it has none. */
export interface SampledSeries {
  /** The series as PromQL and promtool write it: `name{label="value",…}`. */
  readonly series: string;
  readonly values: Float64Array;
}

export interface Sampling {
  readonly intervalMs: number;
  /** Steps 0 … steps − 1 cover every entry's duration. */
  readonly steps: number;
  readonly series: readonly SampledSeries[];
}

/**
 * The histogram entries with a native histogram, which a sampling cannot hold: a promtool unit test's input series
 * are floats (promtool 2.42 reads no native histogram notation). `untestable` have nothing else; `leftOut` have
 * classic buckets too, which are sampled without the native histogram.
 */
export function nativeHistograms(entries: readonly Entry[]): { untestable: string[]; leftOut: string[] } {
  const native = entries.filter((entry) => entry.native);
  return {
    untestable: native.filter((entry) => !entry.buckets).map((entry) => entry.id),
    leftOut: native.filter((entry) => entry.buckets).map((entry) => entry.id),
  };
}

/**
 * The steps a sampling of `entries` at `intervalMs` has at least, known before it runs: an entry that starts with
 * the file lasts its duration (one started by `after` ends later).
 */
export function leastSteps(entries: readonly Entry[], intervalMs: number): number {
  return (
    Math.floor(Math.max(0, ...entries.filter((entry) => !entry.after).map((entry) => entry.duration!)) / intervalMs) + 1
  );
}

/**
 * Samples `entries` (compiled, each with a finite duration) at `intervalMs`. Step k holds the last
 * sample written in ((k − 1)·I, k·I] after the file's start, as a scrape at k·I would show it; a
 * step without one is left empty (a gap, as in pushed data: queries look back over it). Rejects
 * when an entry fails, or when the series times the steps would exceed {@link MAX_SAMPLED_VALUES}: as soon as
 * that is certain, without running the rest of the backfill.
 */
export async function sampleScenario(
  entries: readonly Entry[],
  intervalMs: number,
  options: { scheduler?: SchedulerLike } = {},
): Promise<Sampling> {
  // Per series, its values from step 0 on (NaN where it has none), grown as the run goes.
  const table = new Map<string, number[]>();
  // Series × the least steps over the limit is known once the series have appeared, and the backfill is stopped
  // then rather than run to its end.
  const least = leastSteps(entries, intervalMs);
  let held = 0;
  let tooMany = false;
  // The series as Prometheus reads them: span metrics sent over OTLP under their Prometheus names.
  const faces = new Map(entries.map((entry) => [entry.id, prometheusFace(entry)]));
  const place = (backfill: Backfill, entry: Entry, samples: Labelled<SampleBatch>): void => {
    const face = faces.get(entry.id)!;
    // A native histogram's row holds its count as the value: as a float series it would be a bogus one.
    // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
    const { size, offset, series, value } = classicRows(face.rows(samples));
    // The instant the entry started, on the file's timeline; set before its first tick.
    const began = backfill.startedAt(entry.id)! - backfill.start;
    for (let row = 0; row < size && !tooMany; row++) {
      const step = Math.ceil((began + offset[row]!) / intervalMs);
      const name = sampleName(face.name!, series[row]!);
      let values = table.get(name);
      if (!values) table.set(name, (values = []));
      const grown = Math.max(0, step + 1 - values.length);
      if ((held += grown) > MAX_SAMPLED_VALUES || table.size * least > MAX_SAMPLED_VALUES) {
        tooMany = true;
        void backfill.stop();
      } else {
        while (values.length <= step) values.push(NaN);
        values[step] = value[row]!;
      }
    }
  };

  // Batches of the first instants arrive before backfillEntries returns: they wait for its handle.
  let backfill: Backfill | undefined;
  const early: [Entry, Labelled<SampleBatch>][] = [];
  backfill = backfillEntries(entries, {
    scheduler: options.scheduler,
    // The samples are read from the chain's `onSamples` hook.
    createSink: () => DISCARD,
    hooks: (entry) => ({
      onSamples: (batch) => (backfill ? place(backfill, entry, batch) : early.push([entry, batch])),
    }),
  });
  for (const [entry, batch] of early.splice(0)) place(backfill, entry, batch);
  const outcomes = await backfill.done;
  const failed = outcomes.findIndex((outcome) => outcome.error);
  if (failed >= 0) throw new Error(`${entries[failed]!.id}: ${outcomes[failed]!.error!.message}`);
  const end = Math.max(...entries.map((entry) => backfill.endedAt(entry.id) - backfill.start));
  const steps = Math.max(Math.floor(end / intervalMs) + 1, ...[...table.values()].map((values) => values.length));
  if (tooMany || table.size * steps > MAX_SAMPLED_VALUES) {
    throw new Error(
      `the scenario is too long or has too many series for svc test: at most ${MAX_SAMPLED_VALUES} values (series × steps) are sampled; give a longer --interval or a shorter duration`,
    );
  }
  const series = [...table].map(([name, values]) => {
    const padded = new Float64Array(steps).fill(NaN);
    padded.set(values);
    return { series: name, values: padded };
  });
  return { intervalMs, steps, series };
}
