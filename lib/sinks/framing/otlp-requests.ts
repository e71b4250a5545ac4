import type { EncodedBatch } from '../../../operators/model/batch.js';
import type { SpanResource } from '../../../operators/model/span.js';
import { TELEMETRY_SDK } from '../../../operators/model/resource.js';
import {
  OTLP_TAG,
  attributes,
  fieldTag,
  headField,
  headText,
  otlpMessages,
  resourceField,
  typedAttributes,
} from '../../protocols/otlp.js';
import { VERSION } from '../../version.js';
import type { PartialRefusal, Receipt } from '../core/batching-sink.js';
import { recordBytes, recordRequests, type RecordRequest, type RecordRun } from './record-requests.js';
import { perObject } from '../../per-object.js';
import { firstLine, SinkError } from '../core/errors.js';
import { formatBytes } from '../../format.js';

/**
 * The OTLP signals svc sends, with what their requests and refusals name (`rejected`: the count of a partial
 * success in OTLP/JSON), and what one record (never split) holds
 * when it is too large for any request: a trace record above 1 MiB is a single span (lib/encoders/otlp-traces.ts).
 */
export const OTLP_SIGNALS = {
  metrics: {
    service: 'opentelemetry.proto.collector.metrics.v1.MetricsService',
    path: '/v1/metrics',
    units: 'data points',
    rejected: 'rejectedDataPoints',
    record: "one event: a sample, or a histogram's or summary's series",
  },
  logs: {
    service: 'opentelemetry.proto.collector.logs.v1.LogsService',
    path: '/v1/logs',
    units: 'log records',
    rejected: 'rejectedLogRecords',
    record: 'one log record',
  },
  traces: {
    service: 'opentelemetry.proto.collector.trace.v1.TraceService',
    path: '/v1/traces',
    units: 'spans',
    rejected: 'rejectedSpans',
    record: 'one span, with its attributes',
  },
} as const;

export type OtlpSignal = keyof typeof OTLP_SIGNALS;

/**
 * The OpenTelemetry SDKs' defaults: batches of up to 1,000, sent at least every 5 s. A request holds at most
 * 4,000,000 bytes of records: the collector's gRPC receiver refuses a message above 4 MiB (its default
 * `max_recv_msg_size_mib`, counted after decompression) as RESOURCE_EXHAUSTED, so 1,000 large log records
 * would be lost; the rest of 4 MiB is room for the resource and scope around them. The batching core gathers that
 * much too (its own default is 1 MiB), so records of many small chunks fill a request as those of one large chunk do.
 */
export const OTLP_DEFAULTS = {
  batchSize: 1000,
  maxAge: 5000,
  timeout: 10_000,
  maxRequestBytes: 4_000_000,
  // A request in flight and the next one filling: the batching core's 4 × a request would be 16 MB a sink.
  maxBufferedBytes: 8_000_000,
} as const;

/** The batching core's bounds of an OTLP sink's requests and of what it holds, as both OTLP sinks give them. */
export const OTLP_BATCH_LIMITS = {
  maxRequestBytes: OTLP_DEFAULTS.maxRequestBytes,
  maxBufferedBytes: OTLP_DEFAULTS.maxBufferedBytes,
} as const;

/** A collector's receiver limit of one message: its default, in bytes, and the setting that changes it. */
export interface ReceiverLimit {
  readonly bytes: number;
  readonly setting: string;
}

/**
 * What to change when the collector refused a request as larger than it takes (`limit`, unless changed): svc's
 * requests hold at most {@link OTLP_DEFAULTS}' `maxRequestBytes` of records, so a larger one, or one of a single
 * event, holds records no request can split (lowering batch_size cannot help); several events meet a lowered limit.
 */
export function tooLargeAdvice(request: RecordRequest, signal: OtlpSignal, limit: ReceiverLimit): string {
  // One event's records are never split either (a histogram's series set), whatever their size.
  const single = request.size <= 1 || request.bytes > OTLP_DEFAULTS.maxRequestBytes;
  if (!single)
    return `the collector takes less in one message than svc sends (up to ${formatBytes(OTLP_DEFAULTS.maxRequestBytes)} of records): lower batch_size, or raise its receiver's ${limit.setting}`;
  // Below the receiver's default, its limit was lowered (or a proxy in front of it has one of its own).
  const takes =
    request.bytes > limit.bytes
      ? `${formatBytes(limit.bytes)} unless its receiver's ${limit.setting} says more`
      : `its receiver's ${limit.setting}, ${formatBytes(limit.bytes)} by default, was lowered, or a proxy in front of it takes less`;
  return `the request holds a single record of ${formatBytes(request.bytes)} (${OTLP_SIGNALS[signal].record}), which svc cannot split, and the collector takes less in one message (${takes}): make the record smaller, or raise that limit`;
}

/**
 * The resource of every metrics or logs request unless the sink's `resource` says otherwise: svc's service, and
 * the SDK as a span's resource names it.
 */
export const DEFAULT_RESOURCE: Readonly<Record<string, string>> = { 'service.name': 'svc', ...TELEMETRY_SDK };

/**
 * Requests of at most `limit` records and {@link OTLP_DEFAULTS}' `maxRequestBytes` of them: each an `Export{Metrics,Logs}ServiceRequest` with a
 * `ResourceMetrics`/`ResourceLogs` per resource of its records, in order of first appearance: a record's
 * series' own (`Series.resource`: a span metric's service), else the sink's `resource` over
 * {@link DEFAULT_RESOURCE}. Each holds one scope (`svc` and its version) and its records, in order, which the
 * otlp encoder wrote as that scope's `metrics`/`log_records` fields. Metrics and logs nest alike (fields 1 and 2
 * at each level), so one envelope serves both.
 */
export function otlpRequests(
  limit: number,
  resource: Readonly<Record<string, string>> = {},
  signal: OtlpSignal = 'metrics',
): (chunks: readonly EncodedBatch[]) => RecordRequest[] {
  // The traces encoder writes whole ResourceSpans, one per service: any run of them is the request.
  if (signal === 'traces')
    return recordRequests(limit, (runs) => Buffer.concat(runs.map(recordBytes)), OTLP_DEFAULTS.maxRequestBytes);
  const { protobuf, type } = otlpMessages();
  const sinkResource = resourceField(attributes({ ...DEFAULT_RESOURCE, ...resource }));
  const ownResource = perObject((own: SpanResource) => resourceField(typedAttributes(own.attributes)));
  const resourceOf = (own: SpanResource | undefined): Uint8Array => (own ? ownResource(own) : sinkResource);
  const scopeField = protobuf.Writer.create()
    .uint32(OTLP_TAG.first)
    .bytes(type('InstrumentationScope').encode({ name: 'svc', version: VERSION }).finish())
    .finish();
  const prefix = (tag: number, length: number) => protobuf.Writer.create().uint32(tag).uint32(length).finish();
  const body = (runs: readonly RecordRun[]): Uint8Array => {
    // Per resource, its records' bytes: a run's records of one resource stay one view of the chunk.
    const groups = new Map<SpanResource | undefined, { records: Uint8Array[]; bytes: number }>();
    for (const { chunk, from, to } of runs) {
      const { series } = chunk.frames;
      for (let first = from, last = from; first < to; first = last) {
        const own = series[first]!.resource;
        while (++last < to && series[last]!.resource === own);
        const records = recordBytes({ chunk, from: first, to: last });
        const group = groups.get(own);
        if (group) {
          group.records.push(records);
          group.bytes += records.length;
        } else groups.set(own, { records: [records], bytes: records.length });
      }
    }
    const parts: Uint8Array[] = [];
    for (const [own, { records, bytes }] of groups) {
      const resourceBytes = resourceOf(own);
      const scopeLength = scopeField.length + bytes;
      const scopePrefix = prefix(OTLP_TAG.second, scopeLength);
      parts.push(
        prefix(OTLP_TAG.first, resourceBytes.length + scopePrefix.length + scopeLength),
        resourceBytes,
        scopePrefix,
        scopeField,
        ...records,
      );
    }
    return Buffer.concat(parts);
  };
  return recordRequests(limit, body, OTLP_DEFAULTS.maxRequestBytes);
}

/**
 * What an `Export` answer says: a partial success names how many of the request's records the
 * collector refused and why (the first line of its message, shown through `redact`, which masks the sink's
 * credentials); those
 * fail, the rest are delivered. A partial success refusing none with a message is a warning ("servers MAY use
 * the partial_success field to convey warnings/suggestions"): the request is delivered, and the message said as
 * a refusal's is. The answer is a
 * protobuf ExportResponse, or OTLP/JSON when `contentType` says so (a server answering in its own
 * encoding); one that reads as neither (a gateway's `OK`) says nothing more than the status did: the
 * collector took the request, whose records must not be sent again.
 */
export function exportReceipt(
  sink: string,
  signal: OtlpSignal,
  answer: Uint8Array,
  request: RecordRequest,
  redact: (answer: string) => string,
  contentType?: string,
): PartialRefusal | Warned | undefined {
  if (answer.length === 0) return undefined;
  const partialSuccess = partialSuccessOf(signal, answer, contentType);
  const { units } = OTLP_SIGNALS[signal];
  // Absent (or JSON's null) is proto3's 0; a count that reads as none is the collector's mistake, refusing nothing.
  const count = partialSuccess?.rejected == null ? 0 : countOf(partialSuccess.rejected);
  // A count above the request's records is the collector's mistake too: no more than it holds can be refused.
  const rejected = Math.min(count ?? 0, request.size);
  const { errorMessage } = partialSuccess ?? {};
  // Its first line, cut as every answer svc repeats: the message goes on one warning and STOPPED line.
  const said = typeof errorMessage === 'string' ? firstLine(redact(errorMessage)) : '';
  if (!(rejected > 0)) {
    if (!said) return undefined;
    const warning =
      count === 0
        ? `${sink} sink: the collector took all ${units} but warned: "${said}"`
        : `${sink} sink: the collector said "${said}" with no count of refused ${units} svc can read (all are counted as delivered)`;
    // The batching core says a sink's first warning only (Receipt.warning).
    return { warning: `${warning} (said once: later warnings of this sink are not shown)` };
  }
  const why = said ? `: "${said}"` : '';
  return {
    rejected,
    error: new SinkError(sink, `the collector refused ${rejected} of ${request.size} ${units}${why}`),
  };
}

/** A request the destination took whole, saying something the user should know. */
interface Warned extends Receipt {
  readonly warning: string;
}

/** ExportResponse's `partial_success` (1), and in it the count of refused records (1) and `error_message` (2). */
const PARTIAL_SUCCESS_TAG = fieldTag(1, 2);
const REJECTED_TAG = fieldTag(1, 0);
const ERROR_MESSAGE_TAG = fieldTag(2, 2);

/**
 * The partial success of an answer, or undefined for none or an answer that is no ExportResponse. A protobuf one
 * is read from its head: a 2xx body is kept only so far, and the count precedes a long error message.
 */
function partialSuccessOf(
  signal: OtlpSignal,
  answer: Uint8Array,
  contentType: string | undefined,
): { rejected?: unknown; errorMessage?: unknown } | undefined {
  if (isOtlpJson(contentType)) {
    try {
      const { partialSuccess } = JSON.parse(Buffer.from(answer).toString('utf8')) ?? {};
      return (
        partialSuccess && {
          rejected: partialSuccess[OTLP_SIGNALS[signal].rejected],
          errorMessage: partialSuccess.errorMessage,
        }
      );
    } catch {
      return undefined;
    }
  }
  const partialSuccess = headField(answer, PARTIAL_SUCCESS_TAG);
  if (!(partialSuccess instanceof Uint8Array)) return undefined;
  const errorMessage = headField(partialSuccess, ERROR_MESSAGE_TAG);
  return {
    rejected: headField(partialSuccess, REJECTED_TAG) ?? 0,
    errorMessage: errorMessage instanceof Uint8Array ? headText(errorMessage) : undefined,
  };
}

/** Whether an answer is OTLP/JSON (media types are case-insensitive, RFC 9110). */
export function isOtlpJson(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().startsWith('application/json') ?? false;
}

/**
 * A count of refused records as an answer gives it: a safe integer, or a string of digits (OTLP/JSON's int64);
 * anything else ("1.5", "Infinity", "0x10", -1, an object) is none svc can read: undefined.
 */
function countOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
}
