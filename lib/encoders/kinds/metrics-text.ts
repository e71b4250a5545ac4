import { oneOf, strict } from '../../language/combinators.js';
import { precision } from '../../language/fields.js';
import { metricsText } from '../metrics-text.js';
import { defineEncoder } from './kind.js';

export const metricsTextKind = defineEncoder({
  type: 'metrics_text',
  aliases: ['prometheus_text'],
  codec: strict('metrics_text encoder', { type: oneOf(['metrics_text']) }, { precision }),
  carries: ['metrics'],
  metrics: (config, meta) => metricsText({ name: meta.name, precision: config.precision }),
});
