/**
 * Kafka in `npm run bench`: events/s of a 1,000-series gauge at an unbounded rate through the
 * metrics_text encoder and the broker sink into librdkafka's mock cluster (a Kafka protocol
 * implementation in another process; no Kafka broker installs here), one message per event and
 * one message per batch, and the messages the cluster stored, read back with kcat. Prints
 * figures; asserts nothing.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Entry } from '../lib/config/types.js';
import { runEntry } from '../lib/runtime/run-entry.js';
import { benchGauge } from './entry.js';
import { requireBinary } from '../spec/support/backends/binaries.js';
import { startKafkaMock } from '../spec/support/backends/kafka.js';

const SERIES = 1000;

function gauge(bootstrap: string, topic: string, seconds: number, sink: Record<string, unknown>): Entry {
  const broker = { type: 'broker', brokers: [bootstrap], topic, ...sink } as Entry['sink'];
  return benchGauge({ name: 'bench_kafka', sink: broker, encoder: { type: 'metrics_text' }, seconds, series: SERIES });
}

/** Messages stored in `topic`: the offset after the last message of each partition, added up (kcat). */
async function storedMessages(bootstrap: string, topic: string): Promise<number> {
  const kcat = requireBinary('kcat', 'kcat');
  const { stdout } = await promisify(execFile)(kcat, [
    '-C',
    '-b',
    bootstrap,
    '-t',
    topic,
    '-o',
    '-1',
    '-e',
    '-q',
    '-f',
    '%o\n',
  ]);
  return stdout
    .split('\n')
    .filter(Boolean)
    .reduce((sum, offset) => sum + Number(offset) + 1, 0);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Runs the Kafka figures, `seconds` each. */
export async function kafkaBench(seconds: number): Promise<void> {
  console.log(
    `kafka: gauge over ${SERIES} series, metrics_text -> broker sink -> librdkafka mock cluster (4 partitions), ${seconds} s each`,
  );
  const cluster = await startKafkaMock();
  try {
    const cases: [string, string, Record<string, unknown>][] = [
      ['a message per event (batch_size 1000)', 'per-event', {}],
      ['a message per event, keyed by pod', 'per-event-keyed', { key: 'pod' }],
      ['a message per batch (batch_size 10000)', 'per-batch', { message_per: 'batch', batch_size: 10_000 }],
      [
        'a message per batch, gzip',
        'per-batch-gzip',
        { message_per: 'batch', batch_size: 10_000, compression: 'gzip' },
      ],
    ];
    for (const [what, topic, sink] of cases) {
      const started = performance.now();
      const run = runEntry(gauge(cluster.bootstrap, topic, seconds, sink));
      const outcome = await run.done;
      if (outcome.error) throw outcome.error;
      const rate = run.stats.totalEvents / ((performance.now() - started) / 1000);
      const stored = await storedMessages(cluster.bootstrap, topic);
      console.log(
        `  ${what.padEnd(42)} ${fmt(rate)} events/s (${fmt(run.stats.totalEvents)} events, the cluster stored ${fmt(stored)} messages)`,
      );
    }
  } finally {
    await cluster.stop();
  }
}
