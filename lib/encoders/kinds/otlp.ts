import { oneOf, strict } from '../../language/combinators.js';
import { otlpLogs, otlpMetrics } from '../otlp.js';
import { otlpTraces } from '../otlp-traces.js';
import { defineEncoder } from './kind.js';

export const otlpKind = defineEncoder({
  type: 'otlp',
  codec: strict(
    'otlp encoder',
    { type: oneOf(['otlp']) },
    {
      temporality: oneOf(['cumulative', 'delta']).describe(
        "Of counters' and histograms' points: cumulative (totals since the entry start, default) or delta (the change " +
          "since the series' previous point). Gauges and summaries have none.",
      ),
    },
  ),
  feature: 'otlp',
  carries: ['metrics', 'logs', 'traces'],
  sinks: ['otlp_grpc', 'otlp_http'],
  nativeHistograms: true,
  timesFrom1970: "OTLP's times are unsigned nanoseconds since 1970",
  metrics: (config, meta) => otlpMetrics({ ...meta, temporality: config.temporality }),
  logs: () => otlpLogs(),
  traces: () => otlpTraces(),
});
