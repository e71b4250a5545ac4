import { map, type MonoTypeOperatorFunction, type Observable } from 'rxjs';
import { carryingExemplars, ExemplarRowsBuilder, timestampAt, type Labelled, type SampleBatch } from './model/batch.js';
import type { SpanBatch } from './model/span.js';
import type { Series } from './model/series.js';
import { checkChoice, spanFilter, withSpanPools, type EndedSpanPool, type SpanChoice } from './internal/span-pool.js';
import { SplitMix64 } from '../lib/random.js';
import {
  BOOLEAN,
  check,
  checkOptional,
  FUNCTION,
  INTEGER,
  OBJECT,
  POSITIVE,
  POSITIVE_COUNT,
  PROBABILITY,
  OBSERVABLE,
} from './internal/arguments.js';

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
   * The value of an exemplar on tick `index` scheduled `offset` ms after the start, whose event is the batch's
   * `event`th (an observation); default 1. On a histogram's or a summary's event, an exemplar naming a span is worth
   * the span's duration (in {@link unitsPerSecond}) instead, unless {@link spanDurations} is false.
   */
  readonly value?: (index: number, offset: number, event: number) => number;
  /**
   * The unit of a span's duration as an exemplar's value, in units a second (default 1: seconds): 1000 for a
   * histogram or summary of milliseconds, so the exemplar lands in the bucket of its span's latency.
   */
  readonly unitsPerSecond?: number;
  /**
   * Whether a histogram's or a summary's exemplar naming a span is worth the span's duration (default true); false
   * for one whose observations are no time (`_bytes`): it is worth `value`, the span giving only its ids.
   */
  readonly spanDurations?: boolean;
}

/**
 * Puts an exemplar on the events that are due: on a histogram's event, on the `_bucket` row its
 * value falls in (and on its native histogram row); on a summary's, on `_count`; on any other
 * event, on its one row (a counter's exemplar is worth 1 unless `value` says otherwise: one
 * request counted). An exemplar names a span of a sampled trace of `spans` that has ended by its time (the last to
 * end not named yet, see SpanPool), of a trace emitted in an earlier whole-millisecond wake than the event's, so which
 * of the two streams comes first in a wake changes nothing; on a histogram's or a summary's event it is worth the
 * span's duration, so a slow bucket gets a slow span; while no span has ended, due events get none.
 * Without `spans`, ids are random, drawn from `seed` and the tick's slot number. The exemplar's
 * time is its row's. An event's rows are known by their first and last series and their number:
 * the events of one label set keep their rows in one order, one series object a row, as the
 * histogram and summary operators make them.
 *
 * ```
 * spans:     --a-------b-------|        a: a root span of 0.2 s, b: of 3 s (each ended by the next rows)
 * rows:      ---(xyz)---(xyz)--|        x = _bucket{le="1"}, y = le="+Inf", z = _count
 *            exemplars({spans})
 * rows:      ---(x'yz)--(xy'z)-|        x' carries a (0.2 ≤ 1), y' carries b
 * ```
 */
export function exemplars<B extends Labelled<SampleBatch>>(options: ExemplarOptions = {}): MonoTypeOperatorFunction<B> {
  check('exemplars', 'options', options, OBJECT);
  checkOptional('exemplars', 'spans', options.spans, OBSERVABLE);
  if (options.choice !== undefined) checkChoice('exemplars', 'choice', options.choice);
  checkOptional('exemplars', 'every', options.every, POSITIVE_COUNT);
  checkOptional('exemplars', 'probability', options.probability, PROBABILITY);
  checkOptional('exemplars', 'seed', options.seed, INTEGER);
  checkOptional('exemplars', 'value', options.value, FUNCTION);
  checkOptional('exemplars', 'unitsPerSecond', options.unitsPerSecond, POSITIVE);
  checkOptional('exemplars', 'spanDurations', options.spanDurations, BOOLEAN);
  const { every = 1, probability, seed = 0, value = () => 1, unitsPerSecond = 1, spanDurations = true } = options;
  // Span times are in nanoseconds.
  const nanosecondsPerUnit = 1e9 / unitsPerSecond;
  const draws = new SplitMix64(seed);
  const ids = new SplitMix64(seed ^ ID_STREAM);
  // Slot numbers are doubles, whose remainder is a slow division: every event needs none.
  const due =
    probability !== undefined
      ? (index: number) => draws.unit(index) < probability
      : every === 1
        ? () => true
        : (index: number) => index % every === 0;
  const attach = (pool: EndedSpanPool | undefined) => {
    const places = new Places();
    return map((batch: B): B => {
      const events = batch.events ?? batch.size;
      const rows = events > 0 ? batch.size / events : 0;
      // Room for the exemplars expected (two rows each with native histograms): growing the columns costs a copy.
      const expected = (probability ?? 1 / every) * events * (batch.native ? 2 : 1);
      const placed = new ExemplarRowsBuilder(Math.ceil(expected) + 8);
      // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
      const { native, series, offset, anchor, index: indices } = batch;
      for (let e = 0; e < events; e++) {
        const at = e * rows;
        const index = indices[at]!;
        if (!due(index)) continue;
        const time = timestampAt(anchor, offset, at);
        const span = pool?.take(time, anchor + offset[at]!);
        if (pool && !span) continue;
        places.see(series, at, rows);
        const worth =
          span && spanDurations && (native || places.distribution)
            ? (span.spans.end[span.s]! - span.spans.start[span.s]!) / nanosecondsPerUnit
            : value(index, offset[at]!, e);
        const k = placed.add(places.of(native, at, rows, worth), worth, time);
        if (span) placed.setIds(k, span.spans, span.s);
        else ids.idWords(index, placed.traceId, 4 * k, placed.spanId, 2 * k);
        if (places.second >= 0) placed.addFrom(places.second, placed, k);
      }
      const exemplars = placed.build();
      return exemplars ? carryingExemplars(batch, exemplars) : batch;
    });
  };
  if (!options.spans) return attach(undefined);
  // As an SDK records exemplars (OpenTelemetry's default trace-based filter; client_golang's examples): only of
  // sampled spans, those a head-sampled pipeline keeps, so that an exemplar leads to a trace the backend holds.
  const keep = spanFilter({ ...(options.choice ?? { roots: true }), sampled: true });
  return withSpanPools<B, B>('exemplars', options.spans, [keep], 'ended', ([pool]) => attach(pool));
}

/** Separates the stream of random ids from that of `probability`'s draws. */
const ID_STREAM = 0x5eed;

/**
 * Where an event's exemplar goes, ascending: the first `_bucket` row holding its value, else the `_count` row, else
 * the event's first row (when it has no native row); and its native row. The events of a label set have the same
 * series in the same places (as the histogram and summary operators make them: one series object a row of a label
 * set), so the bucket rows, their bounds (`le`; `+Inf` and anything unreadable hold every value) and the `_count` row
 * are read once for each such layout, and an event is known by its first and last series and its number of rows:
 * comparing every row of every event was about a quarter of the operator's time (docs/performance.md).
 */
class Places {
  /** The event's second row, -1 when it has none: set by {@link of}, read before the next call. */
  second = -1;
  private first: Series | undefined;
  private last: Series | undefined;
  private rows = -1;
  private buckets: number[] = [];
  private bounds: number[] = [];
  private count = -1;

  /** Reads the layout of the event at `at` (`rows` long, of `series`), unless it is the one read last. */
  see(series: readonly Series[], at: number, rows: number): void {
    if (series[at] !== this.first || series[at + rows - 1] !== this.last || rows !== this.rows)
      this.learn(series, at, rows);
  }

  /** Whether the event {@link see} read last is a histogram's or a summary's (it has buckets or a `_count`). */
  get distribution(): boolean {
    return this.count >= 0 || this.buckets.length > 0;
  }

  /**
   * The first row of the event at `at` (`rows` long, read by {@link see}, with the batch's `native` column) that
   * carries an exemplar worth `value`; the second, if any, in {@link second}.
   */
  of(native: SampleBatch['native'], at: number, rows: number, value: number): number {
    let classic = this.count;
    const { bounds } = this;
    for (let b = 0; b < bounds.length; b++) {
      if (value <= bounds[b]!) {
        classic = this.buckets[b]!;
        break;
      }
    }
    let nativeRow = -1;
    if (native) for (let r = 0; r < rows; r++) if (native[at + r]) nativeRow = r;
    if (classic < 0 && nativeRow < 0) classic = 0;
    // Ascending: the classic row before the native one, unless it comes after it.
    if (classic < 0 || nativeRow < 0) {
      this.second = -1;
      return at + Math.max(classic, nativeRow);
    }
    this.second = at + Math.max(classic, nativeRow);
    return at + Math.min(classic, nativeRow);
  }

  private learn(series: readonly Series[], at: number, rows: number): void {
    this.first = series[at];
    this.last = series[at + rows - 1];
    this.rows = rows;
    this.buckets = [];
    this.bounds = [];
    this.count = -1;
    for (let r = 0; r < rows; r++) {
      const row = series[at + r]!;
      if (row.suffix === '_bucket') {
        const bound = Number(row.labels.le);
        this.buckets.push(r);
        this.bounds.push(Number.isNaN(bound) ? Infinity : bound);
      } else if (row.suffix === '_count') this.count = r;
    }
  }
}
