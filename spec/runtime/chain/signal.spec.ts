import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { runEntry } from '../../../lib/runtime/run-entry.js';
import type { Entry } from '../../../lib/config/types.js';
import { MemorySink } from '../../support/sinks.js';
import { histogramEntry, metricEntry } from '../../support/entries.js';
import { promtoolCheck } from '../../support/promtool.js';

const JAN_1 = Date.parse('2026-01-01T00:00:00Z');

async function output(fields: Partial<Entry>) {
  const scheduler = new TestScheduler(() => undefined);
  scheduler.maxFrames = Infinity;
  const sink = new MemorySink();
  const run = runEntry(metricEntry({ start_time: { kind: 'absolute', epochMs: JAN_1 }, ...fields }), {
    scheduler,
    createSink: () => sink,
  });
  scheduler.flush();
  expect(await run.done).to.deep.equal({});
  return { text: sink.text, stats: run.stats.snapshot(scheduler.now()) };
}

describe('entries of every signal type', () => {
  it('logs: seeded template records as json_lines, one per tick, counted as events', async () => {
    const { text, stats } = await output({
      signal_type: 'logs',
      name: 'app',
      generator: undefined,
      encoder: { type: 'json_lines' },
      log_generator: {
        type: 'template',
        templates: [{ message: 'hi {who}' }],
        field_pools: { who: ['a', 'b'] },
        seed: 1,
      },
      duration: 300,
      labels: { env: 'ci' },
    });
    const records = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r) => r.timestamp)).to.deep.equal([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.100Z',
      '2026-01-01T00:00:00.200Z',
    ]);
    for (const r of records) {
      expect(r.message).to.equal(`hi ${r.fields.who}`);
      expect(r.labels).to.deep.equal({ env: 'ci' });
    }
    expect(stats.total_events).to.equal(3);
  });

  it('histogram: one series set per tick, counted as one event, valid text exposition', async () => {
    const { text, stats } = await output({ ...histogramEntry, duration: 200 });
    const lines = text.trimEnd().split('\n');
    expect(lines).to.have.length(2 * 6);
    expect(lines[3]).to.match(/^latency_seconds_bucket\{le="\+Inf",svc="api"\} 20 1767225600000$/);
    expect(lines[5]).to.equal(`latency_seconds_count{svc="api"} 20 ${JAN_1}`);
    expect(lines[11]).to.equal(`latency_seconds_count{svc="api"} 40 ${JAN_1 + 100}`);
    expect(stats.total_events).to.equal(2);

    const firstTick = `${lines.slice(0, 6).join('\n')}\n`;
    const plain = promtoolCheck(firstTick);
    expect(plain.code, plain.problems.join('\n')).to.be.oneOf([0, 3]);
    for (const problem of plain.problems) expect(problem).to.match(/no help text$/);
    const typed = promtoolCheck(`# HELP latency_seconds Latency.\n# TYPE latency_seconds histogram\n${firstTick}`);
    expect(typed, typed.problems.join('\n')).to.deep.equal({ code: 0, problems: [] });
  });

  it('histogram with native, to an encoder without native histograms: the classic rows, the same events', async () => {
    const native = { schema: 3, zero_threshold: 0, max_buckets: 160 };
    const both = await output({ ...histogramEntry, native, duration: 200 });
    const classic = await output({ ...histogramEntry, duration: 200 });
    expect(both.text).to.equal(classic.text);
    expect(both.stats.total_events).to.equal(2);
  });

  it('summary: quantile rows, _sum, _count; valid text exposition', async () => {
    const { text } = await output({
      ...histogramEntry,
      signal_type: 'summary',
      metric_type: 'summary',
      buckets: undefined,
      quantiles: [0.5, 0.99],
      duration: 100,
    });
    const lines = text.trimEnd().split('\n');
    expect(lines.map((l) => l.split(' ')[0])).to.deep.equal([
      'latency_seconds{quantile="0.5",svc="api"}',
      'latency_seconds{quantile="0.99",svc="api"}',
      'latency_seconds_sum{svc="api"}',
      'latency_seconds_count{svc="api"}',
    ]);
    const typed = promtoolCheck(`# HELP latency_seconds Latency.\n# TYPE latency_seconds summary\n${text}`);
    expect(typed, typed.problems.join('\n')).to.deep.equal({ code: 0, problems: [] });
  });

  it('histogram and summary also write json_lines, one object per series line', async () => {
    const { text } = await output({ ...histogramEntry, encoder: { type: 'json_lines' }, duration: 100 });
    const objects = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(objects.map((o) => o.name)).to.deep.equal([
      ...Array(4).fill('latency_seconds_bucket'),
      'latency_seconds_sum',
      'latency_seconds_count',
    ]);
    expect(objects.map((o) => o.labels.le)).to.deep.equal(['0.05', '0.1', '0.5', '+Inf', undefined, undefined]);
  });

  it('histogram observations are reproducible from the seed', async () => {
    const a = await output({ ...histogramEntry, duration: 300 });
    const b = await output({ ...histogramEntry, duration: 300 });
    const c = await output({ ...histogramEntry, seed: 5, duration: 300 });
    expect(a.text).to.equal(b.text);
    expect(a.text).to.not.equal(c.text);
  });
});
