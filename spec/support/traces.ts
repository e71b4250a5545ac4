import type { ExportRequest } from './backends/otlp-receiver.js';
import type { ZipkinSpan } from './backends/zipkin-receiver.js';

/**
 * Trace invariants over one neutral span shape, so that a single checker serves every encoding
 * of traces (OTLP as the OTLP receiver decodes it, Zipkin v2 JSON, svc's json_lines) and the
 * official clients' output alike. Times are epoch nanoseconds as bigint: OTLP's own unit, exact
 * where milliseconds as a number would round microseconds and nanoseconds away.
 */

export type SpanKind = 'server' | 'client' | 'producer' | 'consumer' | 'internal';
export type SpanStatus = 'ok' | 'error' | 'unset';
export type AttributeValue =
  | string
  | number
  | boolean
  | readonly AttributeValue[]
  | { readonly [key: string]: AttributeValue };
export type Attributes = Readonly<Record<string, AttributeValue>>;

export interface SpanEvent {
  readonly name: string;
  /** Epoch nanoseconds. */
  readonly time: bigint;
  readonly attributes: Attributes;
}

export interface SpanLink {
  readonly traceId: string;
  readonly spanId: string;
  readonly attributes: Attributes;
}

export interface TraceSpan {
  /** Lowercase hex, as it was sent: 32 digits (Zipkin allows 16). */
  readonly traceId: string;
  /** Lowercase hex, 16 digits (see {@link spansFromZipkin} for Zipkin's shared spans). */
  readonly spanId: string;
  /** Absent on a root span. */
  readonly parentSpanId?: string;
  readonly service: string;
  readonly name: string;
  readonly kind: SpanKind;
  /** Epoch nanoseconds. */
  readonly start: bigint;
  /** Epoch nanoseconds. */
  readonly end: bigint;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly events?: readonly SpanEvent[];
  readonly links?: readonly SpanLink[];
}

const KINDS: readonly SpanKind[] = ['server', 'client', 'producer', 'consumer', 'internal'];
const STATUSES: readonly SpanStatus[] = ['ok', 'error', 'unset'];

/** SPAN_KIND_UNSPECIFIED counts as internal, as the OTLP spec says. */
const OTLP_KINDS: Readonly<Record<string, SpanKind>> = {
  SPAN_KIND_UNSPECIFIED: 'internal',
  SPAN_KIND_INTERNAL: 'internal',
  SPAN_KIND_SERVER: 'server',
  SPAN_KIND_CLIENT: 'client',
  SPAN_KIND_PRODUCER: 'producer',
  SPAN_KIND_CONSUMER: 'consumer',
};
const OTLP_STATUSES: Readonly<Record<string, SpanStatus>> = {
  STATUS_CODE_UNSET: 'unset',
  STATUS_CODE_OK: 'ok',
  STATUS_CODE_ERROR: 'error',
};

/** A table's entry for `key`, or an error naming what had no entry. */
function lookUp<T>(table: Readonly<Record<string, T>>, key: string, what: string): T {
  if (!Object.hasOwn(table, key))
    throw new Error(`${what} ${JSON.stringify(key)} is not one of ${Object.keys(table).join(', ')}`);
  return table[key]!;
}

function anyValue(value: ExportRequest): AttributeValue {
  if ('string_value' in value) return value.string_value;
  if ('bool_value' in value) return value.bool_value;
  if ('int_value' in value) return Number(value.int_value);
  if ('double_value' in value) return value.double_value;
  if ('array_value' in value) return value.array_value.values.map(anyValue);
  if ('kvlist_value' in value) return otlpAttributes(value.kvlist_value.values);
  if ('bytes_value' in value) return Buffer.from(value.bytes_value).toString('base64');
  throw new Error(`an OTLP AnyValue without a value: ${JSON.stringify(value)}`);
}

/** OTLP KeyValues; 64-bit integers become numbers (exact up to 2^53), bytes base64 as OTLP/JSON writes them. */
function otlpAttributes(keyValues: readonly ExportRequest[]): Attributes {
  return Object.fromEntries(keyValues.map(({ key, value }) => [key, anyValue(value)]));
}

/**
 * The spans of decoded ExportTraceServiceRequests, as the OTLP receiver's `requestsOf('traces')`
 * gives them; the service is the resource's `service.name` (a ResourceSpans without one is an
 * error).
 */
export function spansFromOtlp(requests: readonly ExportRequest[]): TraceSpan[] {
  return requests.flatMap((request) =>
    request.resource_spans.flatMap((resourceSpans: ExportRequest) => {
      const service = otlpAttributes(resourceSpans.resource?.attributes ?? [])['service.name'];
      if (typeof service !== 'string') throw new Error('a ResourceSpans without a service.name resource attribute');
      return resourceSpans.scope_spans.flatMap((scope: ExportRequest) =>
        scope.spans.map(
          (span: ExportRequest): TraceSpan => ({
            traceId: span.trace_id,
            spanId: span.span_id,
            ...(span.parent_span_id ? { parentSpanId: span.parent_span_id } : {}),
            service,
            name: span.name,
            kind: lookUp(OTLP_KINDS, span.kind, 'span kind'),
            start: BigInt(span.start_time_unix_nano),
            end: BigInt(span.end_time_unix_nano),
            status: lookUp(OTLP_STATUSES, span.status?.code ?? 'STATUS_CODE_UNSET', 'status code'),
            attributes: otlpAttributes(span.attributes),
            events: span.events.map((event: ExportRequest) => ({
              name: event.name,
              time: BigInt(event.time_unix_nano),
              attributes: otlpAttributes(event.attributes),
            })),
            links: span.links.map((link: ExportRequest) => ({
              traceId: link.trace_id,
              spanId: link.span_id,
              attributes: otlpAttributes(link.attributes),
            })),
          }),
        ),
      );
    }),
  );
}

/**
 * Zipkin v2 spans (as the Zipkin receiver accepted them). Times come from `timestamp` and
 * `duration` (a span without them is an error); annotations become events named by their value.
 * The status is read back from the tags the OpenTelemetry-to-Zipkin mapping writes: `error`
 * (any value) or `otel.status_code: ERROR` is an error, `otel.status_code: OK` ok; those tags
 * are not attributes. A shared span (the server half of a client span that B3 "joined", reported
 * under the client's id) becomes a child of that client span with the id `<id>:shared`, which is
 * the tree Zipkin's own UI draws.
 */
export function spansFromZipkin(spans: readonly ZipkinSpan[]): TraceSpan[] {
  return spans.map((span) => {
    if (span.timestamp === undefined || span.duration === undefined)
      throw new Error(`Zipkin span ${span.id} has no timestamp or duration`);
    const {
      error,
      'otel.status_code': statusCode,
      'otel.status_description': _description,
      ...attributes
    } = span.tags ?? {};
    const start = BigInt(span.timestamp) * 1000n;
    return {
      traceId: span.traceId,
      ...(span.shared
        ? { spanId: `${span.id}:shared`, parentSpanId: span.id }
        : { spanId: span.id, ...(span.parentId ? { parentSpanId: span.parentId } : {}) }),
      service: span.localEndpoint.serviceName,
      name: span.name ?? '',
      kind: span.kind ? (span.kind.toLowerCase() as SpanKind) : 'internal',
      start,
      end: start + BigInt(span.duration) * 1000n,
      status: error !== undefined || statusCode === 'ERROR' ? 'error' : statusCode === 'OK' ? 'ok' : 'unset',
      attributes,
      events: (span.annotations ?? []).map(({ timestamp, value }) => ({
        name: value,
        time: BigInt(timestamp) * 1000n,
        attributes: {},
      })),
    };
  });
}

/**
 * One span of svc's json_lines trace output. `start` and `end` are RFC 3339 UTC strings with up
 * to nine fractional digits (`2024-01-01T00:00:00.123456789Z`): the json_lines encoders of
 * metrics and logs write RFC 3339 too, and nanoseconds keep OTLP's precision.
 */
export interface JsonLinesSpan {
  readonly trace_id: string;
  readonly span_id: string;
  readonly parent_span_id?: string | null;
  readonly service: string;
  readonly name: string;
  readonly kind: SpanKind;
  readonly start: string;
  readonly end: string;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly events?: readonly { readonly name: string; readonly time: string; readonly attributes?: Attributes }[];
  readonly links?: readonly { readonly trace_id: string; readonly span_id: string; readonly attributes?: Attributes }[];
}

const RFC3339_NANOS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/;

function epochNanos(text: unknown): bigint | undefined {
  const [, seconds, fraction = ''] = (typeof text === 'string' && RFC3339_NANOS.exec(text)) || [];
  const ms = seconds === undefined ? Number.NaN : Date.parse(`${seconds}Z`);
  return Number.isNaN(ms) ? undefined : BigInt(ms) * 1_000_000n + BigInt(fraction.padEnd(9, '0'));
}

/**
 * json_lines span records: the text of a file or of stdout (one record a line, blank lines
 * skipped) or records already parsed. A record that breaks the shape above is an error naming it.
 */
export function spansFromJsonLines(input: string | readonly JsonLinesSpan[]): TraceSpan[] {
  const records: unknown[] =
    typeof input === 'string'
      ? input
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line))
      : [...input];
  return records.map((record, index) => {
    const fail = (why: string) => new Error(`json_lines span ${index + 1} ${JSON.stringify(record)}: ${why}`);
    const span = record as JsonLinesSpan;
    if (!/^[0-9a-f]{32}$/.test(span.trace_id)) throw fail('trace_id must be 32 lower-hex digits');
    if (!/^[0-9a-f]{16}$/.test(span.span_id)) throw fail('span_id must be 16 lower-hex digits');
    const parent = span.parent_span_id ?? undefined;
    if (parent !== undefined && !/^[0-9a-f]{16}$/.test(parent))
      throw fail('parent_span_id must be 16 lower-hex digits, or absent');
    if (typeof span.service !== 'string' || typeof span.name !== 'string') throw fail('service and name are strings');
    if (!KINDS.includes(span.kind)) throw fail(`kind must be one of ${KINDS.join(', ')}`);
    if (!STATUSES.includes(span.status)) throw fail(`status must be one of ${STATUSES.join(', ')}`);
    const start = epochNanos(span.start);
    const end = epochNanos(span.end);
    if (start === undefined || end === undefined) throw fail('start and end must be RFC 3339 UTC times');
    if (typeof span.attributes !== 'object' || span.attributes === null) throw fail('attributes must be an object');
    return {
      traceId: span.trace_id,
      spanId: span.span_id,
      ...(parent ? { parentSpanId: parent } : {}),
      service: span.service,
      name: span.name,
      kind: span.kind,
      start,
      end,
      status: span.status,
      attributes: span.attributes,
      ...(span.events && {
        events: span.events.map((event) => {
          const time = epochNanos(event.time);
          if (time === undefined) throw fail('an event time must be an RFC 3339 UTC time');
          return { name: event.name, time, attributes: event.attributes ?? {} };
        }),
      }),
      ...(span.links && {
        links: span.links.map((link) => ({
          traceId: link.trace_id,
          spanId: link.span_id,
          attributes: link.attributes ?? {},
        })),
      }),
    };
  });
}

/** Spans by trace id, traces and spans in the order they came. */
export function groupByTrace(spans: readonly TraceSpan[]): Map<string, TraceSpan[]> {
  const traces = new Map<string, TraceSpan[]>();
  for (const span of spans) {
    const trace = traces.get(span.traceId);
    if (trace) trace.push(span);
    else traces.set(span.traceId, [span]);
  }
  return traces;
}

/** The share of the spans passing `filter` (all by default) whose status is error; an error when none passes. */
export function errorRatio(spans: readonly TraceSpan[], filter: (span: TraceSpan) => boolean = () => true): number {
  const chosen = spans.filter(filter);
  if (chosen.length === 0) throw new Error('errorRatio: no span passes the filter');
  return chosen.filter((span) => span.status === 'error').length / chosen.length;
}

export interface TraceCheckOptions {
  /**
   * Client spans that call something other than a traced service (a database, a third-party
   * API), which answers with no server span. By default the spans with a `db.system` or
   * `db.system.name` attribute: OpenTelemetry's database client spans.
   */
  readonly external?: (span: TraceSpan) => boolean;
}

const isDatabaseCall = (span: TraceSpan) => 'db.system' in span.attributes || 'db.system.name' in span.attributes;

const describe = (span: TraceSpan) => `${span.service} ${span.kind} span "${span.name}" (${span.spanId})`;

const milliseconds = (nanos: bigint) => `${Number(nanos) / 1e6} ms`;

/**
 * What breaks the shape of a trace, one sentence a problem (none for well-formed traces): in each
 * trace, span ids used twice, a parent that is not in the trace, no root or several, a span that
 * ends before it starts, a child starting before its parent or ending after it (a consumer may
 * outlive its producer: messaging is asynchronous), a client span with no server child (unless
 * `external`), a producer no consumer took (neither a consumer child nor a consumer span linking
 * to it, in any trace given).
 */
export function traceProblems(spans: readonly TraceSpan[], options: TraceCheckOptions = {}): string[] {
  const external = options.external ?? isDatabaseCall;
  const consumedByLink = new Set(
    spans
      .filter((span) => span.kind === 'consumer')
      .flatMap((span) => (span.links ?? []).map((link) => `${link.traceId} ${link.spanId}`)),
  );
  const problems: string[] = [];
  for (const [traceId, trace] of groupByTrace(spans)) {
    const report = (problem: string) => problems.push(`trace ${traceId}: ${problem}`);
    const byId = new Map<string, TraceSpan>();
    const children = new Map<string, TraceSpan[]>();
    for (const span of trace) {
      const twin = byId.get(span.spanId);
      if (twin) report(`${describe(twin)} and ${describe(span)} have the same span id`);
      else byId.set(span.spanId, span);
      if (span.parentSpanId !== undefined)
        children.set(span.parentSpanId, [...(children.get(span.parentSpanId) ?? []), span]);
    }
    const roots = trace.filter((span) => span.parentSpanId === undefined);
    if (roots.length === 0) report('no root span');
    if (roots.length > 1) report(`${roots.length} root spans: ${roots.map(describe).join(', ')}`);
    for (const span of trace) {
      if (span.end < span.start)
        report(`${describe(span)} ends ${milliseconds(span.start - span.end)} before it starts`);
      const parent = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId);
      if (span.parentSpanId !== undefined && !parent)
        report(`the parent ${span.parentSpanId} of ${describe(span)} is not in the trace`);
      if (parent && span.start < parent.start)
        report(
          `${describe(span)} starts ${milliseconds(parent.start - span.start)} before its parent ${describe(parent)}`,
        );
      const asynchronous = parent?.kind === 'producer' && span.kind === 'consumer';
      if (parent && !asynchronous && span.end > parent.end)
        report(`${describe(span)} ends ${milliseconds(span.end - parent.end)} after its parent ${describe(parent)}`);
      const kinds = new Set((children.get(span.spanId) ?? []).map((child) => child.kind));
      if (span.kind === 'client' && !kinds.has('server') && !external(span))
        report(`${describe(span)} has no server span as its child`);
      if (span.kind === 'producer' && !kinds.has('consumer') && !consumedByLink.has(`${traceId} ${span.spanId}`))
        report(`${describe(span)} has no consumer: no consumer child, no consumer span linking to it`);
    }
  }
  return problems;
}
