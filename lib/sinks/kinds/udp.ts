import { oneOf, strict } from '../../language/combinators.js';
import { hostPort } from '../../language/fields.js';
import { udpSink } from '../udp.js';
import { defineSink } from './kind.js';

export const udpKind = defineSink({
  type: 'udp',
  codec: strict('udp sink', {
    type: oneOf(['udp']),
    address: hostPort.describe('host:port of the receiver; one datagram per event.'),
  }),
  create: (config) => udpSink({ address: config.address }),
  carries: ['metrics', 'logs', 'traces'],
  address: { field: 'address', network: true },
});
