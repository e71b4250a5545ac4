import { nonEmptyString, oneOf, record, string } from '../../language/combinators.js';
import { countUpTo, familyOf, headers, maxBufferAge, retry, type RetryConfig } from '../../language/fields.js';
import { MAX_RECORDS_PER_REQUEST } from '../../language/limits.js';
import { show } from '../../language/problems.js';
import type { SignalType } from '../../language/types.js';
import { retryPolicy } from '../core/retry.js';
import type { SinkDeps, SinkIssue } from './kind.js';

/** The optional fields the OTLP sinks share (otlp_grpc, otlp_http). */
export const otlpFields = {
  signal_type: oneOf(['metrics', 'logs', 'traces']).describe(
    "What the requests carry; default the entry's (histograms and summaries are metrics), and it must match.",
  ),
  batch_size: countUpTo(MAX_RECORDS_PER_REQUEST).describe(
    'Data points, log records or spans per request; default 1000.',
  ),
  headers,
  compression: oneOf(['none', 'gzip']).describe('Compression of the requests; default none.'),
  resource: record(nonEmptyString, string).describe(
    "Resource attributes of every request (service.name, …); not for traces nor span metrics, whose services' resources trace_generator sets.",
  ),
  retry,
  max_buffer_age: maxBufferAge,
};

interface OtlpConfig {
  readonly signal_type?: 'metrics' | 'logs' | 'traces';
  readonly batch_size?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly compression?: 'none' | 'gzip';
  readonly resource?: Readonly<Record<string, string>>;
  readonly retry?: RetryConfig;
  readonly max_buffer_age?: number;
}

/** `signal_type` left out takes the entry's family; one that differs is an error on the field. */
export function fitSignal<C extends OtlpConfig>(config: C, signal: SignalType): C | SinkIssue {
  const family = familyOf(signal);
  if (family === 'traces' && config.resource !== undefined)
    return {
      path: ['resource'],
      message: "not allowed for traces: each service's resource comes from trace_generator.services",
    };
  if (config.signal_type === undefined) return { ...config, signal_type: family };
  return config.signal_type === family
    ? config
    : { path: ['signal_type'], message: `expected ${family} for a ${signal} entry, got ${show(config.signal_type)}` };
}

/** Those fields as the OTLP sinks take them (`signal_type` was fitted to the entry). */
export function otlpOptions(config: OtlpConfig, deps: SinkDeps) {
  return {
    signal: config.signal_type ?? 'metrics',
    batchSize: config.batch_size,
    headers: config.headers,
    compression: config.compression,
    resource: config.resource,
    retry: retryPolicy(config.retry),
    maxAge: config.max_buffer_age,
    scheduler: deps.scheduler,
  };
}
