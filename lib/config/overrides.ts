/**
 * CLI flags that override file values. They are written into each raw entry before validation,
 * so a bad override gets the same message as the same mistake in the file.
 */
import { isMapping, type Issue } from './problems.js';

export interface CliOverrides {
  readonly rate?: number;
  readonly duration?: string;
  /** Sink type; a different type replaces the entry's sink, the same type keeps its other fields. */
  readonly sink?: string;
  /** The sink's address field (see ADDRESS_FIELDS); alone, it re-addresses the entry's own sink. */
  readonly endpoint?: string;
  /** Encoder type; a different type replaces the entry's encoder, the same type keeps its fields. */
  readonly encoder?: string;
  /** Merged key by key over the entry's labels; the override wins. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly on_sink_error?: string;
}

/** The field that holds each sink type's destination. */
export const ADDRESS_FIELDS: Readonly<Record<string, string>> = {
  file: 'path',
  tcp: 'address',
  udp: 'address',
  http_push: 'url',
  logstore: 'url',
  remote_write: 'url',
  otlp_grpc: 'endpoint',
  broker: 'brokers',
};

export interface Overridden {
  readonly raw: Record<string, unknown>;
  /** Entry fields whose value the overrides changed. */
  readonly fields: readonly string[];
  readonly issues: readonly Issue[];
}

export function applyOverrides(entry: Record<string, unknown>, overrides: CliOverrides): Overridden {
  const raw = { ...entry };
  const issues: Issue[] = [];
  if (overrides.rate !== undefined) raw.rate = overrides.rate;
  if (overrides.duration !== undefined) raw.duration = overrides.duration;
  if (overrides.on_sink_error !== undefined) raw.on_sink_error = overrides.on_sink_error;
  // A malformed `labels` stays as written, so that its own error is reported.
  if (overrides.labels !== undefined && (isMapping(raw.labels) || !Object.hasOwn(raw, 'labels'))) {
    raw.labels = { ...(raw.labels as Record<string, unknown> | undefined), ...overrides.labels };
  }
  if (overrides.encoder !== undefined) {
    raw.encoder = isMapping(raw.encoder) && raw.encoder.type === overrides.encoder ? raw.encoder : { type: overrides.encoder };
  }
  if (overrides.sink !== undefined || overrides.endpoint !== undefined) {
    const current = isMapping(raw.sink) ? raw.sink : { type: 'stdout' };
    const sink: Record<string, unknown> = overrides.sink === undefined || overrides.sink === current.type ? { ...current } : { type: overrides.sink };
    if (overrides.endpoint !== undefined) {
      const field = typeof sink.type === 'string' && Object.hasOwn(ADDRESS_FIELDS, sink.type) ? ADDRESS_FIELDS[sink.type] : undefined;
      if (field) sink[field] = overrides.endpoint;
      // An unknown sink type is reported by validation; stdout is known and has no address.
      else if (sink.type === 'stdout') {
        issues.push({ path: ['sink'], message: `the endpoint override needs a sink with an address (${Object.keys(ADDRESS_FIELDS).join(', ')}), got stdout` });
      }
    }
    raw.sink = sink;
  }
  const fields = Object.keys(raw).filter((key) => raw[key] !== entry[key]);
  return { raw, fields, issues };
}
