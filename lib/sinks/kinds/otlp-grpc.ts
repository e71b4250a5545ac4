import { oneOf, strict } from '../../language/combinators.js';
import { grpcEndpoint } from '../../language/fields.js';
import { grpcEndpointWarnings, otlpGrpcSink } from '../otlp-grpc.js';
import { show } from '../../language/problems.js';
import { defineSink, type SinkIssue } from './kind.js';
import { fitSignal, otlpFields, otlpOptions } from './otlp.js';

export const otlpGrpcKind = defineSink({
  type: 'otlp_grpc',
  // signal_type may be left out: the entry's signal decides it (`fit`).
  codec: strict(
    'otlp_grpc sink',
    {
      type: oneOf(['otlp_grpc']),
      endpoint: grpcEndpoint.describe(
        "The collector's gRPC address: host:port (plaintext) or an http:// or https:// URL.",
      ),
    },
    otlpFields,
  ),
  create: (config, deps) => otlpGrpcSink({ endpoint: config.endpoint, ...otlpOptions(config, deps) }),
  feature: 'otlp',
  carries: ['metrics', 'logs', 'traces'],
  encoders: ['otlp'],
  address: { field: 'endpoint', network: true },
  warnings: (config) => grpcEndpointWarnings(config.endpoint),
  fit: (config, signal) => metadataIssue(config.headers) ?? fitSignal(config, signal),
});

/**
 * HTTP/1 connection headers, which HTTP/2 forbids (RFC 9113 8.2.2): grpc-js takes them as metadata, and Node's
 * HTTP/2 then refuses every call's headers, which the call only says by passing its deadline.
 */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/**
 * A header gRPC cannot carry as metadata, by grpc-js's rules (its keys are lower case: svc lowercases them): a
 * name of other characters than letters, digits, `_`, `.` and `-`, an HTTP/1 connection header, or a value that is
 * not printable ASCII unless its name ends with `-bin` (bytes). Found at load, not by the first call (which would
 * hang to its deadline); the value is never shown (a secret).
 */
function metadataIssue(headers: Readonly<Record<string, string>> | undefined): SinkIssue | undefined {
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!/^[0-9a-z_.-]+$/i.test(name))
      return {
        path: ['headers', name],
        message: `expected a gRPC metadata name (letters, digits, _ . -), got ${show(name)}`,
      };
    if (CONNECTION_HEADERS.has(name.toLowerCase()))
      return {
        path: ['headers', name],
        message: `${show(name)} is an HTTP/1 connection header, which HTTP/2 (gRPC) forbids: remove it`,
      };
    if (!/-bin$/i.test(name) && !/^[ -~]*$/.test(value))
      return {
        path: ['headers', name],
        message:
          'expected printable ASCII, which gRPC metadata carries (a value of other bytes needs a name ending in -bin)',
      };
  }
  return undefined;
}
