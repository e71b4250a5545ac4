import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type * as Kafkajs from 'kafkajs';
import { featurePackage } from '../features.js';
import { batchingSink, type BatchSettings, type Stored } from './core/batching-sink.js';
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
 * at most 1,000,000 bytes of records (values, keys and each record's framing), so that no message
 * or record batch exceeds the brokers' default `message.max.bytes` (1 MiB).
 */
export const BROKER_DEFAULTS = { batchSize: 1000, maxAge: 5000, maxSendBytes: 1_000_000 } as const;

const ACKS = { all: -1, leader: 1, none: 0 } as const;

/**
 * Sink for Kafka (kafkajs, build feature `kafka`): a batching sink whose sends are
 * `producer.send`s of the buffered events as messages (see {@link produceRequests}) to `topic`,
 * with the record timestamps of the entry's clock, one `producer.send` per leader broker (see {@link Producer.send}).
 * A send is delivered when the brokers
 * acknowledged it as `acks` asks; connection failures, timeouts, retriable Kafka errors and a topic
 * deleted after it took messages are retried under `retry`; a topic missing from the first send on,
 * refused credentials and oversized messages are final. The producer connects on the first send and disconnects when the sink closes, after its flush; a flush
 * that runs out of time cuts its connections, so the close does not wait for the answers.
 */
export function brokerSink(options: BrokerSinkOptions): Sink {
  const kafkajs = featurePackage<typeof Kafkajs>('kafka', 'kafkajs');
  const target = options.brokers.join(',');
  const batchSize = options.batchSize ?? BROKER_DEFAULTS.batchSize;
  const messagePer = options.messagePer ?? 'event';
  const producer = new Producer(kafkajs, options, {
    topic: options.topic,
    target,
    tls: options.tls?.enabled ?? false,
    secrets: sentSecrets({}, undefined, options.sasl ? [options.sasl.password] : []),
    messagePer,
    user: options.sasl?.username,
    keyed: options.keyLabel !== undefined,
  });
  return batchingSink<ProduceRequest>(
    {
      prepare: produceRequests({
        messagePer,
        keyLabel: options.keyLabel,
        batchSize,
        maxBytes: BROKER_DEFAULTS.maxSendBytes,
      }),
      send: (request, stored) => producer.send(request, stored),
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

/** A message of a request with the partition it goes to (kafkajs ignores its `events`). */
interface Routed extends BrokerMessage {
  readonly partition: number;
}

/** The messages of a request that one `producer.send` carries: a leader broker's, or a partition's. */
interface Share {
  readonly routed: Routed[];
  readonly events: number;
  readonly bytes: number;
}

/** `routed` grouped by what `groupOf` says of each message's partition, in order. */
function sharesBy(routed: readonly Routed[], groupOf: (partition: number) => number): Share[] {
  const shares = new Map<number, { routed: Routed[]; events: number; bytes: number }>();
  for (const r of routed) {
    const group = groupOf(r.partition);
    let share = shares.get(group);
    if (!share) shares.set(group, (share = { routed: [], events: 0, bytes: 0 }));
    share.routed.push(r);
    share.events += r.events;
    share.bytes += r.value.byteLength;
  }
  return [...shares.values()];
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
  /** Java's partitioner (murmur2 of the key; keyless messages in turn): a key lands where Java clients put it. */
  private readonly partitioner: ReturnType<Kafkajs.ICustomPartitioner>;
  /** The topic's partitions, as kafkajs last read them from the cluster's metadata (it partitions every message it sends). */
  private partitions: Kafkajs.PartitionMetadata[] | undefined;
  /** The messages of a request not stored yet, after an attempt that failed: a retry sends only them. */
  private readonly unstored = new WeakMap<ProduceRequest, Routed[]>();

  constructor(
    private readonly kafkajs: typeof Kafkajs,
    private readonly options: BrokerSinkOptions,
    private readonly context: ErrorContext,
  ) {
    this.brokers = options.brokers;
    this.partitioner = kafkajs.Partitioners.DefaultPartitioner();
    this.record = {
      topic: options.topic,
      acks: ACKS[options.acks ?? 'all'],
      compression: options.compression === 'gzip' ? kafkajs.CompressionTypes.GZIP : kafkajs.CompressionTypes.None,
      timeout: REQUEST_TIMEOUT,
    };
  }

  /**
   * Sends a request as one `producer.send` per leader broker of its partitions, at once: as many Produce requests
   * as kafkajs makes of one send, but a broker that fails (down, unreachable, refusing) fails only its
   * partitions' messages. Each broker's share is told `stored` as soon as it is acknowledged, and when some fail the
   * request's retry sends only the failed messages, to the same partitions, one `producer.send` per partition, so
   * that a partition refused again fails alone. kafkajs's error does not say which partition of a broker's answer
   * failed, so such an error (NOT_LEADER_OR_FOLLOWER for one partition) retries all of that broker's share: the
   * partitions it stored store their messages twice (at least once). The first send of the producer learns the
   * partitions and their leaders from a first message sent alone.
   */
  async send(request: ProduceRequest, stored: (part: Stored) => void): Promise<void> {
    const producer = await this.connect();
    const failed = this.unstored.get(request);
    try {
      let shares: Share[];
      if (failed) shares = sharesBy(failed, (partition) => partition);
      else {
        let messages: readonly BrokerMessage[] = request.messages;
        if (!this.partitions) {
          const [first] = messages;
          const { key, value, timestamp } = first!;
          await this.produce(producer, [{ key, value, timestamp }]);
          stored({ size: first!.events, bytes: first!.value.byteLength });
          messages = messages.slice(1);
        }
        const leaders = new Map(this.partitions!.map(({ partitionId, leader }) => [partitionId, leader]));
        shares = sharesBy(this.routed(messages), (partition) => leaders.get(partition) ?? -1);
      }
      const results = await Promise.allSettled(
        shares.map(async (share) => {
          await this.produce(producer, share.routed);
          stored({ size: share.events, bytes: share.bytes });
        }),
      );
      const unstored = shares.flatMap((share, n) => (results[n]!.status === 'rejected' ? share.routed : []));
      if (unstored.length === 0) {
        this.unstored.delete(request);
        return;
      }
      this.unstored.set(request, unstored);
      throw (results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason;
    } catch (cause) {
      throw brokerError(cause, { ...this.context, answeredBy: this.answeredBy, written: this.written });
    }
  }

  /** Sends `messages` to the topic (kafkajs choosing the partition of those without one); the topic exists then. */
  private async produce(producer: Kafkajs.Producer, messages: Kafkajs.Message[]): Promise<void> {
    await producer.send({ ...this.record, messages });
    this.written = true;
  }

  /** `messages` with the partitions the partitioner gives them. */
  private routed(messages: readonly BrokerMessage[]): Routed[] {
    const { topic } = this.record;
    const partitionMetadata = this.partitions!;
    return messages.map(({ key, value, timestamp, events }) => {
      const partition = this.partitioner({ topic, partitionMetadata, message: { key, value } });
      return { key, value, timestamp, events, partition };
    });
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
    this.producer = kafka.producer({ createPartitioner: () => this.partitionLearning, retry: { retries: 0 } });
    await this.producer.connect();
    return this.producer;
  }

  /** The partitioner kafkajs calls for every message it sends, keeping the partitions it passes (a message routed already keeps its partition: kafkajs's partitioner honours it). */
  private readonly partitionLearning = (args: Kafkajs.PartitionerArgs): number => {
    this.partitions = args.partitionMetadata;
    return this.partitioner(args);
  };

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
