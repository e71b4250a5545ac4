import { Observable, type OperatorFunction } from 'rxjs';
import TinyQueue from 'tinyqueue';
import {
  SAMPLED_FLAG,
  SPAN_KINDS,
  SPAN_STATUS,
  type SpanBatch,
  type SpanColumns,
  type SpanKind,
} from '../model/span.js';
import { check, checkList, checkOptional, oneOf, BOOLEAN, OBJECT, STRING, type Rule } from './arguments.js';
import { guarded } from './guarded.js';

/** Which spans of a traces entry a pool keeps: span `s` of `spans` is kept when this says so. */
export type SpanFilter = (spans: SpanColumns, s: number) => boolean;

/** A span a pool hands out: span `s` of the columns `spans` (whose ids a reader copies or writes out as hex). */
export interface PooledSpan {
  readonly spans: SpanColumns;
  readonly s: number;
}

/** Ended spans a pool remembers: enough for the exemplars and log records of a few wake-ups. */
const CAPACITY = 1024;

/**
 * Spans a pool holds until they end. A traces entry writes a trace whole when it starts, so its spans come before
 * they start; beyond this many at once (a high rate of long spans) the newest are not kept, and the pool names the
 * others. Those are not counted: no reader of a pool has a way to warn the user; docs/correlation.md gives the bound.
 */
const RUNNING_CAPACITY = 4096;

/**
 * How long after its end a span is fresh (named before spans already named). Older ones are not named again unless
 * they are the newest: a record names one of the last spans to end, not one unnamed since long ago.
 */
const FRESH_MS = 1000;

/**
 * The whole millisecond (epoch ms) whose timer wake emits a tick at `tick` (epoch ms): timers wake on whole
 * milliseconds, each emitting the ticks due by then.
 */
export const wakeOf = (tick: number): number => Math.ceil(tick);

/**
 * Whether a trace whose tick is at `tick` counts for a record at `now` (both epoch ms): only if emitted in an earlier
 * wake than the record's. Two entries' timers firing in one wake fire in either order, so a trace of the record's own
 * wake may come before or after it; counted, it would be named (or counted) in one order and not in the other. The one
 * rule of every reader of spans (exemplars, log records, span metrics), reading the times alone, so a live run and a
 * backfill agree.
 */
export const emittedBefore = (tick: number, now: number): boolean => wakeOf(tick) < now;

/** A span with its end in epoch milliseconds. */
export interface TimedSpan extends PooledSpan {
  readonly end: number;
}

/**
 * A span a pool holds until it ends, with the time it starts for a record (epoch ms): its start, but not before the
 * whole millisecond its trace's tick is emitted in (see {@link SpanPool.add}); and the order it came in, which breaks
 * ties of times so that spans are started and ended in one order however the pool's work was split between calls.
 */
interface HeldSpan extends TimedSpan {
  readonly start: number;
  readonly order: number;
}

/** When span `s` of the span columns of the batch at `anchor` ends, in epoch milliseconds. */
export const endOf = (anchor: number, spans: SpanColumns, s: number): number => anchor + spans.end[s]! / 1e6;

const byEnd = (a: HeldSpan, b: HeldSpan): number => a.end - b.end || a.order - b.order;

/**
 * The recent spans of a traces entry that another entry's exemplars or log records name, as of the time of the record
 * naming one. Spans come when their trace starts and are held until they end. {@link take} names a span that has
 * ended (an exemplar's request is done); {@link takeRunning} one running then, as an SDK stamps a log with the active
 * span, and {@link takeEndedBefore} one ended before then, for when none runs. Ended spans are handed out newest
 * first (the last to end), each once while fresh ones (ended in the last second, not named yet) remain; when none is
 * fresh, the newest again (a request writes several log lines), so a consumer faster than the traces still names
 * real, recent spans, and a slower one does not fall behind them. A pool keeps references to the batches' columns,
 * not copies: a reader takes the ids of the spans handed out from them. A pool asked for ended spans only holds its
 * spans by their end alone (one not started has not ended either), except those ending by their trace's wake, which
 * end for a record only after that wake ({@link emittedBefore}).
 */
export class SpanPool {
  /** Held spans not started by the last time asked, the first to start on top; unused when asked for ended spans. */
  private readonly coming = new TinyQueue<HeldSpan>([], (a, b) => a.start - b.start || a.order - b.order);
  /** Held spans not named while running (when asked for running spans, those started then), the first to end on top. */
  private readonly unnamed = new TinyQueue<HeldSpan>([], byEnd);
  /** Held spans started then and named while running. */
  private readonly named = new TinyQueue<HeldSpan>([], byEnd);
  private readonly columns = new Array<SpanColumns>(CAPACITY);
  private readonly rows = new Int32Array(CAPACITY);
  private readonly ends = new Float64Array(CAPACITY);
  /** Whether the span at each place was handed out. */
  private readonly taken = new Uint8Array(CAPACITY);
  /** Ended spans added so far; the newest is at `(added - 1) % CAPACITY`. */
  private added = 0;
  /** Spans held so far: the order of the next. */
  private arrived = 0;

  constructor(
    private readonly keep: SpanFilter,
    private readonly asked: SpanAsk,
  ) {}

  /**
   * Holds the spans of `batch`'s ticks that the filter keeps until they end. A span whose trace is emitted in a
   * record's own wake may come before or after the record (as the scheduler runs the two timers), so it counts for a
   * record only after that wake ({@link emittedBefore}): it starts for a record from that millisecond, and ends for
   * one no earlier. A record thus names a span of an earlier wake or none, in either order: neither a span starting 0.5
   * ms before a record nor one ended by then, their trace emitted in the record's wake.
   */
  add(batch: SpanBatch): void {
    // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
    const { size, anchor, offset, spans, firstSpan, spanCount } = batch;
    for (let i = 0; i < size; i++) {
      const emitted = wakeOf(anchor + offset[i]!);
      // Every record to come is of this wake or a later one, so after its previous millisecond: what started or ended
      // before then has for it. (Not up to the tick: a record of this wake may be before it.)
      this.advance(emitted - 1, false);
      const first = firstSpan[i]!;
      for (let s = first; s < first + spanCount[i]!; s++) {
        if (this.coming.length + this.unnamed.length + this.named.length >= RUNNING_CAPACITY) break;
        if (!this.keep(spans, s)) continue;
        const start = Math.max(anchor + spans.start[s]! / 1e6, emitted);
        const end = endOf(anchor, spans, s);
        // Held by its end alone only if that is after its trace's wake: an earlier end counts from the wake on.
        const queue = this.asked === 'running' || end <= emitted ? this.coming : this.unnamed;
        queue.push({ spans, s, start, end, order: this.arrived++ });
      }
    }
  }

  /**
   * The newest fresh span ended by `now` (epoch ms; of a trace emitted in an earlier wake than `now`'s, see
   * {@link add}), else the newest one; undefined while no span has ended. `now` is the time a record is stamped (its
   * tick's whole millisecond) and `tick` its tick (epoch ms), whose wake says which traces have surely come.
   */
  take(now: number, tick: number): PooledSpan | undefined {
    this.catchUp(now, tick, true);
    return this.newest(now);
  }

  /**
   * A span running at `now` (epoch ms: started before then, and in an earlier millisecond's wake than `now`'s, see
   * {@link add}; not ended before): the first to end among those not named yet (the failure closest to being
   * raised, its exception event is at its end), else the first to end; undefined
   * while none runs. Only for a pool asked for running spans. `tick` as for {@link take}.
   */
  takeRunning(now: number, tick: number): PooledSpan | undefined {
    this.catchUp(now, tick, false);
    const fresh = this.unnamed.pop();
    if (fresh) this.named.push(fresh);
    return fresh ?? this.named.peek();
  }

  /**
   * A span ended before `now` (epoch ms), as {@link take} chooses, for when none runs then: a span ending at `now`
   * still runs. Only for a pool asked for running spans. `tick` as for {@link take}.
   */
  takeEndedBefore(now: number, tick: number): PooledSpan | undefined {
    this.catchUp(now, tick, false);
    return this.newest(now);
  }

  /** The newest fresh span ended by `now` (epoch ms), as of the last catch-up, else the newest one. */
  private newest(now: number): PooledSpan | undefined {
    if (this.added === 0) return undefined;
    const newest = (this.added - 1) % CAPACITY;
    const oldest = Math.max(0, this.added - CAPACITY);
    // Newest first, back to the first that is no longer fresh (ends are in order).
    let found = newest;
    for (let n = this.added - 1; n >= oldest; n--) {
      const at = n % CAPACITY;
      if (this.ends[at]! < now - FRESH_MS) break;
      if (!this.taken[at]) {
        found = at;
        break;
      }
    }
    this.taken[found] = 1;
    return { spans: this.columns[found]!, s: this.rows[found]! };
  }

  /**
   * {@link advance}s to `now` by way of the millisecond before the wake of the record's `tick`, as {@link add} does for
   * a trace of that wake: the pool then starts and ends its spans in the same steps, so in the same order, whether that
   * trace or the record asking came first. (The wake of the tick, not of `now`: a record ticking at 999.5 ms is stamped
   * 999 ms but fires in the wake of 1 000 ms, with the traces whose {@link add} steps to 999 ms.)
   */
  private catchUp(now: number, tick: number, atNow: boolean): void {
    const before = wakeOf(tick) - 1;
    // Mostly `now` itself (a tick within a millisecond), which the second step covers; never past it, should the
    // tick's sum have rounded across a millisecond.
    if (before < now) this.advance(before, false);
    this.advance(now, atNow);
  }

  /**
   * Starts the spans started before `now` (as {@link add} reckons their start), and ends those ended before it (or at
   * it, with `atNow`), in the order they end. A span starting at `now` itself, or whose trace is emitted in `now`'s
   * millisecond, is not started yet: that trace may come before or after the record asking (as the scheduler runs the
   * two timers), and it would be named in one order and not the other. Going back to an earlier time changes nothing.
   */
  private advance(now: number, atNow: boolean): void {
    while (this.coming.length > 0 && this.coming.peek()!.start < now) this.unnamed.push(this.coming.pop()!);
    for (;;) {
      const unnamed = this.unnamed.peek();
      const named = this.named.peek();
      const wasNamed = named !== undefined && (unnamed === undefined || byEnd(named, unnamed) < 0);
      const span = wasNamed ? named : unnamed;
      if (!span || span.end > now || (span.end === now && !atNow)) return;
      (wasNamed ? this.named : this.unnamed).pop();
      const at = this.added++ % CAPACITY;
      this.columns[at] = span.spans;
      this.rows[at] = span.s;
      this.ends[at] = span.end;
      this.taken[at] = wasNamed ? 1 : 0;
    }
  }
}

/** What a pool keeps: spans of `service` (any service when absent), of one of `kinds` (any), raising errors or not. */
export interface SpanChoice {
  readonly service?: string;
  readonly kinds?: readonly SpanKind[];
  /** Only the spans that raised an error (status error with its exception). */
  readonly errors?: boolean;
  /** Only the spans that saw a call fail without raising an error themselves (status error, no exception). */
  readonly failedCalls?: boolean;
  /**
   * Only the roots of the traces ticks start (a request as its user saw it), not those of the traces a `new_trace`
   * consumer starts, which a link to their producer marks.
   */
  readonly roots?: boolean;
  /** Only the spans of sampled traces (their W3C sampled flag set). */
  readonly sampled?: boolean;
}

/**
 * Throws unless `choice`, the argument `name` of `operator`, is a {@link SpanChoice}: a kind misspelt or a service
 * that is not text would match no span, and the operator would name none without a word.
 */
export function checkChoice(operator: string, name: string, choice: SpanChoice): void {
  check(operator, name, choice, OBJECT);
  checkOptional(operator, `${name}.service`, choice.service, STRING);
  if (choice.kinds !== undefined) {
    checkList(operator, `${name}.kinds`, choice.kinds);
    choice.kinds.forEach((kind, i) => {
      check(operator, `${name}.kinds[${i}]`, kind, oneOf(SPAN_KINDS));
    });
  }
  checkOptional(operator, `${name}.errors`, choice.errors, BOOLEAN);
  checkOptional(operator, `${name}.failedCalls`, choice.failedCalls, BOOLEAN);
  checkOptional(operator, `${name}.roots`, choice.roots, BOOLEAN);
  checkOptional(operator, `${name}.sampled`, choice.sampled, BOOLEAN);
}

/** The filter of a {@link SpanChoice}. */
export function spanFilter({ service, kinds, errors, failedCalls, roots, sampled }: SpanChoice): SpanFilter {
  return (spans, s) => {
    if (roots && (spans.parent[s] !== -1 || spans.link[s]! >= 0)) return false;
    if (sampled && (spans.flags[s]! & SAMPLED_FLAG) === 0) return false;
    if (errors && spans.status[s] !== SPAN_STATUS.error) return false;
    if (failedCalls && spans.status[s] !== SPAN_STATUS.failedCall) return false;
    const node = spans.nodes[spans.node[s]!]!;
    return (service === undefined || node.service === service) && (kinds === undefined || kinds.includes(node.kind));
  };
}

/** What `spans` must carry: the span columns generateTraces writes, not the ticks before it. */
const SPAN_BATCH: Rule = {
  type: 'object',
  test: (batch: SpanBatch) =>
    typeof batch.spans === 'object' &&
    batch.spans !== null &&
    batch.firstSpan instanceof Float64Array &&
    batch.spanCount instanceof Float64Array,
  expected: "a batch of spans (generateTraces' output)",
};

/**
 * An operator, `operator` by name, that reads `spans` beside its source: for each subscription `start` makes its
 * state (the function fed every span batch, and the operator the source runs through), spans are fed
 * for as long as the result is subscribed, and the result completes with the source, whatever the
 * spans do; an error of the spans, a value that is no batch of spans, or a throw in `feed` errors it (unhandled,
 * RxJS would throw it out of the stream).
 */
export function readingSpans<A, B>(
  operator: string,
  spans: Observable<SpanBatch>,
  start: () => { readonly feed: (batch: SpanBatch) => void; readonly operator: OperatorFunction<A, B> },
): OperatorFunction<A, B> {
  return (source) =>
    new Observable<B>((subscriber) => {
      const { feed, operator: project } = start();
      const fed = spans.subscribe({
        next: guarded(subscriber, (batch: SpanBatch) => {
          check(operator, 'each value of spans', batch, SPAN_BATCH);
          feed(batch);
        }),
        error: (error: unknown) => subscriber.error(error),
      });
      const main = source.pipe(project).subscribe(subscriber);
      return () => {
        fed.unsubscribe();
        main.unsubscribe();
      };
    });
}

/**
 * What a pool is asked for: spans ended by a time ({@link SpanPool.take}), or running then too
 * ({@link SpanPool.takeRunning} and {@link SpanPool.takeEndedBefore}, which cost keeping the spans in start order as
 * well).
 */
export type SpanAsk = 'ended' | 'running';

/** A pool asked for ended spans only. */
export type EndedSpanPool = Pick<SpanPool, 'take'>;

/**
 * Runs `source` through the operator `project` makes of the pools of `filters` (one per filter), fed by `spans`,
 * each asked for what `asked` says; `operator` names the caller in what a wrong value of `spans` errors with.
 */
export function withSpanPools<A, B>(
  operator: string,
  spans: Observable<SpanBatch>,
  filters: readonly SpanFilter[],
  asked: 'ended',
  project: (pools: readonly EndedSpanPool[]) => OperatorFunction<A, B>,
): OperatorFunction<A, B>;
export function withSpanPools<A, B>(
  operator: string,
  spans: Observable<SpanBatch>,
  filters: readonly SpanFilter[],
  asked: 'running',
  project: (pools: readonly SpanPool[]) => OperatorFunction<A, B>,
): OperatorFunction<A, B>;
export function withSpanPools<A, B>(
  operator: string,
  spans: Observable<SpanBatch>,
  filters: readonly SpanFilter[],
  asked: SpanAsk,
  project: (pools: readonly SpanPool[]) => OperatorFunction<A, B>,
): OperatorFunction<A, B> {
  return readingSpans(operator, spans, () => {
    const pools = filters.map((keep) => new SpanPool(keep, asked));
    return {
      feed: (batch) => {
        for (const pool of pools) pool.add(batch);
      },
      operator: project(pools),
    };
  });
}
