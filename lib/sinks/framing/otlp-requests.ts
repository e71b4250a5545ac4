import { OTLP_TAG, attributes, otlpMessages } from '../../protocols/otlp.js';
import { VERSION } from '../../version.js';
import type { PartialRefusal } from '../core/batching-sink.js';
import { recordRequests, type RecordRequest } from './record-requests.js';
import { SinkError } from '../core/errors.js';

/** The OTLP signals svc sends, with what their requests and refusals name. */
export const OTLP_SIGNALS = {
  metrics: {
    service: 'opentelemetry.proto.collector.metrics.v1.MetricsService',
    path: '/v1/metrics',
    units: 'data points',
  },
  logs: { service: 'opentelemetry.proto.collector.logs.v1.LogsService', path: '/v1/logs', units: 'log records' },
  traces: { service: 'opentelemetry.proto.collector.trace.v1.TraceService', path: '/v1/traces', units: 'spans' },
} as const;

export type OtlpSignal = keyof typeof OTLP_SIGNALS;

/** The OpenTelemetry SDKs' defaults: batches of up to 1,000, sent at least every 5 s. */
export const OTLP_DEFAULTS = { batchSize: 1000, maxAge: 5000, timeout: 10_000 } as const;

/** The resource of every request unless the sink's `resource` says otherwise. */
export const DEFAULT_RESOURCE: Readonly<Record<string, string>> = { 'service.name': 'svc' };

/**
 * Requests of at most `limit` records: each an `Export{Metrics,Logs}ServiceRequest` with one
 * `ResourceMetrics`/`ResourceLogs` (the sink's `resource` over {@link DEFAULT_RESOURCE}) holding
 * one scope (`svc` and its version) and the records, which the otlp encoder wrote as that scope's
 * `metrics`/`log_records` fields. Metrics and logs nest alike (fields 1 and 2 at each level), so
 * one envelope serves both.
 */
export function otlpRequests(
  limit: number,
  resource: Readonly<Record<string, string>> = {},
  signal: OtlpSignal = 'metrics',
): ReturnType<typeof recordRequests> {
  // The traces encoder writes whole ResourceSpans, one per service: any run of them is the request.
  if (signal === 'traces') return recordRequests(limit, (_preambles, records) => Buffer.concat(records));
  const { protobuf, type } = otlpMessages();
  const field = (tag: number, bytes: Uint8Array) => protobuf.Writer.create().uint32(tag).bytes(bytes).finish();
  const resourceField = field(
    OTLP_TAG.first,
    type('Resource')
      .encode({ attributes: attributes({ ...DEFAULT_RESOURCE, ...resource }) })
      .finish(),
  );
  const scopeField = field(
    OTLP_TAG.first,
    type('InstrumentationScope').encode({ name: 'svc', version: VERSION }).finish(),
  );
  const prefix = (tag: number, length: number) => protobuf.Writer.create().uint32(tag).uint32(length).finish();
  return recordRequests(limit, (_preambles, records, bytes) => {
    const scopeLength = scopeField.length + bytes;
    const scopePrefix = prefix(OTLP_TAG.second, scopeLength);
    const resourcePrefix = prefix(OTLP_TAG.first, resourceField.length + scopePrefix.length + scopeLength);
    return Buffer.concat([resourcePrefix, resourceField, scopePrefix, scopeField, ...records]);
  });
}

/**
 * What an `Export` answer says: a partial success names how many of the request's records the
 * collector refused and why (shown through `redact`, which masks the sink's credentials); those
 * fail, the rest are delivered. A refusal of none (a warning only) is a success.
 */
export function partialRefusal(
  sink: string,
  signal: OtlpSignal,
  answer: Uint8Array,
  request: RecordRequest,
  redact: (answer: string) => string,
): PartialRefusal | undefined {
  if (answer.length === 0) return undefined;
  const { type } = otlpMessages();
  const { partialSuccess } = type('ExportResponse').toObject(type('ExportResponse').decode(answer), {
    longs: Number,
  }) as {
    partialSuccess?: { rejected?: number; errorMessage?: string };
  };
  const rejected = partialSuccess?.rejected ?? 0;
  if (rejected <= 0) return undefined;
  const why = partialSuccess?.errorMessage ? `: "${redact(partialSuccess.errorMessage)}"` : '';
  return {
    rejected,
    error: new SinkError(
      sink,
      `the collector refused ${rejected} of ${request.size} ${OTLP_SIGNALS[signal].units}${why}`,
    ),
  };
}
