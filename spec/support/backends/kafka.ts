import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { requireBinary } from './binaries.js';
import { temporaryDirectory } from '../directories.js';
import { PACKAGE_ROOT } from '../package-root.js';

const run = promisify(execFile);

/** A message as `kcat -C -J` prints it. */
export interface ConsumedMessage {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Epoch ms of the record (CreateTime). */
  readonly ts: number;
  readonly key: string | null;
  readonly payload: string;
}

/** Kafka protocol error codes the specs inject. */
export const KAFKA_ERRORS = {
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  NOT_LEADER_OR_FOLLOWER: 6,
  MESSAGE_TOO_LARGE: 10,
} as const;

/** Kafka protocol API keys whose requests the specs make fail. */
export const KAFKA_APIS = { PRODUCE: 0 } as const;

/**
 * A Kafka cluster on 127.0.0.1: librdkafka's mock cluster (no Kafka broker installs here), run by
 * the C fixture kafka-mock.c, which takes commands to create topics and inject faults.
 */
export interface KafkaMock {
  /** `127.0.0.1:<port>` of each broker, comma-separated. */
  readonly bootstrap: string;
  /** A topic of `partitions` partitions, each on `replicas` brokers (default 1). */
  createTopic(name: string, partitions: number, replicas?: number): Promise<void>;
  /** The leader of `topic`'s `partition` moves to broker `id` (a leader election). */
  leader(topic: string, partition: number, id: number): Promise<void>;
  /** Every request about `topic` fails with `code` (0 clears it). */
  topicError(topic: string, code: number): Promise<void>;
  /** The next requests of API `apiKey` to any broker fail with `codes`, one each, in order. */
  requestErrors(apiKey: number, codes: readonly number[]): Promise<void>;
  /** Broker `id` (1..n, or -1 for all) drops its connections and refuses new ones, or takes them again. */
  down(id: number): Promise<void>;
  up(id: number): Promise<void>;
  /** Broker `id` answers every request `ms` late (0: at once), as a broker that hangs. */
  rtt(id: number, ms: number): Promise<void>;
  /** Every message of `topic` so far, read by kcat (the C client, not the one svc produces with), in partition and offset order. */
  consume(topic: string): Promise<ConsumedMessage[]>;
  stop(): Promise<void>;
}

let built: Promise<string> | undefined;

/** Compiles the fixture once per process (about 0.1 s). */
function buildFixture(): Promise<string> {
  built ??= (async () => {
    const gcc = requireBinary('gcc', 'gcc libc6-dev librdkafka-dev');
    const dir = temporaryDirectory('svc-kafka-mock-');
    const binary = join(dir, 'kafka-mock');
    const source = join(PACKAGE_ROOT, 'spec', 'support', 'backends', 'kafka-mock.c');
    await run(gcc, ['-O1', '-o', binary, source, '-lrdkafka']).catch((error: { stderr?: string }) => {
      throw new Error(
        `cannot build the Kafka mock cluster (apt-get install -y --no-install-recommends gcc libc6-dev librdkafka-dev; .ci/run does so on CI): ${error.stderr ?? String(error)}`,
      );
    });
    return binary;
  })();
  return built;
}

/** Starts a mock cluster of `brokers` brokers; ready when it printed its bootstrap addresses. */
export async function startKafkaMock({ brokers = 1 }: { brokers?: number } = {}): Promise<KafkaMock> {
  const kcat = requireBinary('kcat', 'kcat');
  const child = spawn(await buildFixture(), [String(brokers)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr.setEncoding('utf8').on('data', (part: string) => (errors = (errors + part).slice(-10_000)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`the Kafka mock cluster exited: ${errors}`);
    return value as string;
  };
  const first = await next();
  const bootstrap = /^bootstrap (\S+)$/.exec(first)?.[1];
  if (!bootstrap) throw new Error(`the Kafka mock cluster said ${JSON.stringify(first)}: ${errors}`);
  // One command at a time: each answers one line.
  let queue = Promise.resolve();
  const command = (line: string): Promise<void> => {
    const done = queue.then(async () => {
      child.stdin.write(`${line}\n`);
      const answer = await next();
      if (answer !== 'ok') throw new Error(`kafka-mock ${line}: ${answer}`);
    });
    queue = done.catch(() => undefined);
    return done;
  };
  return {
    bootstrap,
    createTopic: (name, partitions, replicas = 1) => command(`topic ${name} ${partitions} ${replicas}`),
    leader: (topic, partition, id) => command(`leader ${topic} ${partition} ${id}`),
    topicError: (topic, code) => command(`topic-error ${topic} ${code}`),
    requestErrors: (apiKey, codes) => command(`errors ${apiKey} ${codes.join(' ')}`),
    down: (id) => command(`down ${id}`),
    up: (id) => command(`up ${id}`),
    rtt: (id, ms) => command(`rtt ${id} ${ms}`),
    async consume(topic) {
      const { stdout } = await run(kcat, ['-C', '-b', bootstrap, '-t', topic, '-o', 'beginning', '-e', '-q', '-J'], {
        maxBuffer: 1 << 30,
        timeout: 60_000,
      });
      return stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ConsumedMessage)
        .sort((a, b) => a.partition - b.partition || a.offset - b.offset);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      // End of standard input ends the fixture; SIGKILL by PID if it does not.
      child.stdin.end();
      const timer = setTimeout(
        () => child.pid !== undefined && child.exitCode === null && process.kill(child.pid, 'SIGKILL'),
        5000,
      );
      await exited;
      clearTimeout(timer);
    },
  };
}
