import { map, type MonoTypeOperatorFunction, type Observable } from 'rxjs';
import { ExemplarRowsBuilder, timestampOf, type Labelled, type SampleBatch } from './model/batch.js';
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
  // Slot numbers are doubles, whose remainder is a slow division: every event needs none.
  const due =
    probability !== undefined
      ? (index: number) => draws.unit(index) < probability
      : every === 1
        ? () => true
        : (index: number) => index % every === 0;
  const attach = (pool: SpanPool | undefined) => {
    const bounds = new RowBounds();
    return map((batch: B): B => {
      const events = batch.events ?? batch.size;
      const rows = events > 0 ? batch.size / events : 0;
      // Room for the exemplars expected (two rows each with native histograms): growing the columns costs a copy.
      const expected = (probability ?? 1 / every) * events * (batch.native ? 2 : 1);
      const placed = new ExemplarRowsBuilder(Math.ceil(expected) + 8);
      for (let e = 0; e < events; e++) {
        const at = e * rows;
        const index = batch.index[at]!;
        if (!due(index)) continue;
        const span = pool?.take();
        if (pool && !span) continue;
        const worth = span
          ? (span.spans.end[span.s]! - span.spans.start[span.s]!) / 1e9
          : value(index, batch.offset[at]!);
        const [first, second] = place(batch, at, rows, worth, bounds);
        const k = placed.add(first, worth, timestampOf(batch, at));
        if (span) placed.setIds(k, span.spans, span.s);
        else {
          ids.words(3 * index, placed.traceId, 4 * k);
          ids.words(3 * index + 1, placed.traceId, 4 * k + 2);
          ids.words(3 * index + 2, placed.spanId, 2 * k);
        }
        if (second >= 0) placed.addFrom(second, placed, k);
      }
      const exemplars = placed.build();
      return exemplars ? { ...batch, exemplars } : batch;
    });
  };
  if (!options.spans) return attach(undefined);
  const keep = spanFilter(options.choice ?? { roots: true });
  return withSpanPools<B, B>(options.spans, [keep], ([pool]) => attach(pool));
}

/** Separates the stream of random ids from that of `probability`'s draws. */
const ID_STREAM = 0x5eed;

/** The two places of {@link place}, reused: it runs once an exemplar. */
const places: [number, number] = [-1, -1];

/**
 * The rows of the event at `at` (`rows` long) that carry an exemplar worth `value`, ascending, the second -1 when
 * there is one: the first `_bucket` row holding its value, else the `_count` row, else the event's first row (when it
 * has no native row); and its native row. The pair is reused: read it before the next call.
 */
function place(
  batch: Labelled<SampleBatch>,
  at: number,
  rows: number,
  value: number,
  bounds: RowBounds,
): readonly [number, number] {
  let bucket = -1;
  let count = -1;
  let native = -1;
  for (let r = at; r < at + rows; r++) {
    const series = batch.series[r]!;
    if (batch.native?.[r]) native = r;
    else if (bucket < 0 && series.suffix === '_bucket' && value <= bounds.of(series, r - at)) bucket = r;
    else if (series.suffix === '_count') count = r;
  }
  const classic = bucket >= 0 ? bucket : count >= 0 ? count : native >= 0 ? -1 : at;
  // Ascending: the classic row before the native one, unless it comes after it.
  if (classic < 0 || native < 0) {
    places[0] = classic < 0 ? native : classic;
    places[1] = -1;
  } else {
    places[0] = Math.min(classic, native);
    places[1] = Math.max(classic, native);
  }
  return places;
}

/**
 * The bound of each bucket row (its `le`; `+Inf` and anything unreadable hold every value), kept by the row's place
 * in its event: the events of a label set have the same series in the same places, so a bound is read once.
 */
class RowBounds {
  private readonly series: (Series | undefined)[] = [];
  private readonly bounds: number[] = [];

  of(series: Series, place: number): number {
    if (this.series[place] === series) return this.bounds[place]!;
    const bound = Number(series.labels.le);
    this.series[place] = series;
    return (this.bounds[place] = Number.isNaN(bound) ? Infinity : bound);
  }
}
