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
    {
      retry,
      framing: oneOf(['lf', 'octet_counting']).describe(
        'lf: one record per line (default); octet_counting: each record after its length in bytes (RFC 6587, syslog over TCP).',
      ),
    },
  ),
  create: (config, deps) =>
    tcpSink({
      address: config.address,
      retry: retryPolicy(config.retry),
      framing: config.framing,
      scheduler: deps.scheduler,
    }),
  carries: ['metrics', 'logs', 'traces'],
  address: { field: 'address', network: true },
});
