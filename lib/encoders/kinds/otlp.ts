import { oneOf, strict } from '../../language/combinators.js';
import { defineEncoder } from './kind.js';

export const otlpKind = defineEncoder({
  type: 'otlp',
  codec: strict('otlp encoder', { type: oneOf(['otlp']) }),
  feature: 'otlp',
  carries: ['metrics', 'logs'],
  sink: 'otlp_grpc',
});
