import { map, type MonoTypeOperatorFunction, type Observable } from 'rxjs';
import { timestampOf, type Exemplar, type Labelled, type SampleBatch } from './model/batch.js';
import type { SpanBatch } from './model/span.js';
import type { Series } from './model/series.js';
import { spanFilter, withSpanPools, type SpanChoice, type SpanPool } from './internal/span-pool.js';
import { SplitMix64 } from '../lib/random.js';

export interface ExemplarOptions {
  /** The batches of the traces whose spans the exemplars name; absent: random ids. */
  readonly spans?: Observable<SpanBatch>;
  /** Which of those spans: default the roots of the traces. */
  readonly choice?: SpanChoice;
  /** An exemplar on every tick whose slot number is a multiple of `every` (default 1)… */
  readonly every?: number;
  /** …or on each tick with this probability. */
  readonly probability?: number;
  /** Seed of `probability` and of random ids. */
  readonly seed?: number;
  /**
   * The value of an exemplar without spans, on tick `index` scheduled `offset` ms after the start (an
   * observation); default 1. An exemplar naming a span is worth the span's duration in seconds.
   */
  readonly value?: (index: number, offset: number) => number;
}

/**
 * Puts an exemplar on the events that are due: on a histogram's event, on the `_bucket` row its
 * value falls in (and on its native histogram row); on a summary's, on `_count`; on any other
 * event, on its one row (a counter's exemplar is worth 1 unless `value` says otherwise). An
 * exemplar names a span of `spans` (the newest not named yet, see SpanPool) and is worth its
 * duration, so a slow bucket gets a slow span; while no span has come, due events get none.
 * Without `spans`, ids are random, drawn from `seed` and the tick's slot number. The exemplar's
 * time is its row's.
 *
 * ```
 * spans:     --a-------b-------|        a: a root span of 0.2 s, b: of 3 s
 * rows:      ---(xyz)---(xyz)--|        x = _bucket{le="1"}, y = le="+Inf", z = _count
 *            exemplars({spans})
 * rows:      ---(x'yz)--(xy'z)-|        x' carries a (0.2 ≤ 1), y' carries b
 * ```
 */
export function exemplars<B extends Labelled<SampleBatch>>(options: ExemplarOptions = {}): MonoTypeOperatorFunction<B> {
  const { every = 1, probability, seed = 0, value = () => 1 } = options;
  const draws = new SplitMix64(seed);
  const ids = new SplitMix64(seed ^ ID_STREAM);
  const due =
    probability === undefined
      ? (index: number) => index % every === 0
      : (index: number) => draws.unit(index) < probability;
  const random = (index: number, offset: number, timestamp: number): Exemplar => ({
    traceId: ids.hex(3 * index) + ids.hex(3 * index + 1),
    spanId: ids.hex(3 * index + 2),
    value: value(index, offset),
    timestamp,
  });
  const attach = (pool: SpanPool | undefined) =>
    map((batch: B): B => {
      const events = batch.events ?? batch.size;
      const rows = events > 0 ? batch.size / events : 0;
      let column: (Exemplar | undefined)[] | undefined;
      for (let e = 0; e < events; e++) {
        const at = e * rows;
        const index = batch.index[at]!;
        if (!due(index)) continue;
        const timestamp = timestampOf(batch, at);
        let exemplar: Exemplar | undefined;
        if (pool) {
          const span = pool.take();
          if (span) exemplar = { traceId: span.traceId, spanId: span.spanId, value: span.seconds, timestamp };
        } else exemplar = random(index, batch.offset[at]!, timestamp);
        if (!exemplar) continue;
        column ??= new Array<Exemplar | undefined>(batch.size);
        for (const row of rowsOf(batch, at, rows, exemplar.value)) column[row] = exemplar;
      }
      return column ? { ...batch, exemplar: column } : batch;
    });
  if (!options.spans) return attach(undefined);
  const keep = spanFilter(options.choice ?? { roots: true });
  return withSpanPools<B, B>(options.spans, [keep], ([pool]) => attach(pool));
}

/** Separates the stream of random ids from that of `probability`'s draws. */
const ID_STREAM = 0x5eed;

/** The rows of the event at `at` (`rows` long) that carry an exemplar worth `value`. */
function rowsOf(batch: Labelled<SampleBatch>, at: number, rows: number, value: number): number[] {
  const chosen: number[] = [];
  let bucket = -1;
  let count = -1;
  for (let r = at; r < at + rows; r++) {
    const { suffix } = batch.series[r]!;
    if (batch.native?.[r]) chosen.push(r);
    else if (bucket < 0 && suffix === '_bucket' && value <= boundOf(batch.series[r]!)) bucket = r;
    else if (suffix === '_count') count = r;
  }
  if (bucket >= 0) chosen.push(bucket);
  else if (chosen.length === 0) chosen.push(count >= 0 ? count : at);
  return chosen;
}

/** Each bucket row's bound, read once per series: its `le` label, `+Inf` (and anything unreadable) holding every value. */
const bounds = new WeakMap<Series, number>();
function boundOf(series: Series): number {
  let bound = bounds.get(series);
  if (bound === undefined) {
    bound = Number(series.labels.le);
    if (Number.isNaN(bound)) bound = Infinity;
    bounds.set(series, bound);
  }
  return bound;
}
