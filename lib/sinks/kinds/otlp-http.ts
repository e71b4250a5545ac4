import { oneOf, strict } from '../../language/combinators.js';
import { httpUrl } from '../../language/fields.js';
import { otlpHttpSink } from '../otlp-http.js';
import { defineSink } from './kind.js';
import { fitSignal, otlpFields, otlpOptions } from './otlp.js';

export const otlpHttpKind = defineSink({
  type: 'otlp_http',
  codec: strict(
    'otlp_http sink',
    {
      type: oneOf(['otlp_http']),
      url: httpUrl.describe("The collector's base address; /v1/metrics or /v1/logs is appended."),
    },
    otlpFields,
  ),
  create: (config, deps) => otlpHttpSink({ url: config.url, ...otlpOptions(config, deps) }),
  feature: 'otlp',
  carries: ['metrics', 'logs', 'traces'],
  encoders: ['otlp'],
  address: { field: 'url', network: true },
  fit: fitSignal,
});
