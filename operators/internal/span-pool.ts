import { Observable, type OperatorFunction } from 'rxjs';
import { SPAN_STATUS, type SpanBatch, type SpanColumns, type SpanKind } from '../model/span.js';

/** Which spans of a traces entry a pool keeps: span `s` of `spans` is kept when this says so. */
export type SpanFilter = (spans: SpanColumns, s: number) => boolean;

/** A span a pool hands out: span `s` of the columns `spans` (whose ids a reader copies or writes out as hex). */
export interface PooledSpan {
  readonly spans: SpanColumns;
  readonly s: number;
}

/** Spans a pool remembers: enough for the exemplars and log records of a few wake-ups. */
const CAPACITY = 1024;

/**
 * The recent spans of a traces entry that another entry's exemplars or log records name. Spans
 * are handed out newest first, each once while fresh ones remain; when none is fresh, the newest
 * again (a request writes several log lines), so a consumer faster than the traces still names
 * real, recent spans. A pool keeps references to the batches' columns, not copies: a reader takes the
 * ids of the spans handed out from them.
 */
export class SpanPool {
  private readonly columns = new Array<SpanColumns>(CAPACITY);
  private readonly rows = new Int32Array(CAPACITY);
  /** Whether the span at each place was handed out. */
  private readonly taken = new Uint8Array(CAPACITY);
  /** Spans added so far; the newest is at `(added - 1) % CAPACITY`. */
  private added = 0;
  /** Spans in the pool not handed out yet. */
  private fresh = 0;

  constructor(private readonly keep: SpanFilter) {}

  /** Remembers the spans of `batch`'s ticks that the filter keeps. */
  add(batch: SpanBatch): void {
    const { spans } = batch;
    for (let i = 0; i < batch.size; i++) {
      const first = batch.firstSpan[i]!;
      for (let s = first; s < first + batch.spanCount[i]!; s++) {
        if (!this.keep(spans, s)) continue;
        const at = this.added++ % CAPACITY;
        // A place reused drops a span that may have been fresh.
        if (this.added > CAPACITY && !this.taken[at]) this.fresh--;
        this.columns[at] = spans;
        this.rows[at] = s;
        this.taken[at] = 0;
        this.fresh++;
      }
    }
  }

  /** The newest fresh span, else the newest one; undefined while no span was kept. */
  take(): PooledSpan | undefined {
    if (this.added === 0) return undefined;
    let at = (this.added - 1) % CAPACITY;
    if (this.fresh > 0) {
      while (this.taken[at]) at = (at + CAPACITY - 1) % CAPACITY;
      this.taken[at] = 1;
      this.fresh--;
    }
    return { spans: this.columns[at]!, s: this.rows[at]! };
  }
}

/** What a pool keeps: spans of `service` (any service when absent), of one of `kinds` (any), raising errors or not. */
export interface SpanChoice {
  readonly service?: string;
  readonly kinds?: readonly SpanKind[];
  /** Only the spans that raised an error (status error with its exception). */
  readonly errors?: boolean;
  /** Only the roots of traces. */
  readonly roots?: boolean;
}

/** The filter of a {@link SpanChoice}. */
export function spanFilter({ service, kinds, errors, roots }: SpanChoice): SpanFilter {
  return (spans, s) => {
    if (roots && spans.parent[s] !== -1) return false;
    if (errors && spans.status[s] !== SPAN_STATUS.error) return false;
    const node = spans.nodes[spans.node[s]!]!;
    return (service === undefined || node.service === service) && (kinds === undefined || kinds.includes(node.kind));
  };
}

/**
 * An operator that reads `spans` beside its source: for each subscription `start` makes its state
 * (the function fed every span batch, and the operator the source runs through), spans are fed
 * for as long as the result is subscribed, and the result completes or errors with the source,
 * whatever the spans do.
 */
export function readingSpans<A, B>(
  spans: Observable<SpanBatch>,
  start: () => { readonly feed: (batch: SpanBatch) => void; readonly operator: OperatorFunction<A, B> },
): OperatorFunction<A, B> {
  return (source) =>
    new Observable<B>((subscriber) => {
      const { feed, operator } = start();
      const fed = spans.subscribe(feed);
      const main = source.pipe(operator).subscribe(subscriber);
      return () => {
        fed.unsubscribe();
        main.unsubscribe();
      };
    });
}

/** Runs `source` through the operator `project` makes of the pools of `filters` (one per filter), fed by `spans`. */
export function withSpanPools<A, B>(
  spans: Observable<SpanBatch>,
  filters: readonly SpanFilter[],
  project: (pools: readonly SpanPool[]) => OperatorFunction<A, B>,
): OperatorFunction<A, B> {
  return readingSpans(spans, () => {
    const pools = filters.map((keep) => new SpanPool(keep));
    return {
      feed: (batch) => {
        for (const pool of pools) pool.add(batch);
      },
      operator: project(pools),
    };
  });
}
