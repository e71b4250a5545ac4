import { oneOf, strict } from '../../language/combinators.js';
import { stdoutSink } from '../stdout.js';
import { defineSink } from './kind.js';

export const stdoutKind = defineSink({
  type: 'stdout',
  codec: strict('stdout sink', { type: oneOf(['stdout']) }),
  create: (_config, deps) => stdoutSink({ stream: deps.stdout, trailer: deps.trailer }),
  carries: ['metrics', 'logs', 'traces'],
});
