import { oneOf, strict } from '../../language/combinators.js';
import { grpcEndpoint } from '../../language/fields.js';
import { otlpGrpcSink } from '../otlp-grpc.js';
import { defineSink } from './kind.js';
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
  fit: fitSignal,
});
