import { oneOf, strict } from '../../language/combinators.js';
import { zipkinBodyOfRuns, zipkinJson } from '../zipkin-json.js';
import { defineEncoder } from './kind.js';

export const zipkinJsonKind = defineEncoder({
  type: 'zipkin_json',
  codec: strict('zipkin_json encoder', { type: oneOf(['zipkin_json']) }),
  carries: ['traces'],
  // zipkin2's Span.Builder turns a negative timestamp into 0, "unset".
  timesFrom1970: 'Zipkin reads a timestamp before 1970 as none',
  // An array per batch: a sink that cuts records (tcp, udp, broker, logstore) would split arrays.
  sinks: ['http_push', 'stdout', 'file'],
  traces: () => zipkinJson(),
  join: zipkinBodyOfRuns,
  wholeChunks: true,
});
