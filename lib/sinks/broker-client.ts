import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type * as Kafkajs from 'kafkajs';
import { hostOf } from '../language/address.js';
import { describeError, networkError, NO_ANSWER } from './core/errors.js';
import { SinkError } from './core/errors.js';
import { readRealFile } from '../real-file.js';
import { redactAnswer } from '../redact.js';

/** How the sink reaches the cluster: the fields of a `broker` sink that make the client. */
export interface BrokerConnection {
  readonly brokers: readonly string[];
  /** Default {@link DEFAULT_CLIENT_ID}. */
  readonly clientId?: string;
  readonly sasl?: {
    readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
    readonly username: string;
    readonly password: string;
  };
  /**
   * `caCert`: a PEM file of the authorities to trust instead of the system's; `realPath`: one the server checked below
   * its file root, read only if it still is ({@link readRealFile}).
   */
  readonly tls?: { readonly enabled: boolean; readonly caCert?: string; readonly realPath?: boolean };
}

export const DEFAULT_CLIENT_ID = 'svc';
/** A broker that does not accept the connection within this long (ms) counts as unreachable. */
export const CONNECTION_TIMEOUT = 5000;
/** A produce request unanswered after this long (ms) is a failed, retryable attempt (as for the HTTP sinks). */
export const REQUEST_TIMEOUT = 10_000;

/**
 * The kafkajs client configuration of a sink. kafkajs's own retries are off: the sink's `retry`
 * is the only retry policy, so it says exactly how long a batch is tried. Its logging is the sink's
 * producer's (lib/sinks/broker.ts), which keeps errors from kafkajs's log rather than printing them: every
 * failure reaches the sink as an error of its send. `ca_cert` is read here, when the sink first connects.
 */
export function kafkaConfig(
  connection: BrokerConnection,
  readFile: (path: string) => string = (path) =>
    connection.tls?.realPath ? readRealFile(path) : readFileSync(path, 'utf8'),
): Kafkajs.KafkaConfig {
  const { tls, sasl } = connection;
  return {
    clientId: connection.clientId ?? DEFAULT_CLIENT_ID,
    brokers: [...connection.brokers],
    ssl: tls?.enabled ? (tls.caCert === undefined ? true : { ca: [readCa(tls.caCert, readFile)] }) : false,
    ...(sasl && {
      sasl: { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as Kafkajs.SASLOptions,
    }),
    connectionTimeout: CONNECTION_TIMEOUT,
    requestTimeout: REQUEST_TIMEOUT,
    retry: { retries: 0 },
  };
}

function readCa(path: string, readFile: (path: string) => string): string {
  let pem: string;
  try {
    pem = readFile(path);
  } catch (cause) {
    throw new SinkError('broker', `cannot read tls.ca_cert ${path}: ${describeError(cause)}`, { cause });
  }
  const problem = caProblem(pem);
  if (problem)
    throw new SinkError(
      'broker',
      `tls.ca_cert ${path} ${problem}: give the PEM file of the authority that signed the brokers' certificates`,
    );
  return pem;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * What keeps `pem` from being a list of authorities to trust. Node's TLS skips what it cannot read without a word,
 * so a file without a certificate (a key, a DER file, an empty file) would trust nothing, and every handshake would
 * fail as if the brokers' certificate were the problem.
 */
function caProblem(pem: string): string | undefined {
  const certificates = pem.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0) return 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)';
  for (const [n, certificate] of certificates.entries()) {
    try {
      new X509Certificate(certificate);
    } catch (cause) {
      return `holds a certificate that cannot be read (certificate ${n + 1} of ${certificates.length}: ${describeError(cause)})`;
    }
  }
  return undefined;
}

/**
 * What is risky in a connection that works: SASL without TLS (spec: the credentials are sent in
 * plaintext unless `tls.enabled` is true; the service warns about this at startup).
 */
export function brokerWarnings(connection: BrokerConnection): string[] {
  if (!connection.sasl || connection.tls?.enabled) return [];
  const what =
    connection.sasl.mechanism === 'plain'
      ? 'the SASL password itself'
      : `the SASL user name (${connection.sasl.mechanism} sends no password)`;
  return [
    `broker sink: sasl without tls.enabled: ${what} and every message travel unencrypted to ${connection.brokers.join(',')}; set tls: {enabled: true} unless the network is trusted`,
  ];
}

/** A kafkajs error as it arrived, and what it wraps: an exhausted retrier carries the real one as its cause. */
interface KafkajsError extends Error {
  readonly type?: string;
  readonly retriable?: boolean;
  readonly broker?: string;
  readonly code?: string;
  readonly apiName?: string;
}

function rootOf(cause: unknown): KafkajsError {
  let error = cause as KafkajsError;
  while (
    (error.name === 'KafkaJSNumberOfRetriesExceeded' || error.name === 'KafkaJSNonRetriableError') &&
    error.cause instanceof Error
  )
    error = error.cause as KafkajsError;
  return error;
}

/** Node's codes for a certificate the client does not trust. */
const UNTRUSTED_CERTIFICATE = /CERT|SIGNATURE|ISSUER|ALTNAME/;

/** Where the failure happened: the sink's topic and brokers, and whether it speaks TLS. */
export interface ErrorContext {
  readonly topic: string;
  /** The brokers as messages name them. */
  readonly target: string;
  readonly tls: boolean;
  /** The broker that answered an error with this message, if known: kafkajs's Kafka errors do not say. */
  readonly answeredBy?: (message: string) => string | undefined;
  /** The topic took messages of this sink before: a missing topic was deleted, and may come back. */
  readonly written?: boolean;
  /** The credentials the sink sends (its SASL password, see sentSecrets), masked where a broker's message repeats them. */
  readonly secrets?: readonly string[];
  /** What a message holds (`message_per`), which decides what to do about messages too large; default event. */
  readonly messagePer?: 'event' | 'batch';
  /** The SASL user the sink authenticates as (`sasl.username`); absent: it sends no credentials. */
  readonly user?: string;
  /** The messages carry a key (`key` names a label). */
  readonly keyed?: boolean;
}

/** Kafka's current names of the errors kafkajs still calls by an older one (KIP-392 renamed code 6). */
const KAFKA_NAMES: Readonly<Record<string, string>> = { NOT_LEADER_FOR_PARTITION: 'NOT_LEADER_OR_FOLLOWER' };

/**
 * A failure of the producer in words, with what to do: a topic missing from the start, refused credentials or
 * authorisation, a listener without SASL and oversized messages are final; connection failures,
 * timeouts and the errors Kafka marks retriable (no leader yet, not the leader) are retried under
 * `retry`.
 */
export function brokerError(
  cause: unknown,
  { topic, target, tls, answeredBy, written, secrets = [], messagePer = 'event', user, keyed }: ErrorContext,
): SinkError {
  if (cause instanceof SinkError) return cause;
  const error = rootOf(cause);
  const said = redactAnswer(error.message, secrets);
  const answerer = error.broker ?? answeredBy?.(error.message);
  const broker = answerer ?? target;
  const final = (detail: string) => new SinkError('broker', detail, { cause });
  const saslRefused = () =>
    final(`${target} refused the SASL authentication (${said}): check sasl.mechanism, sasl.username and sasl.password`);
  switch (error.type) {
    case 'UNKNOWN_TOPIC_OR_PARTITION':
      // Deleted mid-run: retried, as a cluster that creates topics automatically makes it again when asked.
      if (written)
        return new SinkError(
          'broker',
          `topic "${topic}" no longer exists on ${target} (UnknownTopicOrPartition): was it deleted? ` +
            `create it again (kafka-topics.sh --create --topic ${topic})`,
          { cause, retryable: true },
        );
      return final(
        `topic "${topic}" does not exist on ${target} (UnknownTopicOrPartition) and the cluster does not create topics automatically: ` +
          `create it (kafka-topics.sh --create --topic ${topic}), or enable auto.create.topics.enable on the brokers`,
      );
    case 'TOPIC_AUTHORIZATION_FAILED':
      // The brokers' default principal builder names the client User:<SASL user name>, or User:ANONYMOUS without
      // SASL. The user name is no secret (docs/secrets.md: --dry-run shows it too), so the principal is named whole.
      return final(
        `not allowed to write to topic "${topic}" (TopicAuthorizationFailed): ` +
          (user === undefined
            ? 'the sink sends no credentials (no sasl), so the brokers see it as User:ANONYMOUS: set sasl, or grant User:ANONYMOUS Write on the topic'
            : `grant User:${user} (the principal of sasl.username) Write on the topic`),
      );
    case 'SASL_AUTHENTICATION_FAILED':
    case 'UNSUPPORTED_SASL_MECHANISM':
    case 'ILLEGAL_SASL_STATE':
      return saslRefused();
    case 'INVALID_RECORD':
      // What a producer of well-formed records meets (Kafka 2.4+; CORRUPT_MESSAGE before): a compacted topic's refusal of a message without a key.
      return final(
        `${broker} refused the messages as invalid (INVALID_RECORD: ${said}): a compacted topic (cleanup.policy=compact) takes only messages with a key: ` +
          (keyed ? 'does every event carry the label of sink.key?' : 'set sink.key to a label of the entry'),
      );
    case 'INVALID_TIMESTAMP':
      // Kafka checks CreateTime against its own clock: the entry clock's time, shifted by start_time or a backfill.
      return final(
        `${broker} refused the messages' timestamps (INVALID_TIMESTAMP: ${said}): each message carries its event's time (the entry's clock: start_time, --backfill), ` +
          'and the topic takes only times within its message.timestamp.before.max.ms and message.timestamp.after.max.ms of now ' +
          '(message.timestamp.difference.max.ms before Kafka 3.6): a start_time nearer now, or raise those limits',
      );
    case 'MESSAGE_TOO_LARGE':
    case 'RECORD_LIST_TOO_LARGE':
      // A message per event already: one event, or a send's record batch, is over the topic's limit.
      return final(
        messagePer === 'batch'
          ? `${broker} refused messages this large (${said}): lower batch_size, or send a message per event (message_per: event)`
          : `${broker} refused messages this large (${said}): an event, or a send of batch_size events, is over the topic's max.message.bytes (the brokers' message.max.bytes, 1 MiB by default): lower batch_size, or raise that limit`,
      );
    default:
      break;
  }
  if (error.name === 'KafkaJSSASLAuthenticationError') return saslRefused();
  if (error.name === 'KafkaJSServerDoesNotSupportApiKey' && error.apiName?.startsWith('Sasl')) {
    return final(
      `${target} does not offer SASL on this listener (no ${error.apiName}): remove sasl, or give the address of the brokers' SASL listener`,
    );
  }
  if (error.name === 'KafkaJSConnectionError' || error.name === 'KafkaJSConnectionClosedError') {
    if (error.code && UNTRUSTED_CERTIFICATE.test(error.code)) {
      return final(
        `the certificate of ${broker} is not trusted (${said}): set tls.ca_cert to the PEM file of the authority that signed it`,
      );
    }
    // A listener of the other kind (TLS or not) drops the connection at its first bytes.
    const kind = tls
      ? 'tls.enabled is true: is it a TLS listener?'
      : 'if it is a TLS listener, set tls: {enabled: true}';
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || !error.code) {
      return new SinkError('broker', `${broker} dropped the connection (${said}): did it restart? ${kind}`, {
        cause,
        retryable: true,
      });
    }
    return networkError('broker', broker, hostOf(broker), error);
  }
  if (error.name === 'KafkaJSRequestTimeoutError')
    return networkError('broker', broker, hostOf(broker), error, { code: NO_ANSWER, timeout: REQUEST_TIMEOUT });
  const detail = error.type
    ? `${answerer ?? `a broker of ${target}`} answered ${KAFKA_NAMES[error.type] ?? error.type} (${said})`
    : `${target}: ${said}`;
  return new SinkError('broker', `cannot send to topic "${topic}": ${detail}`, {
    cause,
    retryable: error.retriable !== false,
  });
}
