import { oneOf, strict } from '../../language/combinators.js';
import { zipkinJson } from '../zipkin-json.js';
import { defineEncoder } from './kind.js';

export const zipkinJsonKind = defineEncoder({
  type: 'zipkin_json',
  codec: strict('zipkin_json encoder', { type: oneOf(['zipkin_json']) }),
  carries: ['traces'],
  traces: () => zipkinJson(),
});
