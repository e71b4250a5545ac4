import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { loadScenario } from '../../lib/config/load.js';
import type { Entry } from '../../lib/config/types.js';
import { compileScenario } from '../../lib/compile/index.js';
import { startEntries } from '../../lib/runtime/file-run.js';
import type { Shard } from '../../operators/labels.js';
import { MemorySink } from '../support/sinks.js';
import { histogramEntry, metricEntry } from '../support/entries.js';

/** The lines each entry of `entries` writes in one virtual second, run together as shard `shard` (or whole). */
async function linesOf(entries: readonly Entry[], shard?: Shard): Promise<Map<string, string[]>> {
  const scheduler = new TestScheduler(() => undefined);
  scheduler.maxFrames = Infinity;
  const sinks = new Map(entries.map((entry) => [entry.id, new MemorySink()]));
  const fileRun = startEntries(entries, {
    scheduler,
    createSink: (entry) => sinks.get(entry.id)!,
    ...(shard && { shard }),
  });
  scheduler.flush();
  await fileRun.done;
  return new Map([...sinks].map(([id, sink]) => [id, sink.text.split('\n').filter(Boolean)]));
}

const FILE: Entry[] = [
  metricEntry({
    id: 'pods',
    name: 'pods_up',
    duration: 1000,
    dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 4 }],
  }),
  metricEntry({ id: 'one', name: 'one_up', duration: 1000 }),
  metricEntry({ id: 'two', name: 'two_up', duration: 1000, labels: { job: 'x' } }),
  metricEntry({
    ...histogramEntry,
    id: 'latency',
    duration: 1000,
    dynamic_labels: [{ key: 'route', form: 'list', values: ['/a', '/b'] }],
  }),
  // Label sets that repeat every 12 ticks (the timer emits a shard's slots of that cycle), ...
  metricEntry({
    id: 'grid',
    name: 'grid_up',
    rate: 1000,
    duration: 1000,
    dynamic_labels: [
      { key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 6 },
      { key: 'zone', form: 'list', values: ['a', 'b', 'c', 'd'] },
    ],
  }),
  // ... every 512 ticks with more label sets than the labels intern (hashed to the shards), ...
  metricEntry({
    id: 'wide',
    name: 'wide_up',
    rate: 2000,
    duration: 1000,
    dynamic_labels: [
      { key: 'a', form: 'counter', prefix: 'a', cardinality: 256 },
      { key: 'b', form: 'counter', prefix: 'b', cardinality: 512 },
    ],
  }),
  // ... and labels that follow time (a spike): the timer emits every slot.
  metricEntry({
    id: 'spiky',
    name: 'spiky_up',
    rate: 1000,
    duration: 1000,
    cardinality_spikes: [
      { label: 'user', cardinality: 7, every: 400, for: 100, strategy: 'counter', prefix: 'u', seed: 0 },
    ],
  }),
];

describe('startEntries with a shard (svc-server --shard, the chart shard mode)', () => {
  it('N shards of one file together write every line of the whole run exactly once', async () => {
    const whole = await linesOf(FILE);
    for (const count of [2, 3, 5]) {
      const parts = await Promise.all(Array.from({ length: count }, (_, index) => linesOf(FILE, { index, count })));
      for (const { id } of FILE) {
        expect(parts.flatMap((part) => part.get(id)!).sort(), `${id}, ${count} shards`).to.deep.equal(
          [...whole.get(id)!].sort(),
        );
      }
    }
  });

  it('series s of the entry at position p goes to shard (p + s) mod N: single-series entries spread over the shards', async () => {
    const parts = await Promise.all([0, 1, 2].map((index) => linesOf(FILE, { index, count: 3 })));
    const owners = (id: string) =>
      parts.map((part, shard) => (part.get(id)!.length ? shard : undefined)).filter((shard) => shard !== undefined);
    expect([owners('one'), owners('two')]).to.deep.equal([[1], [2]]);
    // pods (position 0): pod_0 and pod_3 on shard 0, pod_1 on 1, pod_2 on 2.
    const pods = (shard: number) =>
      [...new Set(parts[shard]!.get('pods')!.map((line) => /pod="(\w+)"/.exec(line)![1]))].sort();
    expect([pods(0), pods(1), pods(2)]).to.deep.equal([['pod_0', 'pod_3'], ['pod_1'], ['pod_2']]);
    // A histogram's bucket, _sum and _count lines stay with their series' shard: latency (position 3) route /a on shard 0, /b on 1.
    const routes = (shard: number) => [
      ...new Set(parts[shard]!.get('latency')!.map((line) => /route="([^"]+)"/.exec(line)![1])),
    ];
    expect([routes(0), routes(1), routes(2)]).to.deep.equal([['/a'], ['/b'], []]);
  });

  it('entries naming spans run on the shard of their traces entry: span metrics, exemplars and log ids as a whole run has them (svc run --workers)', async () => {
    const file = loadScenario(
      JSON.stringify({
        version: 2,
        kind: 'runnable',
        defaults: { duration: '3s', start_time: '2026-01-01T00:00:00Z' },
        scenarios: [
          {
            signal_type: 'traces',
            name: 'checkout',
            rate: 10,
            encoder: { type: 'json_lines' },
            span_metrics: { sink: { type: 'stdout' }, interval: '1s' },
            trace_generator: {
              services: { frontend: {}, payment: {} },
              root: {
                service: 'frontend',
                operation: 'GET /checkout',
                kind: 'server',
                calls: [
                  { service: 'payment', operation: 'POST /pay', kind: 'client', duration: 0.01, error_rate: 0.2 },
                ],
              },
            },
          },
          {
            signal_type: 'histogram',
            name: 'latency',
            rate: 2,
            distribution: { type: 'exponential', rate: 20 },
            buckets: [0.05, 0.5],
            encoder: { type: 'openmetrics' },
            exemplars: { from: 'checkout' },
          },
          {
            signal_type: 'logs',
            name: 'payment_logs',
            rate: 5,
            encoder: { type: 'json_lines' },
            log_generator: { type: 'template', templates: [{ message: 'payment failed', severity: 'error' }] },
            trace_context: { from: 'checkout', service: 'payment' },
          },
        ],
      }),
      { origin: 'spec', format: 'json' },
    );
    const entries = compileScenario(file, { origin: 'spec' }).scenarios;
    expect(entries.map((entry) => entry.id)).to.deep.equal([
      'checkout',
      'checkout.calls',
      'checkout.duration',
      'latency',
      'payment_logs',
    ]);
    const whole = await linesOf(entries);
    expect(whole.get('latency')!.some((line) => line.includes('# {trace_id="'))).to.equal(true);
    expect(whole.get('payment_logs')!.some((line) => line.includes('"trace_id":"'))).to.equal(true);
    for (const count of [2, 3]) {
      const parts = await Promise.all(Array.from({ length: count }, (_, index) => linesOf(entries, { index, count })));
      const owners = (id: string) =>
        parts.map((part, shard) => (part.get(id)!.length ? shard : undefined)).filter((shard) => shard !== undefined);
      expect(
        entries.map((entry) => owners(entry.id)),
        `${count} shards`,
      ).to.deep.equal(entries.map(() => [0]));
      for (const { id } of entries) expect(parts[0]!.get(id), `${id}, ${count} shards`).to.deep.equal(whole.get(id));
    }
  });

  it('an entry another one watches makes every value on every shard: the trigger fires at the same tick on all of them', async () => {
    // Four pods counting up one a tick (tick n: value n); the page starts once a value passes 5,
    // which tick 6 gives (pod_2). A shard that saw only its own pods' values would start later.
    const watched: Entry[] = [
      metricEntry({
        id: 'load',
        name: 'load',
        duration: 1000,
        generator: { type: 'step', start: 0, step_size: 1 },
        dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 4 }],
      }),
      metricEntry({ id: 'page', name: 'page', duration: 500, after: { ref: 'load', op: '>', value: 5 } }),
    ];
    const whole = await linesOf(watched);
    const parts = await Promise.all([0, 1, 2].map((index) => linesOf(watched, { index, count: 3 })));
    for (const { id } of watched)
      expect(parts.flatMap((part) => part.get(id)!).sort(), id).to.deep.equal([...whole.get(id)!].sort());
  });
});
