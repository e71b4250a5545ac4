import { oneOf, strict } from '../../language/combinators.js';
import { batchSize, familyOf, grpcEndpoint, headers } from '../../language/fields.js';
import { show } from '../../language/problems.js';
import { defineSink } from './kind.js';

export const otlpGrpcKind = defineSink({
  type: 'otlp_grpc',
  // signal_type may be left out: the entry's signal decides it (`fit`).
  codec: strict(
    'otlp_grpc sink',
    { type: oneOf(['otlp_grpc']), endpoint: grpcEndpoint },
    { signal_type: oneOf(['metrics', 'logs']), batch_size: batchSize, headers },
  ),
  feature: 'otlp',
  carries: ['metrics', 'logs'],
  encoders: ['otlp'],
  address: { field: 'endpoint', network: true },
  fit: (config, signal) => {
    const family = familyOf(signal);
    if (config.signal_type === undefined) return { ...config, signal_type: family };
    return config.signal_type === family ? config : { path: ['signal_type'], message: `expected ${family} for a ${signal} entry, got ${show(config.signal_type)}` };
  },
});
