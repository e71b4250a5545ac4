import { oneOf, strict } from '../../language/combinators.js';
import { hostPort, retry } from '../../language/fields.js';
import { retryPolicy } from '../core/retry.js';
import { tcpSink } from '../tcp.js';
import { defineSink } from './kind.js';

export const tcpKind = defineSink({
  type: 'tcp',
  codec: strict(
    'tcp sink',
    { type: oneOf(['tcp']), address: hostPort.describe('host:port of the receiver; one event per line.') },
    { retry },
  ),
  create: (config, deps) =>
    tcpSink({ address: config.address, retry: retryPolicy(config.retry), scheduler: deps.scheduler }),
  carries: ['metrics', 'logs', 'traces'],
  address: { field: 'address', network: true },
});
