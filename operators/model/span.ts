/**
 * Spans: what flows through the chain of a traces entry.
 *
 * A tick makes one trace (and the traces its `new_trace` consumers start). The spans of a batch
 * are stored column-wise in one {@link SpanColumns}, held by the batch as a whole; each tick
 * names its range of it (`firstSpan`, `spanCount`, per-tick columns). So `selectTicks` (gaps,
 * gates) keeps or drops whole traces without copying a span, and the span columns are typed
 * arrays of numbers: what a span shares with every span of its place in the call tree (service,
 * name, kind, fixed attributes) lives once, in its {@link SpanNode}, where encoders prepare its
 * bytes once.
 */
import type { TickBatch } from './batch.js';
import type { AttributeValue, SpanResource } from './resource.js';

export type { AttributeValue, SpanResource };

export type SpanKind = 'server' | 'client' | 'producer' | 'consumer' | 'internal';
export const SPAN_KINDS: readonly SpanKind[] = ['server', 'client', 'producer', 'consumer', 'internal'];
/**
 * The kinds of span of a request as its service served it: what exemplars with a `service` name, and what
 * traceContext names of a record that is not failing, unless told which kinds.
 */
export const REQUEST_SPAN_KINDS: readonly SpanKind[] = ['server', 'consumer'];

/** An attribute whose value each span picks: one of `values`, or `prefix` + a number below `cardinality`. */
export type PickedAttribute =
  | { readonly key: string; readonly values: readonly AttributeValue[] }
  | { readonly key: string; readonly prefix: string; readonly cardinality: number };

/** What every span of one place in the call tree shares. */
export interface SpanNode {
  readonly service: string;
  /** The span name: the operation. */
  readonly name: string;
  readonly kind: SpanKind;
  /** Attributes with one value, in the order written. */
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** Attributes each span picks a value of: span `s`'s pick of `picked[j]` is `picks[pickAt[s] + j]`. */
  readonly picked: readonly PickedAttribute[];
  /** The service a client or producer span calls, when that service is in the tree (Zipkin's remote endpoint). */
  readonly peer?: string;
  /**
   * What an error raised in this span says: its status message, and its `exception` event's attributes. Every
   * node raises the same type, so `type` is also that of a failure its spans see from a call (their `error.type`).
   */
  readonly exception: { readonly type: string; readonly message: string };
}

/** Values of the `status` column. */
export const SPAN_STATUS = {
  /** No error (OTLP's STATUS_CODE_UNSET, as instrumentations leave a span that did not fail). */
  unset: 0,
  /** An error raised in this span: status error and an `exception` event. */
  error: 1,
  /** An error seen from a call (the client span of a failed server span, a propagated error): status error, no event. */
  failedCall: 2,
} as const;

/** The W3C trace flag "sampled", in the `flags` column. */
export const SAMPLED_FLAG = 1;

/** The spans of a batch, column by column; span `s` is row `s` of each column. */
export interface SpanColumns {
  readonly size: number;
  /** The call tree's nodes: the same array for every batch of one generator. */
  readonly nodes: readonly SpanNode[];
  /** Index into `nodes`. */
  readonly node: Int32Array;
  /** Row of the parent span, -1 for the root of a trace. A parent comes before its children. */
  readonly parent: Int32Array;
  /** 16-byte trace id as 4 unsigned 32-bit words, most significant first: words `4s` to `4s + 3`. */
  readonly traceId: Uint32Array;
  /** 8-byte span id as 2 words: `2s` and `2s + 1`. Never all zero, nor is a trace id. */
  readonly spanId: Uint32Array;
  /** Start and end in whole nanoseconds after the batch's `anchor`. */
  readonly start: Float64Array;
  readonly end: Float64Array;
  /** One of {@link SPAN_STATUS}. */
  readonly status: Uint8Array;
  /** W3C trace flags of the span's trace ({@link SAMPLED_FLAG}). */
  readonly flags: Uint8Array;
  /** Row of the span this one links to (a `new_trace` consumer's producer), or -1. */
  readonly link: Int32Array;
  readonly resource: readonly SpanResource[];
  /** Where the span's picks start in `picks` (see {@link SpanNode.picked}). */
  readonly pickAt: Int32Array;
  /** Picked values: an index into `values`, or the number after `prefix`. */
  readonly picks: Uint32Array;
}

/**
 * Ticks carrying their traces: tick `i`'s spans are rows `firstSpan[i]` to
 * `firstSpan[i] + spanCount[i] - 1` of `spans`, its trace's root first.
 */
export interface SpanBatch extends TickBatch {
  readonly spans: SpanColumns;
  readonly firstSpan: Float64Array;
  readonly spanCount: Float64Array;
}

/** The spans of a batch's ticks (those a gap or gate kept). */
export function spansIn(batch: SpanBatch): number {
  // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
  const { size, spanCount } = batch;
  let spans = 0;
  for (let i = 0; i < size; i++) spans += spanCount[i]!;
  return spans;
}

/** Generator of traces for `generateTraces`. */
export interface TraceGenerator {
  readonly nodes: readonly SpanNode[];
  /**
   * Writes into `out` the spans of tick `index`, scheduled `offset` ms after the entry start, whose timestamps
   * count from `anchor` (epoch ms: the `start_time` instant): its trace, root first, and the traces its
   * consumers start. Pure: the same tick and anchor, the same spans; the anchor changes only their ids.
   */
  trace(index: number, offset: number, out: SpanWriter, anchor: number): void;
}

/** Spans a writer starts with. */
const FIRST_CAPACITY = 64;

/**
 * The span columns of one batch as a generator writes them: {@link add} a span, then fill its
 * row of the other columns (read them from the writer after an `add`: growing replaces them).
 * {@link finish} hands the columns over to the batch and starts afresh, sized like the last.
 */
export class SpanWriter {
  size = 0;
  // Typed without a type argument: inferred, they would be declared `Int32Array<ArrayBuffer>`, which TypeScript
  // before 5.7 cannot read in the package's declarations.
  node: Int32Array = new Int32Array(0);
  parent: Int32Array = new Int32Array(0);
  traceId: Uint32Array = new Uint32Array(0);
  spanId: Uint32Array = new Uint32Array(0);
  start: Float64Array = new Float64Array(0);
  end: Float64Array = new Float64Array(0);
  status: Uint8Array = new Uint8Array(0);
  flags: Uint8Array = new Uint8Array(0);
  link: Int32Array = new Int32Array(0);
  resource: SpanResource[] = [];
  pickAt: Int32Array = new Int32Array(0);
  picks: Uint32Array = new Uint32Array(0);
  private picked = 0;

  constructor(
    readonly nodes: readonly SpanNode[],
    private capacity = FIRST_CAPACITY,
  ) {
    this.allocate(capacity);
  }

  /** Adds a span of node `node` under row `parent` (-1: a root), with room for its node's picks; returns its row. */
  add(node: number, parent: number, resource: SpanResource): number {
    const s = this.size++;
    if (s === this.node.length) this.allocate(2 * s, s);
    this.node[s] = node;
    this.parent[s] = parent;
    this.status[s] = SPAN_STATUS.unset;
    this.link[s] = -1;
    this.resource[s] = resource;
    this.pickAt[s] = this.picked;
    return s;
  }

  /** Room for `count` picks; returns where they start (a span's `pickAt`). */
  pickRoom(count: number): number {
    const at = this.picked;
    this.picked += count;
    if (this.picked > this.picks.length) {
      const picks = new Uint32Array(Math.max(2 * this.picks.length, this.picked));
      picks.set(this.picks.subarray(0, at));
      this.picks = picks;
    }
    return at;
  }

  /** The columns written since the last call, for a batch to keep; the writer starts empty. */
  finish(): SpanColumns {
    const n = this.size;
    const columns: SpanColumns = {
      size: n,
      nodes: this.nodes,
      node: this.node.subarray(0, n),
      parent: this.parent.subarray(0, n),
      traceId: this.traceId.subarray(0, 4 * n),
      spanId: this.spanId.subarray(0, 2 * n),
      start: this.start.subarray(0, n),
      end: this.end.subarray(0, n),
      status: this.status.subarray(0, n),
      flags: this.flags.subarray(0, n),
      link: this.link.subarray(0, n),
      resource: this.resource,
      pickAt: this.pickAt.subarray(0, n),
      picks: this.picks.subarray(0, this.picked),
    };
    // The next batch is likely as large: one allocation, no growing.
    this.capacity = Math.max(FIRST_CAPACITY, n);
    this.size = 0;
    this.allocate(this.capacity);
    this.picks = new Uint32Array(this.picks.length);
    this.picked = 0;
    return columns;
  }

  /** New columns of `capacity` spans holding the first `keep` spans of the current ones. */
  private allocate(capacity: number, keep = 0): void {
    const grow = <A extends Int32Array | Uint32Array | Float64Array | Uint8Array>(old: A, make: A, width = 1): A => {
      make.set(old.subarray(0, keep * width));
      return make;
    };
    this.node = grow(this.node, new Int32Array(capacity));
    this.parent = grow(this.parent, new Int32Array(capacity));
    this.traceId = grow(this.traceId, new Uint32Array(4 * capacity), 4);
    this.spanId = grow(this.spanId, new Uint32Array(2 * capacity), 2);
    this.start = grow(this.start, new Float64Array(capacity));
    this.end = grow(this.end, new Float64Array(capacity));
    this.status = grow(this.status, new Uint8Array(capacity));
    this.flags = grow(this.flags, new Uint8Array(capacity));
    this.link = grow(this.link, new Int32Array(capacity));
    this.pickAt = grow(this.pickAt, new Int32Array(capacity));
    if (keep === 0) this.resource = [];
  }
}
