import * as t from 'io-ts';
import { Codec, boolean, invalidType, list, matching, nonEmptyString, oneOf, strict, string, stringWhere } from '../../language/combinators.js';
import { LABEL_KEY_PATTERN, countUpTo, hostPort, maxBufferAge, retry } from '../../language/fields.js';
import { MAX_CLIENT_ID_LENGTH, MAX_EVENTS_PER_SEND, MAX_TOPIC_LENGTH } from '../../language/limits.js';
import { show } from '../../language/problems.js';
import { splitHostPort } from '../../language/address.js';
import { retryPolicy } from '../retry.js';
import { brokerSink } from '../broker.js';
import { brokerWarnings } from '../broker-client.js';
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

/** Kafka's topic name rule: letters, digits, `.`, `_`, `-`, at most 249 characters, not `.` or `..`. */
const topic = stringWhere(
  (s) => s.length <= MAX_TOPIC_LENGTH && /^[a-zA-Z0-9._-]+$/.test(s) && s !== '.' && s !== '..',
  `a Kafka topic name (letters, digits, ".", "_" and "-", at most ${MAX_TOPIC_LENGTH} characters, not "." or "..")`,
);

const clientId = stringWhere((s) => s.length > 0 && s.length <= MAX_CLIENT_ID_LENGTH, `a string of 1 to ${MAX_CLIENT_ID_LENGTH} characters`);

export const brokerKind = defineSink({
  type: 'broker',
  aliases: ['kafka'],
  codec: strict(
    'broker sink',
    { type: oneOf(['broker']), brokers, topic },
    {
      sasl: strict('sasl', { mechanism: saslMechanism, username: string, password: string }),
      tls: strict('tls', { enabled: boolean }, { ca_cert: nonEmptyString }),
      acks: oneOf(['all', 'leader', 'none']),
      compression: oneOf(['none', 'gzip']),
      client_id: clientId,
      // `none`, or the label whose value keys each message (one series stays in one partition).
      key: matching(LABEL_KEY_PATTERN, 'none or a label name'),
      message_per: oneOf(['event', 'batch']),
      batch_size: countUpTo(MAX_EVENTS_PER_SEND),
      retry,
      max_buffer_age: maxBufferAge,
    },
  ),
  create: (config, deps) =>
    brokerSink({
      brokers: config.brokers,
      topic: config.topic,
      sasl: config.sasl,
      tls: config.tls && { enabled: config.tls.enabled, caCert: config.tls.ca_cert },
      acks: config.acks,
      compression: config.compression,
      clientId: config.client_id,
      keyLabel: config.key === 'none' ? undefined : config.key,
      messagePer: config.message_per,
      batchSize: config.batch_size,
      retry: retryPolicy(config.retry),
      maxAge: config.max_buffer_age,
      scheduler: deps.scheduler,
    }),
  feature: 'kafka',
  carries: ['metrics', 'logs'],
  address: { field: 'brokers', network: true },
  warnings: brokerWarnings,
});
