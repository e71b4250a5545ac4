import { oneOf, strict } from '../../language/combinators.js';
import { otlpLogs, otlpMetrics } from '../otlp.js';
import { otlpTraces } from '../otlp-traces.js';
import { defineEncoder } from './kind.js';

export const otlpKind = defineEncoder({
  type: 'otlp',
  codec: strict('otlp encoder', { type: oneOf(['otlp']) }),
  feature: 'otlp',
  carries: ['metrics', 'logs', 'traces'],
  sinks: ['otlp_grpc', 'otlp_http'],
  metrics: (_config, meta) => otlpMetrics(meta),
  logs: () => otlpLogs(),
  traces: () => otlpTraces(),
});
