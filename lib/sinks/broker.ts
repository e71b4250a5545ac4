import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type * as Kafkajs from 'kafkajs';
import { featurePackage } from '../features.js';
import { batchingSink, type BatchSettings } from './core/batching-sink.js';
import {
  brokerError,
  kafkaConfig,
  REQUEST_TIMEOUT,
  type BrokerConnection,
  type ErrorContext,
} from './broker-client.js';
import { produceRequests, type BrokerMessage, type ProduceRequest } from './framing/broker-messages.js';
import { DEFAULT_RETRY } from './core/retry.js';
import { sentSecrets } from '../redact.js';
import type { Sink } from '../../operators/deliver.js';

export interface BrokerSinkOptions extends BrokerConnection, BatchSettings {
  readonly topic: string;
  /** Acknowledgement the producer waits for: every in-sync replica (default), the leader, or none. */
  readonly acks?: 'all' | 'leader' | 'none';
  readonly compression?: 'none' | 'gzip';
  /** The label whose value keys each message; absent: no key. */
  readonly keyLabel?: string;
  /** One Kafka message per event (default), or per batch. */
  readonly messagePer?: 'event' | 'batch';
}

/**
 * A send carries up to 1,000 events and 5 s of waiting (design §4: the protocol sinks' 5 s), and
 * at most 1,000,000 bytes of message values, so that no message or record batch exceeds the
 * brokers' default `message.max.bytes` (1 MiB).
 */
export const BROKER_DEFAULTS = { batchSize: 1000, maxAge: 5000, maxSendBytes: 1_000_000 } as const;

const ACKS = { all: -1, leader: 1, none: 0 } as const;

/**
 * Sink for Kafka (kafkajs, build feature `kafka`): a batching sink whose sends are
 * `producer.send`s of the buffered events as messages (see {@link produceRequests}) to `topic`,
 * with the record timestamps of the entry's clock. A send is delivered when the brokers
 * acknowledged it as `acks` asks; connection failures, timeouts, retriable Kafka errors and a topic
 * deleted after it took messages are retried under `retry`; a topic missing from the first send on,
 * refused credentials and oversized messages are final. The producer connects on the first send and disconnects when the sink closes, after its flush; a flush
 * that runs out of time cuts its connections, so the close does not wait for the answers.
 */
export function brokerSink(options: BrokerSinkOptions): Sink {
  const kafkajs = featurePackage<typeof Kafkajs>('kafka', 'kafkajs');
  const target = options.brokers.join(',');
  const batchSize = options.batchSize ?? BROKER_DEFAULTS.batchSize;
  const producer = new Producer(kafkajs, options, {
    topic: options.topic,
    target,
    tls: options.tls?.enabled ?? false,
    secrets: sentSecrets({}, undefined, options.sasl ? [options.sasl.password] : []),
  });
  return batchingSink<ProduceRequest>(
    {
      prepare: produceRequests({
        messagePer: options.messagePer ?? 'event',
        keyLabel: options.keyLabel,
        batchSize,
        maxBytes: BROKER_DEFAULTS.maxSendBytes,
      }),
      send: (request) => producer.send(request.messages),
      abort: () => producer.abort(),
      release: () => producer.disconnect(),
    },
    {
      name: 'broker',
      target: `${target} (topic ${options.topic})`,
      batchSize,
      batchUnit: 'events',
      maxAge: options.maxAge ?? BROKER_DEFAULTS.maxAge,
      retry: options.retry ?? DEFAULT_RETRY,
      flushTimeout: options.flushTimeout,
      scheduler: options.scheduler,
      random: options.random,
    },
  );
}

/**
 * A kafkajs producer, connected on first use and again after a failed connection. Each connection
 * tries one bootstrap broker (kafkajs's retries are off) and a new client starts at the first in
 * its list, so after a failed connection the list turns by one: the next tries the next broker.
 */
class Producer {
  private producer: Kafkajs.Producer | undefined;
  private connecting: Promise<Kafkajs.Producer> | undefined;
  private readonly record: Omit<Kafkajs.ProducerRecord, 'messages'>;
  private brokers: readonly string[];
  /** The producer's open connections, which {@link abort} cuts. */
  private readonly sockets = new Set<Socket>();
  /** The last error answer of a broker, as kafkajs logs it: its Kafka errors do not name the broker. */
  private lastAnswer: { readonly broker: string; readonly error: string } | undefined;
  private readonly answeredBy = (message: string) =>
    this.lastAnswer?.error === message ? this.lastAnswer.broker : undefined;
  /** A send was acknowledged: the topic existed. */
  private written = false;

  constructor(
    private readonly kafkajs: typeof Kafkajs,
    private readonly options: BrokerSinkOptions,
    private readonly context: ErrorContext,
  ) {
    this.brokers = options.brokers;
    this.record = {
      topic: options.topic,
      acks: ACKS[options.acks ?? 'all'],
      compression: options.compression === 'gzip' ? kafkajs.CompressionTypes.GZIP : kafkajs.CompressionTypes.None,
      timeout: REQUEST_TIMEOUT,
    };
  }

  async send(messages: BrokerMessage[]): Promise<void> {
    const producer = await this.connect();
    try {
      await producer.send({ ...this.record, messages });
      this.written = true;
    } catch (cause) {
      throw brokerError(cause, { ...this.context, answeredBy: this.answeredBy, written: this.written });
    }
  }

  /**
   * Cuts every connection (a flush ran out of time): kafkajs fails the requests in flight at once, where its
   * disconnect would wait for their answers, up to its request timeout. It connects again on the next send.
   */
  abort(): void {
    for (const socket of this.sockets) socket.destroy(new Error('the flush ran out of time'));
  }

  async disconnect(): Promise<void> {
    const producer = this.producer;
    this.producer = this.connecting = undefined;
    // Closing sockets cannot lose data: every send has settled when the sink releases.
    await producer?.disconnect().catch(() => undefined);
  }

  private connect(): Promise<Kafkajs.Producer> {
    this.connecting ??= this.open().catch(async (cause: unknown) => {
      await this.disconnect();
      this.brokers = [...this.brokers.slice(1), ...this.brokers.slice(0, 1)];
      throw brokerError(cause, { ...this.context, answeredBy: this.answeredBy });
    });
    return this.connecting;
  }

  private async open(): Promise<Kafkajs.Producer> {
    const kafka = new this.kafkajs.Kafka({
      ...kafkaConfig({ ...this.options, brokers: this.brokers }),
      socketFactory: this.openSocket,
      // Errors only, and kept rather than printed: the connection's log of an error answer names its broker.
      logLevel: this.kafkajs.logLevel.ERROR,
      logCreator: () => this.noteAnswer,
    });
    // Java's partitioner (murmur2 of the key): a key lands where Java clients put it.
    this.producer = kafka.producer({
      createPartitioner: this.kafkajs.Partitioners.DefaultPartitioner,
      retry: { retries: 0 },
    });
    await this.producer.connect();
    return this.producer;
  }

  private readonly noteAnswer = ({ namespace, log }: Kafkajs.LogEntry): void => {
    if (namespace === 'Connection' && typeof log.broker === 'string' && typeof log.error === 'string')
      this.lastAnswer = { broker: log.broker, error: log.error };
  };

  /** kafkajs's own socket factory (TLS naming the host it verifies, keep-alive after a minute), keeping the socket. */
  private readonly openSocket: Kafkajs.ISocketFactory = ({ host, port, ssl, onConnect }) => {
    const socket = ssl
      ? tlsConnect({ host, port, ...(!isIP(host) && { servername: host }), ...ssl }, onConnect)
      : netConnect({ host, port }, onConnect);
    socket.setKeepAlive(true, 60_000);
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  };
}
