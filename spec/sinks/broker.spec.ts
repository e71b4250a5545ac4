import { expect } from 'chai';
import { realpath, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { metricsText } from '../../lib/encoders/metrics-text.js';
import { BROKER_DEFAULTS } from '../../lib/sinks/broker.js';
import { brokerError, kafkaConfig, brokerWarnings, type ErrorContext } from '../../lib/sinks/broker-client.js';
import { produceRequests, RECORD_FRAMING_BYTES, type ProduceRequest } from '../../lib/sinks/framing/broker-messages.js';
import { sinkWarnings } from '../../lib/server/warnings.js';
import { sentSecrets } from '../../lib/redact.js';
import type { EncodedBatch } from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';
import { selfSigned } from '../support/certificate.js';
import { scenarioDir, svc, upScenario } from '../support/cli.js';
import { entryOf, entryProblems, metric } from '../support/scenarios.js';
import { temporaryDirectory } from '../support/directories.js';

const T0 = Date.UTC(2024, 0, 1);
const ONE_MB = 1_000_000;
/** The brokers' default `message.max.bytes`: the largest record batch they take. */
const KAFKA_MESSAGE_MAX_BYTES = 1_048_588;

/** `up` gauge chunk: one event per pod, 10 ms apart from T0. */
function gauge(...pods: string[]): EncodedBatch {
  return metricsText({ name: 'up' }).encode(
    sampleBatch({
      anchor: T0,
      values: pods.map((_, i) => i),
      offsets: pods.map((_, i) => 10 * i),
      series: pods.map((pod) => seriesOf({ pod })),
    }),
  );
}

/** Two histogram events (pods h0, h1) of three rows each: +Inf bucket, _sum, _count. */
function histogram(): EncodedBatch {
  const set = (pod: string) => [
    seriesOf({ pod, le: '+Inf' }, '_bucket'),
    seriesOf({ pod }, '_sum'),
    seriesOf({ pod }, '_count'),
  ];
  const batch = {
    ...sampleBatch({
      anchor: T0,
      values: [4, 1.5, 4, 2, 0.5, 2],
      offsets: [0, 0, 0, 5, 5, 5],
      series: [...set('h0'), ...set('h1')],
    }),
    events: 2,
  };
  return metricsText({ name: 'latency' }).encode(batch);
}

/** Each send as its messages: `key|timestamp|value`. */
function shown(requests: ProduceRequest[]): string[][] {
  return requests.map((r) => r.messages.map((m) => `${m.key}|${Number(m.timestamp) - T0}|${m.value.toString()}`));
}

describe('broker sink', () => {
  describe('messages', () => {
    it('one message per event: its line without the line feed, keyed by the key label, stamped with the entry clock', () => {
      const requests = produceRequests({ messagePer: 'event', keyLabel: 'pod', batchSize: 1000, maxBytes: ONE_MB })([
        gauge('a', 'b'),
        gauge('c'),
      ]);
      expect(shown(requests)).to.deep.equal([
        ['a|0|up{pod="a"} 0 1704067200000', 'b|10|up{pod="b"} 1 1704067200010', 'c|0|up{pod="c"} 0 1704067200000'],
      ]);
      expect(requests.map((r) => [r.size, r.bytes])).to.deep.equal([[3, 3 * 'up{pod="a"} 0 1704067200000'.length]]);
    });

    it('no key without a key label, and none for an event that lacks the label', () => {
      expect(
        shown(produceRequests({ messagePer: 'event', batchSize: 10, maxBytes: ONE_MB })([gauge('a')]))[0]![0],
      ).to.match(/^null\|/);
      expect(
        shown(
          produceRequests({ messagePer: 'event', keyLabel: 'host', batchSize: 10, maxBytes: ONE_MB })([gauge('a')]),
        )[0]![0],
      ).to.match(/^null\|/);
    });

    it('batch_size counts events: a histogram event is one message of its rows, never split', () => {
      const requests = produceRequests({ messagePer: 'event', keyLabel: 'pod', batchSize: 1, maxBytes: ONE_MB })([
        histogram(),
      ]);
      expect(shown(requests)).to.deep.equal([
        [
          'h0|0|latency_bucket{le="+Inf",pod="h0"} 4 1704067200000\nlatency_sum{pod="h0"} 1.5 1704067200000\nlatency_count{pod="h0"} 4 1704067200000',
        ],
        [
          'h1|5|latency_bucket{le="+Inf",pod="h1"} 2 1704067200005\nlatency_sum{pod="h1"} 0.5 1704067200005\nlatency_count{pod="h1"} 2 1704067200005',
        ],
      ]);
      expect(requests.map((r) => r.size)).to.deep.equal([1, 1]);
    });

    it("a send carries at most maxBytes of records (values, keys and each record's framing), and at least one event", () => {
      const value = 'up{pod="a"} 0 1704067200000'.length;
      // An event's size counts its line feed, which a message per event leaves out (a byte over, as a bound may be).
      const record = value + 1 + RECORD_FRAMING_BYTES;
      const cut = produceRequests({
        messagePer: 'event',
        batchSize: 1000,
        maxBytes: 2 * record,
      })([gauge('a', 'b', 'c', 'd', 'e')]);
      expect(cut.map((r) => r.size)).to.deep.equal([2, 2, 1]);
      // Keys count too: "a" and "b" take a byte each, so two records no longer fit.
      const keyed = produceRequests({
        messagePer: 'event',
        keyLabel: 'pod',
        batchSize: 1000,
        maxBytes: 2 * record,
      })([gauge('a', 'b', 'c')]);
      expect(keyed.map((r) => r.size)).to.deep.equal([1, 1, 1]);
      expect(keyed.map((r) => r.bytes)).to.deep.equal([value, value, value]);
      expect(
        produceRequests({ messagePer: 'event', batchSize: 1000, maxBytes: 1 })([gauge('a', 'b')]).map((r) => r.size),
      ).to.deep.equal([1, 1]);
    });

    it('message_per batch: one message per send with the lines as written, or one per key value', () => {
      const whole = produceRequests({ messagePer: 'batch', batchSize: 1000, maxBytes: ONE_MB })([
        gauge('a', 'b'),
        gauge('a'),
      ]);
      expect(shown(whole)).to.deep.equal([
        ['null|0|up{pod="a"} 0 1704067200000\nup{pod="b"} 1 1704067200010\nup{pod="a"} 0 1704067200000\n'],
      ]);
      expect(whole[0]!.size).to.equal(3);
      const keyed = produceRequests({ messagePer: 'batch', keyLabel: 'pod', batchSize: 2, maxBytes: ONE_MB })([
        gauge('a', 'b'),
        gauge('a', 'a'),
      ]);
      expect(shown(keyed)).to.deep.equal([
        ['a|0|up{pod="a"} 0 1704067200000\n', 'b|10|up{pod="b"} 1 1704067200010\n'],
        ['a|0|up{pod="a"} 0 1704067200000\nup{pod="a"} 1 1704067200010\n'],
      ]);
    });

    it("a send of many small events stays within the brokers' default message.max.bytes as kafkajs encodes it, framing of each record included", async () => {
      // kafkajs's own produce request encoder (not a public API): one partition, so one record batch of the whole send.
      const encodeProduce = createRequire(import.meta.url)('kafkajs/src/protocol/requests/produce/v3/request.js') as (
        request: object,
      ) => { encode(): Promise<{ size(): number }> };
      const requests = produceRequests({
        messagePer: 'event',
        keyLabel: 'pod',
        batchSize: 100_000,
        maxBytes: BROKER_DEFAULTS.maxSendBytes,
      })([gauge(...Array<string>(60_000).fill('a'))]);
      expect(requests.reduce((n, r) => n + r.size, 0)).to.equal(60_000);
      for (const request of requests) {
        const messages = request.messages.map(({ key, value, timestamp }) => ({
          key,
          value,
          timestamp: Number(timestamp),
        }));
        const produce = encodeProduce({
          acks: -1,
          timeout: 10_000,
          topicData: [{ topic: 't', partitions: [{ partition: 0, messages }] }],
        });
        expect((await produce.encode()).size()).to.be.at.most(KAFKA_MESSAGE_MAX_BYTES);
      }
    });

    it('counts bytes of values in UTF-8', () => {
      const [request] = produceRequests({ messagePer: 'event', batchSize: 10, maxBytes: ONE_MB })([gauge('é')]);
      expect(request!.bytes).to.equal(Buffer.byteLength('up{pod="é"} 0 1704067200000'));
    });
  });

  describe('the client configuration (SASL and TLS cannot be exercised against the mock cluster)', () => {
    it('hands SASL PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 from the sink fields to kafkajs, the mechanism in any case', () => {
      for (const [written, mechanism] of [
        ['PLAIN', 'plain'],
        ['scram-sha-256', 'scram-sha-256'],
        ['SCRAM-SHA-512', 'scram-sha-512'],
      ]) {
        const sink = entryOf(
          metric({
            sink: {
              type: 'broker',
              brokers: 'k1:9092,k2:9093',
              topic: 't',
              sasl: { mechanism: written, username: 'svc', password: 'pw' },
            },
          }),
        ).sink;
        if (sink.type !== 'broker') expect.fail('not a broker sink');
        expect(kafkaConfig(sink)).to.deep.include({
          brokers: ['k1:9092', 'k2:9093'],
          sasl: { mechanism, username: 'svc', password: 'pw' },
          ssl: false,
        });
      }
    });

    /** A self-signed certificate in a directory of its own. */
    const selfSignedIn = async () => {
      const dir = await realpath(temporaryDirectory('svc-broker-ca-'));
      return { dir, ...selfSigned(dir) };
    };

    it('tls.enabled: TLS with the system authorities, or with ca_cert read as the authority to trust', async () => {
      expect(kafkaConfig({ brokers: ['k:9093'], tls: { enabled: true } }).ssl).to.equal(true);
      expect(kafkaConfig({ brokers: ['k:9093'], tls: { enabled: false, caCert: '/nowhere' } }).ssl).to.equal(false);
      const { dir, cert, pem } = await selfSignedIn();
      expect(kafkaConfig({ brokers: ['k:9093'], tls: { enabled: true, caCert: cert } }).ssl).to.deep.equal({
        ca: [pem],
      });
      expect(() =>
        kafkaConfig({ brokers: ['k:9093'], tls: { enabled: true, caCert: join(dir, 'missing.pem') } }),
      ).to.throw(`broker sink: cannot read tls.ca_cert ${join(dir, 'missing.pem')}: no such file or directory`);
    });

    it('a ca_cert without a certificate Node can read (a key, an empty file, a damaged one) is refused, naming the file', async () => {
      // Node's TLS would skip it without a word and trust nothing: every handshake would then fail.
      const { dir, key, pem } = await selfSignedIn();
      const damaged = join(dir, 'damaged.pem');
      await writeFile(damaged, `${pem}-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n`);
      const empty = join(dir, 'empty.pem');
      await writeFile(empty, '');
      const advice = "give the PEM file of the authority that signed the brokers' certificates";
      for (const path of [key, empty])
        expect(() => kafkaConfig({ brokers: ['k:9093'], tls: { enabled: true, caCert: path } })).to.throw(
          `broker sink: tls.ca_cert ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----): ${advice}`,
        );
      expect(() => kafkaConfig({ brokers: ['k:9093'], tls: { enabled: true, caCert: damaged } })).to.throw(
        `broker sink: tls.ca_cert ${damaged} holds a certificate that cannot be read (certificate 2 of 2: `,
      );
    });

    it("the server's ca_cert (realPath) is read only if no link took its place since the server checked it", async () => {
      const { dir, cert, pem } = await selfSignedIn();
      await symlink(cert, join(dir, 'ca.pem'));
      const tls = { enabled: true, caCert: join(dir, 'ca.pem') };
      expect(kafkaConfig({ brokers: ['k:9093'], tls }).ssl).to.deep.equal({ ca: [pem] });
      expect(() => kafkaConfig({ brokers: ['k:9093'], tls: { ...tls, realPath: true } })).to.throw(
        `cannot read tls.ca_cert ${join(dir, 'ca.pem')}: it is no longer the file checked below the file root`,
      );
    });

    it("client_id (default svc), timeouts, no retries of its own (the sink's retry is the policy); no log level, which the producer sets with its log creator", () => {
      expect(kafkaConfig({ brokers: ['k:9092'] })).to.deep.equal({
        clientId: 'svc',
        brokers: ['k:9092'],
        ssl: false,
        connectionTimeout: 5000,
        requestTimeout: 10_000,
        retry: { retries: 0 },
      });
      expect(kafkaConfig({ brokers: ['k:9092'], clientId: 'gen-1' }).clientId).to.equal('gen-1');
    });
  });

  describe('SASL without TLS', () => {
    const sasl = (mechanism: string, tls?: { enabled: boolean }) =>
      ({
        type: 'broker',
        brokers: ['k1:9092'],
        topic: 't',
        sasl: { mechanism, username: 'svc', password: 'hunter2' },
        ...(tls && { tls }),
      }) as const;

    it('is warned about: with plain the password itself travels unencrypted; never with TLS or without SASL', () => {
      expect(brokerWarnings(sasl('plain') as never)).to.deep.equal([
        'broker sink: sasl without tls.enabled: the SASL password itself and every message travel unencrypted to k1:9092; set tls: {enabled: true} unless the network is trusted',
      ]);
      expect(brokerWarnings(sasl('scram-sha-256') as never)[0]).to.include(
        'the SASL user name (scram-sha-256 sends no password)',
      );
      expect(brokerWarnings(sasl('plain', { enabled: true }) as never)).to.deep.equal([]);
      expect(brokerWarnings({ brokers: ['k1:9092'] })).to.deep.equal([]);
    });

    it("svc-server answers and logs it with the request's other warnings", () => {
      expect(sinkWarnings('sink', sasl('plain') as never)).to.deep.equal([
        `sink: ${brokerWarnings(sasl('plain') as never)[0]}`,
      ]);
    });

    it('svc prints it when the scenario starts (dry-run too), never the password', async () => {
      const { scenario } = scenarioDir('svc-broker-warn-');
      const file = scenario(
        'sasl.yaml',
        upScenario(
          '{ type: broker, brokers: "k1:9092", topic: t, sasl: { mechanism: PLAIN, username: svc, password: hunter2 } }',
        ),
      );
      const result = await svc(['run', file, '--dry-run']);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.include(`[warn] up: ${brokerWarnings(sasl('plain') as never)[0]}\n`);
      expect(result.stderr).to.not.include('hunter2');
    });
  });

  describe('fields', () => {
    const sinkOf = (fields: Record<string, unknown>) =>
      entryOf(metric({ sink: { type: 'broker', brokers: 'k:9092', topic: 't', ...fields } })).sink;
    const problems = (fields: Record<string, unknown>) =>
      entryProblems(metric({ sink: { type: 'broker', brokers: 'k:9092', topic: 't', ...fields } }));

    it('keeps acks, compression, client_id, key, message_per, batch_size, retry and max_buffer_age', () => {
      expect(
        sinkOf({
          acks: 'leader',
          compression: 'gzip',
          client_id: 'gen-1',
          key: 'host',
          message_per: 'batch',
          batch_size: 500,
          retry: { max_attempts: 3 },
          max_buffer_age: '250ms',
        }),
      ).to.deep.equal({
        type: 'broker',
        brokers: ['k:9092'],
        topic: 't',
        acks: 'leader',
        compression: 'gzip',
        client_id: 'gen-1',
        key: 'host',
        message_per: 'batch',
        batch_size: 500,
        retry: { max_attempts: 3 },
        max_buffer_age: 250,
      });
    });

    it('names the field and the rule of each bad value', () => {
      expect(
        problems({
          acks: -1,
          compression: 'zstd',
          key: 'bad-label',
          message_per: 'line',
          batch_size: 100_001,
          max_buffer_age: '2h',
        }),
      ).to.deep.equal([
        'scenarios[0] (cpu): sink.acks: invalid type: expected one of all, leader, none, got number -1',
        'scenarios[0] (cpu): sink.compression: expected one of none, gzip, got "zstd"',
        'scenarios[0] (cpu): sink.key: expected none or a label name matching [a-zA-Z_][a-zA-Z0-9_]*, got "bad-label"',
        'scenarios[0] (cpu): sink.message_per: expected one of event, batch, got "line"',
        'scenarios[0] (cpu): sink.batch_size: expected at most 100000, got 100001',
        'scenarios[0] (cpu): sink.max_buffer_age: expected a duration up to 1h, got "2h"',
      ]);
      expect(problems({ client_id: 'x'.repeat(256) })[0]).to.match(
        /^scenarios\[0\] \(cpu\): sink\.client_id: expected a string of 1 to 255 characters, got "x+\.\.\."$/,
      );
      expect(problems({ topic: 'a/b' })).to.deep.equal([
        'scenarios[0] (cpu): sink.topic: expected a Kafka topic name (letters, digits, ".", "_" and "-", at most 249 characters, not "." or ".."), got "a/b"',
      ]);
    });
  });

  describe('errors', () => {
    const context: ErrorContext = { topic: 'metrics', target: 'k1:9092', tls: false };
    const protocolError = (type: string, retriable: boolean) =>
      new kafkajs.KafkaJSProtocolError({ type, code: 0, retriable, message: `${type} happened` } as never);
    const exhausted = (error: Error) =>
      new kafkajs.KafkaJSNumberOfRetriesExceeded(error, { retryCount: 0, retryTime: 0 });

    it('a refused SASL authentication is final and says what to check, without the password', () => {
      const SaslError = kafkajs.KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error;
      const error = brokerError(
        exhausted(new SaslError('SASL PLAIN authentication failed: invalid credentials')),
        context,
      );
      expect(error).to.include({ retryable: false });
      expect(error.message).to.equal(
        'broker sink: k1:9092 refused the SASL authentication (SASL PLAIN authentication failed: invalid credentials): check sasl.mechanism, sasl.username and sasl.password',
      );
    });

    it("masks the SASL password where a broker's refusal repeats it", () => {
      const SaslError = kafkajs.KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error;
      const error = brokerError(
        exhausted(new SaslError('SASL PLAIN authentication failed: no user svc with password S3CRETpw')),
        { ...context, secrets: sentSecrets({}, undefined, ['S3CRETpw']) },
      );
      expect(error.message).to.equal(
        'broker sink: k1:9092 refused the SASL authentication (SASL PLAIN authentication failed: no user svc with password ***): check sasl.mechanism, sasl.username and sasl.password',
      );
    });

    it('a refused write is final and names the principal to grant Write: the SASL user, or User:ANONYMOUS without sasl', () => {
      const refused = exhausted(protocolError('TOPIC_AUTHORIZATION_FAILED', false));
      const error = brokerError(refused, { ...context, user: 'svc-writer' });
      expect(error).to.include({ retryable: false });
      expect(error.message).to.equal(
        'broker sink: not allowed to write to topic "metrics" (TopicAuthorizationFailed): grant User:svc-writer (the principal of sasl.username) Write on the topic',
      );
      expect(brokerError(refused, context).message).to.equal(
        'broker sink: not allowed to write to topic "metrics" (TopicAuthorizationFailed): the sink sends no credentials (no sasl), so the brokers see it as User:ANONYMOUS: set sasl, or grant User:ANONYMOUS Write on the topic',
      );
    });

    it('INVALID_RECORD is final and says a compacted topic takes only messages with a key', () => {
      const invalid = exhausted(protocolError('INVALID_RECORD', false));
      const refused =
        'broker sink: k1:9092 refused the messages as invalid (INVALID_RECORD: INVALID_RECORD happened): a compacted topic (cleanup.policy=compact) takes only messages with a key: ';
      const error = brokerError(invalid, context);
      expect(error).to.include({ retryable: false });
      expect(error.message).to.equal(`${refused}set sink.key to a label of the entry`);
      expect(brokerError(invalid, { ...context, keyed: true }).message).to.equal(
        `${refused}does every event carry the label of sink.key?`,
      );
    });

    it("timestamps out of the topic's range are final, and point at start_time and the topic's limits", () => {
      const error = brokerError(exhausted(protocolError('INVALID_TIMESTAMP', false)), context);
      expect(error).to.include({ retryable: false });
      expect(error.message).to.equal(
        "broker sink: k1:9092 refused the messages' timestamps (INVALID_TIMESTAMP: INVALID_TIMESTAMP happened): each message carries its event's time (the entry's clock: start_time, --backfill), " +
          'and the topic takes only times within its message.timestamp.before.max.ms and message.timestamp.after.max.ms of now ' +
          '(message.timestamp.difference.max.ms before Kafka 3.6): a start_time nearer now, or raise those limits',
      );
    });

    it('an untrusted broker certificate is final and points at tls.ca_cert', () => {
      const cause = new kafkajs.KafkaJSConnectionError('Connection error: self-signed certificate', {
        broker: 'k1:9093',
        code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      });
      const error = brokerError(exhausted(cause), { ...context, tls: true });
      expect(error).to.include({ retryable: false });
      expect(error.message).to.equal(
        'broker sink: the certificate of k1:9093 is not trusted (Connection error: self-signed certificate): set tls.ca_cert to the PEM file of the authority that signed it',
      );
    });

    it('a dropped connection is retried, and hints at a TLS listener either way', () => {
      const reset = new kafkajs.KafkaJSConnectionError('Connection error: read ECONNRESET', {
        broker: 'k1:9092',
        code: 'ECONNRESET',
      });
      expect(brokerError(reset, context)).to.include({
        retryable: true,
        message:
          'broker sink: k1:9092 dropped the connection (Connection error: read ECONNRESET): did it restart? if it is a TLS listener, set tls: {enabled: true}',
      });
      expect(brokerError(reset, { ...context, tls: true }).message).to.match(
        /did it restart\? tls\.enabled is true: is it a TLS listener\?$/,
      );
    });

    it('oversized messages are final; retriable Kafka errors and timeouts are retried', () => {
      expect(brokerError(protocolError('MESSAGE_TOO_LARGE', false), { ...context, messagePer: 'batch' })).to.include({
        retryable: false,
        message:
          'broker sink: k1:9092 refused messages this large (MESSAGE_TOO_LARGE happened): lower batch_size, or send a message per event (message_per: event)',
      });
      // A message per event already: the advice is not to send one.
      expect(brokerError(protocolError('RECORD_LIST_TOO_LARGE', false), context)).to.include({
        retryable: false,
        message:
          "broker sink: k1:9092 refused messages this large (RECORD_LIST_TOO_LARGE happened): an event, or a send of batch_size events, is over the topic's max.message.bytes (the brokers' message.max.bytes, 1 MiB by default): lower batch_size, or raise that limit",
      });
      expect(brokerError(protocolError('NOT_ENOUGH_REPLICAS', true), context)).to.include({
        retryable: true,
        message:
          'broker sink: cannot send to topic "metrics": a broker of k1:9092 answered NOT_ENOUGH_REPLICAS (NOT_ENOUGH_REPLICAS happened)',
      });
      // kafkajs's Kafka errors do not name the broker: the producer says which answered what.
      const answeredBy = (message: string) => (message === 'NOT_LEADER_FOR_PARTITION happened' ? 'k2:9092' : undefined);
      expect(brokerError(protocolError('NOT_LEADER_FOR_PARTITION', true), { ...context, answeredBy })).to.include({
        retryable: true,
        message:
          'broker sink: cannot send to topic "metrics": k2:9092 answered NOT_LEADER_OR_FOLLOWER (NOT_LEADER_FOR_PARTITION happened)',
      });
      expect(
        brokerError(
          new kafkajs.KafkaJSRequestTimeoutError('Request Produce(key: 0, version: 7) timed out', {
            broker: 'k1:9092',
          } as never),
          context,
        ),
      ).to.include({
        retryable: true,
        message:
          'broker sink: k1:9092 accepted the connection but did not answer within 10 s: is the endpoint overloaded or stuck?',
      });
    });
  });
});
