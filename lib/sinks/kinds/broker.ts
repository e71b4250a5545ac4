import * as t from 'io-ts';
import { Codec, boolean, invalidType, list, nonEmptyString, oneOf, strict, string } from '../../language/combinators.js';
import { hostPort } from '../../language/fields.js';
import { show } from '../../language/problems.js';
import { splitHostPort } from '../../language/address.js';
import { defineSink } from './kind.js';

/** A list of `host:port`, or one string of them separated by commas. */
const brokers = new Codec<string[]>('brokers', (u, c) => {
  if (Array.isArray(u)) return list(hostPort, { nonEmpty: true }).validate(u, c);
  if (typeof u !== 'string') return invalidType(u, c, 'a list of host:port addresses or a comma-separated string');
  const addresses = u.split(',').map((s) => s.trim());
  const bad = addresses.find((a) => !splitHostPort(a));
  return bad === undefined ? t.success(addresses) : t.failure(u, c, `expected host:port addresses separated by commas, got ${show(bad)} in ${show(u)}`);
});

/** Mechanisms are matched case-insensitively (Kafka writes them in capitals) and normalised to lower case. */
const saslMechanism = new Codec<'plain' | 'scram-sha-256' | 'scram-sha-512'>(
  'sasl mechanism',
  (u, c) => oneOf(['plain', 'scram-sha-256', 'scram-sha-512']).validate(typeof u === 'string' ? u.toLowerCase() : u, c),
  'allowed: plain, scram-sha-256, scram-sha-512',
);

export const brokerKind = defineSink({
  type: 'broker',
  codec: strict(
    'broker sink',
    { type: oneOf(['broker']), brokers, topic: nonEmptyString },
    {
      sasl: strict('sasl', { mechanism: saslMechanism, username: string, password: string }),
      tls: strict('tls', { enabled: boolean }, { ca_cert: nonEmptyString }),
    },
  ),
  feature: 'kafka',
  carries: ['metrics', 'logs'],
  address: { field: 'brokers', network: true },
});
