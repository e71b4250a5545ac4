import { oneOf, strict } from '../../config/combinators.js';
import { precision } from '../../config/codecs.js';
import { metricsText } from '../metrics-text.js';
import { defineEncoder } from './kind.js';

export const metricsTextKind = defineEncoder({
  type: 'metrics_text',
  codec: strict('metrics_text encoder', { type: oneOf(['metrics_text']) }, { precision }),
  carries: ['metrics'],
  metrics: (config, meta) => metricsText({ name: meta.name, precision: config.precision }),
});
