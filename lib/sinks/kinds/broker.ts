import * as t from 'io-ts';
import {
  Codec,
  boolean,
  invalidType,
  list,
  matching,
  filePath,
  oneOf,
  strict,
  string,
  stringWhere,
} from '../../language/combinators.js';
import { LABEL_KEY_PATTERN, countUpTo, hostPort, maxBufferAge, retry } from '../../language/fields.js';
import { MAX_CLIENT_ID_LENGTH, MAX_EVENTS_PER_SEND, MAX_TOPIC_LENGTH } from '../../language/limits.js';
import { show } from '../../language/problems.js';
import { HOST_PORT_FORM, splitHostPort } from '../../language/address.js';
import { retryPolicy } from '../core/retry.js';
import { brokerSink } from '../broker.js';
import { brokerWarnings } from '../broker-client.js';
import { defineSink } from './kind.js';

/** A list of `host:port`, or one string of them separated by commas. */
const brokerList = list(hostPort, { nonEmpty: true });
const brokers = new Codec<string[]>(
  'brokers',
  (u, c) => {
    if (Array.isArray(u)) return brokerList.validate(u, c);
    if (typeof u !== 'string') return invalidType(u, c, 'a list of host:port addresses or a comma-separated string');
    const addresses = u.split(',').map((s) => s.trim());
    const bad = addresses.find((a) => !splitHostPort(a));
    return bad === undefined
      ? t.success(addresses)
      : t.failure(
          u,
          c,
          `expected host:port addresses separated by commas, got ${show(bad)}${addresses.length > 1 ? ` in ${show(u)}` : ''}`,
        );
  },
  undefined,
  (child) => ({
    anyOf: [
      child(brokerList),
      // Spaces around each address are trimmed.
      { type: 'string', pattern: `^\\s*${HOST_PORT_FORM}(?:\\s*,\\s*${HOST_PORT_FORM})*\\s*$` },
    ],
  }),
);

/** Mechanisms are matched case-insensitively (Kafka writes them in capitals) and normalised to lower case. */
const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
const saslMechanism = new Codec<(typeof SASL_MECHANISMS)[number]>(
  'sasl mechanism',
  (u, c) => oneOf(SASL_MECHANISMS).validate(typeof u === 'string' ? u.toLowerCase() : u, c),
  'allowed: plain, scram-sha-256, scram-sha-512',
  () => ({ enum: SASL_MECHANISMS.flatMap((m) => [m, m.toUpperCase()]) }),
);

/** Kafka's topic name rule: letters, digits, `.`, `_`, `-`, at most 249 characters, not `.` or `..`. */
const TOPIC_PATTERN = '^[a-zA-Z0-9._-]+$';
const TOPIC = new RegExp(TOPIC_PATTERN);
const topic = stringWhere(
  (s) => s.length <= MAX_TOPIC_LENGTH && TOPIC.test(s) && s !== '.' && s !== '..',
  `a Kafka topic name (letters, digits, ".", "_" and "-", at most ${MAX_TOPIC_LENGTH} characters, not "." or "..")`,
  { pattern: TOPIC_PATTERN, maxLength: MAX_TOPIC_LENGTH, not: { enum: ['.', '..'] } },
);

const clientId = stringWhere(
  (s) => s.length > 0 && s.length <= MAX_CLIENT_ID_LENGTH,
  `a string of 1 to ${MAX_CLIENT_ID_LENGTH} characters`,
  { minLength: 1, maxLength: MAX_CLIENT_ID_LENGTH },
);

export const brokerKind = defineSink({
  type: 'broker',
  aliases: ['kafka'],
  codec: strict(
    'broker sink',
    {
      type: oneOf(['broker']),
      brokers: brokers.describe('The bootstrap brokers: a list of host:port, or one comma-separated string.'),
      topic: topic.describe('The topic written to; it must exist unless the cluster creates topics.'),
    },
    {
      sasl: strict('sasl', {
        mechanism: saslMechanism.describe('plain, scram-sha-256 or scram-sha-512 (any case).'),
        username: string.describe('The SASL user.'),
        password: string.describe('The SASL password; masked wherever svc shows it.'),
      }).describe('SASL authentication; svc warns when it goes without TLS.'),
      tls: strict(
        'tls',
        { enabled: boolean.describe('Connect over TLS.') },
        { ca_cert: filePath.describe("A PEM file of the CA to trust; default the system's.") },
      ).describe('TLS to the brokers.'),
      acks: oneOf(['all', 'leader', 'none']).describe('Which acknowledgements a send waits for; default all.'),
      compression: oneOf(['none', 'gzip']).describe('Compression of the message batches; default none.'),
      client_id: clientId.describe('The Kafka client id; default svc.'),
      // `none`, or the label whose value keys each message (one series stays in one partition).
      key: matching(LABEL_KEY_PATTERN, 'none or a label name').describe(
        'none (default), or the label whose value keys each message, so one series stays in one partition.',
      ),
      message_per: oneOf(['event', 'batch']).describe('One message per event (default), or one per encoded batch.'),
      batch_size: countUpTo(MAX_EVENTS_PER_SEND).describe('Events per send; default 1000.'),
      retry,
      max_buffer_age: maxBufferAge,
    },
  ),
  create: (config, deps) =>
    brokerSink({
      brokers: config.brokers,
      topic: config.topic,
      sasl: config.sasl,
      tls: config.tls && { enabled: config.tls.enabled, caCert: config.tls.ca_cert, realPath: deps.realPaths },
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
  carries: ['metrics', 'logs', 'traces'],
  address: { field: 'brokers', network: true },
  destination: (config) => `${config.brokers.join(',')} topic ${config.topic}`,
  warnings: brokerWarnings,
});
