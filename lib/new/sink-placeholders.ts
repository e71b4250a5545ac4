/**
 * Sinks with placeholder values in the fields their kind requires, so that a scenario `svc new`
 * writes validates before its sink is pointed at a real destination.
 */
import type { SignalType } from '../language/types.js';
import { ConfigError, issuesOf } from '../language/problems.js';
import { sinkKindOf } from '../sinks/kinds/index.js';

/**
 * Placeholders of the sink fields a sink kind requires, by field name: the registry tells which
 * fields a kind requires (its codec) and which one is its address, not a value that validates.
 */
const PLACEHOLDERS: Record<string, (signal: SignalType, sinkType: string) => unknown> = {
  path: (signal) => `/tmp/svc-${signal}.out`,
  address: () => '127.0.0.1:9000',
  url: (_, sinkType) => URLS[sinkType] ?? 'http://127.0.0.1:8080/ingest',
  endpoint: () => '127.0.0.1:4317',
  brokers: () => ['127.0.0.1:9092'],
  topic: (signal) => `svc-${signal}`,
};

/** The URL of the usual local server of sinks that speak a protocol. */
const URLS: Record<string, string> = {
  remote_write: 'http://127.0.0.1:9090/api/v1/write',
  logstore: 'http://127.0.0.1:3100',
  otlp_http: 'http://127.0.0.1:4318',
};

/**
 * `{type: sinkType}` with a placeholder in every field the sink kind requires: the kind's codec says which,
 * {@link PLACEHOLDERS} what.
 */
export function placeholderSink(signal: SignalType, sinkType: string): { type: string } & Record<string, unknown> {
  const decoded = sinkKindOf(sinkType)!.codec.decode({ type: sinkType });
  if (decoded._tag === 'Right') return { type: sinkType };
  const missing = issuesOf(decoded.left)
    .filter((issue) => issue.path.length === 1 && /missing required field/.test(issue.message))
    .map((issue) => String(issue.path[0]));
  const fields = missing.map((field) => {
    const placeholder = PLACEHOLDERS[field];
    if (!placeholder)
      throw new ConfigError('invalid', 'svc new', [
        {
          path: `sink.${field}`,
          message: `svc new has no placeholder for the ${sinkType} sink's ${field}: write the sink in the file`,
        },
      ]);
    return [field, placeholder(signal, sinkType)];
  });
  return { type: sinkType, ...Object.fromEntries(fields) };
}
