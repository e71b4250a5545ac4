import TinyQueue from 'tinyqueue';
import {
  concatWith,
  defer,
  EMPTY,
  map,
  of,
  tap,
  type Observable,
  type OperatorFunction,
  type SchedulerLike,
} from 'rxjs';
import {
  carryingExemplars,
  ExemplarRowsBuilder,
  timestampAt,
  type Labelled,
  type SampleBatch,
  type TickBatch,
} from './model/batch.js';
import { seriesOf, type Series } from './model/series.js';
import { SPAN_STATUS, type SpanBatch, type SpanColumns, type SpanResource } from './model/span.js';
import { boundText, bucketOf } from './internal/series-rows.js';
import { emittedBefore, endOf, readingSpans, type TimedSpan } from './internal/span-pool.js';
import {
  check,
  checkIncreasing,
  checkOptional,
  BOOLEAN,
  NON_NEGATIVE,
  OBJECT,
  oneOf,
  SCHEDULER,
  OBSERVABLE,
} from './internal/arguments.js';

/** Units of the duration histogram, as the OpenTelemetry span metrics connector offers them. */
export const SPAN_METRICS_UNITS = ['ms', 's'] as const;
export type SpanMetricsUnit = (typeof SPAN_METRICS_UNITS)[number];

/** The connector's default duration buckets, in seconds (2 ms to 15 s). */
export const SPAN_METRICS_BUCKETS = [
  0.002, 0.004, 0.006, 0.008, 0.01, 0.05, 0.1, 0.2, 0.4, 0.8, 1, 1.4, 2, 5, 10, 15,
] as const;

/**
 * The labels of a span metric: the connector's dimensions as OTLP names them, or as Prometheus
 * does once translated (dots become underscores).
 */
export type SpanMetricsNaming = 'otlp' | 'prometheus';

export interface SpanMetricsOptions {
  /** `calls`: spans counted per dimension set; `duration`: their durations as a histogram. */
  readonly family: 'calls' | 'duration';
  /** Duration buckets in seconds; default {@link SPAN_METRICS_BUCKETS}. */
  readonly buckets?: readonly number[];
  readonly unit?: SpanMetricsUnit;
  /** Whether duration buckets carry the ids of a span they counted since the last write. */
  readonly exemplars?: boolean;
  readonly naming?: SpanMetricsNaming;
  /**
   * Where the entry ends, in ms after its start (`duration`); with `scheduler`, the stream's end writes once more,
   * at its time but not past this end, so the spans of the last interval are counted too (as the connector's flush
   * at shutdown). Without an end, at the time the stream ends.
   */
  readonly end?: number;
  /** Reads the time of that last write; absent: no last write. */
  readonly scheduler?: SchedulerLike;
}

/** The labels of every row of a span metric, by naming: the span's service, name, kind and status. */
export const SPAN_METRICS_DIMENSIONS: Readonly<Record<SpanMetricsNaming, readonly [string, string, string, string]>> = {
  otlp: ['service.name', 'span.name', 'span.kind', 'status.code'],
  prometheus: ['service_name', 'span_name', 'span_kind', 'status_code'],
};

/** The state of one dimension set: its rows' series, and the counts since the subscription. */
interface Dimensions {
  readonly rows: readonly Series[];
  calls: number;
  sum: number;
  readonly perBucket: Float64Array;
  /** The span that ended last among those each bucket counted since the last write (`exemplars`). */
  readonly exemplars: (TimedSpan | undefined)[];
}

/**
 * Span metrics, as the OpenTelemetry span metrics connector makes them: every span of `spans` is
 * counted under its dimensions (service, span name, kind as `SPAN_KIND_SERVER`, status as
 * `STATUS_CODE_UNSET` or `STATUS_CODE_ERROR`, the latter for a span that raised or saw an error)
 * once it has ended, as the connector sees a span when it ends: each tick (the connector's flush)
 * counts the spans that ended by its time (of the traces emitted in an earlier whole-millisecond wake
 * than its own, read from the span batches' tick times, so which of the two streams comes first in a
 * wake changes nothing), the others wait for a later tick, and writes every dimension set seen so
 * far, cumulative since the subscription.
 * `calls` writes one row per set; `duration` its histogram rows, `_bucket{le}` in `unit`, `+Inf`,
 * `_sum`, `_count`, with, under `exemplars`, the span that ended last among those each bucket
 * counted since the last tick. Each row's series carries the resource of its service
 * (`Series.resource`, without a pod's `k8s.pod.name`: the set counts every pod of the service), as
 * the connector copies the spans' resource. With a `scheduler`, the end of the ticks writes once
 * more, at that time (not past `end`), so what ended in the last interval is counted too; spans
 * still running then are never counted. State is created per subscription; the spans are read
 * while the result is subscribed.
 *
 * ```
 * spans:   -a--b-----|          a: 2 spans of GET / ending before tick 0, b: 1 failing span of GET / ending after tick 1
 * ticks:   ---0-----1|
 *          spanMetrics(spans, {family: 'calls'})
 * rows:    ---x-----x|          x = {span_name="GET /", status_code="STATUS_CODE_UNSET"} 2 (b still running)
 * ```
 */
export function spanMetrics<B extends TickBatch>(
  spans: Observable<SpanBatch>,
  options: SpanMetricsOptions,
): OperatorFunction<B, Labelled<SampleBatch>> {
  check('spanMetrics', 'spans', spans, OBSERVABLE);
  check('spanMetrics', 'options', options, OBJECT);
  const { family, unit = 'ms', exemplars = false, naming = 'prometheus', end, scheduler } = options;
  check('spanMetrics', 'family', family, oneOf(['calls', 'duration']));
  check('spanMetrics', 'unit', unit, oneOf(SPAN_METRICS_UNITS));
  check('spanMetrics', 'naming', naming, oneOf(Object.keys(SPAN_METRICS_DIMENSIONS)));
  check('spanMetrics', 'exemplars', exemplars, BOOLEAN);
  if (options.buckets) checkIncreasing('spanMetrics', 'buckets', options.buckets);
  checkOptional('spanMetrics', 'end', end, NON_NEGATIVE);
  checkOptional('spanMetrics', 'scheduler', scheduler, SCHEDULER);
  const bounds = [...(options.buckets ?? SPAN_METRICS_BUCKETS), Infinity];
  const scale = unit === 'ms' ? 1000 : 1;
  const rowsPerSet = family === 'calls' ? 1 : bounds.length + 2;
  const [service, name, kind, status] = SPAN_METRICS_DIMENSIONS[naming];
  const rowsOf = (labels: Record<string, string>, resource: SpanResource): Series[] => {
    // As the connector copies a span's resource to its metrics; a service's pods counted together.
    const row = (rowLabels: Record<string, string>, suffix?: string): Series =>
      Object.freeze({ ...seriesOf(rowLabels, suffix), resource: resource.serviceResource ?? resource });
    return family === 'calls'
      ? [row(labels)]
      : [
          ...bounds.map((bound) => row({ ...labels, le: boundText(bound * scale) }, '_bucket')),
          row(labels, '_sum'),
          row(labels, '_count'),
        ];
  };

  return readingSpans<B, Labelled<SampleBatch>>('spanMetrics', spans, () => {
    // By node of the call tree, then failing or not: the dimensions of a span are its node's and its status.
    const byNode: (Dimensions | undefined)[] = [];
    const seen: Dimensions[] = [];
    const count = (columns: SpanColumns, s: number, end: number): void => {
      const failed = columns.status[s] !== SPAN_STATUS.unset;
      const key = 2 * columns.node[s]! + (failed ? 1 : 0);
      let set = byNode[key];
      if (!set) {
        const node = columns.nodes[columns.node[s]!]!;
        set = {
          rows: rowsOf(
            {
              [service]: node.service,
              [name]: node.name,
              [kind]: `SPAN_KIND_${node.kind.toUpperCase()}`,
              [status]: failed ? 'STATUS_CODE_ERROR' : 'STATUS_CODE_UNSET',
            },
            columns.resource[s]!,
          ),
          calls: 0,
          sum: 0,
          perBucket: new Float64Array(bounds.length),
          exemplars: [],
        };
        byNode[key] = set;
        seen.push(set);
      }
      set.calls++;
      if (family === 'calls') return;
      const seconds = (columns.end[s]! - columns.start[s]!) / 1e9;
      set.sum += seconds * scale;
      const b = bucketOf(bounds, seconds);
      set.perBucket[b]!++;
      if (!exemplars) return;
      const held = set.exemplars[b];
      if (!held || held.end <= end) set.exemplars[b] = { spans: columns, s, end };
    };
    // Span batches not looked at whole yet, and the first tick of the oldest not looked at.
    const pending: SpanBatch[] = [];
    let next = 0;
    // Spans of traces looked at that had not ended by then, the first to end on top.
    const running = new TinyQueue<TimedSpan>([], (a, b) => a.end - b.end);
    /**
     * Counts the spans ended by `time` (epoch ms) not counted yet, as the connector sees a span when it ends. Only traces
     * emitted in an earlier wake than `time`'s are looked at ({@link emittedBefore}), so which of the two streams comes
     * first in a wake changes nothing.
     */
    const countUntil = (time: number): void => {
      while (pending.length > 0) {
        // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
        const { size, anchor, offset, spans, firstSpan, spanCount } = pending[0]!;
        for (; next < size && emittedBefore(anchor + offset[next]!, time); next++) {
          const first = firstSpan[next]!;
          for (let s = first; s < first + spanCount[next]!; s++) {
            const end = endOf(anchor, spans, s);
            if (end <= time) count(spans, s, end);
            else running.push({ spans, s, end });
          }
        }
        if (next < size) break;
        pending.shift();
        next = 0;
      }
      while (running.length > 0 && running.peek()!.end <= time) {
        const { spans: columns, s, end } = running.pop()!;
        count(columns, s, end);
      }
    };

    const write = (batch: TickBatch): Labelled<SampleBatch> => {
      const { size: ticks, anchor, index: tickIndex, offset: tickOffset } = batch;
      if (ticks > 0) countUntil(anchor + tickOffset[ticks - 1]!);
      const sets = seen.length;
      const size = ticks * sets * rowsPerSet;
      const index = new Float64Array(size);
      const offset = new Float64Array(size);
      const value = new Float64Array(size);
      const series = new Array<Series>(size);
      const carried = new ExemplarRowsBuilder();
      let at = 0;
      for (let i = 0; i < ticks; i++) {
        const timestamp = timestampAt(anchor, tickOffset, i);
        for (const set of seen) {
          for (let r = 0; r < rowsPerSet; r++) {
            index[at + r] = tickIndex[i]!;
            offset[at + r] = tickOffset[i]!;
            series[at + r] = set.rows[r]!;
          }
          if (family === 'calls') value[at] = set.calls;
          else {
            let cumulative = 0;
            for (let b = 0; b < bounds.length; b++) {
              value[at + b] = cumulative += set.perBucket[b]!;
              const counted = set.exemplars[b];
              if (!counted) continue;
              const { spans: columns, s } = counted;
              const seconds = (columns.end[s]! - columns.start[s]!) / 1e9;
              carried.setIds(carried.add(at + b, seconds * scale, timestamp), columns, s);
              set.exemplars[b] = undefined;
            }
            value[at + bounds.length] = set.sum;
            value[at + bounds.length + 1] = set.calls;
          }
          at += rowsPerSet;
        }
      }
      const events = family === 'calls' ? {} : { events: ticks * sets };
      const rows: Labelled<SampleBatch> = { size, anchor, index, offset, value, series, ...events };
      const exemplars = carried.build();
      return exemplars ? carryingExemplars(rows, exemplars) : rows;
    };
    // The last tick written: the write at the end follows it.
    let last: TickBatch | undefined;
    /** The write when the ticks end, at that time but not past `end`, if later than the last tick. */
    const lastWrite = () => {
      if (!scheduler || !last) return EMPTY;
      // The ticks' offsets count from their start in scheduler time; the anchor is epoch ms, perhaps another instant.
      const now = scheduler.now() - (last.start ?? last.anchor);
      const at = Math.min(now, end ?? now);
      if (!(at > last.offset[last.size - 1]!)) return EMPTY;
      const tick = { size: 1, anchor: last.anchor, index: Float64Array.of(last.index[last.size - 1]! + 1) };
      return of(write({ ...tick, offset: Float64Array.of(at) }));
    };
    const operator: OperatorFunction<B, Labelled<SampleBatch>> = (source) =>
      source.pipe(
        tap((batch) => {
          if (batch.size > 0) last = batch;
        }),
        map(write),
        concatWith(defer(lastWrite)),
      );
    return { feed: (batch: SpanBatch) => void pending.push(batch), operator };
  });
}
