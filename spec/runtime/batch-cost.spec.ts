import { expect } from 'chai';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { ManualScheduler } from '../support/clock.js';
import { MemorySink } from '../support/sinks.js';
import { metricEntry } from '../support/entries.js';
import { traceConfig } from '../support/trace-generators.js';

/** Ticks per batch of a histogram entry catching up 2 s of ticks its held sink kept back. */
function catchUpBatches(observationsPerTick: number): Promise<number[]> {
  return catchUp({
    signal_type: 'histogram',
    name: 'latency',
    distribution: { type: 'uniform', min: 0, max: 1 },
    buckets: [0.5],
    observations_per_tick: observationsPerTick,
    metric_type: 'histogram',
  });
}

/** Events per batch of a metrics entry (`fields` over a gauge) at 100 a second catching up 2 s its held sink kept back. */
async function catchUp(fields: Parameters<typeof metricEntry>[0]): Promise<number[]> {
  const scheduler = new ManualScheduler();
  const sink = new MemorySink();
  const events: number[] = [];
  const run = runEntry(metricEntry({ rate: 100, duration: 3000, ...fields }), {
    scheduler,
    createSink: () => sink,
    hooks: { onSamples: (batch) => void events.push(batch.events ?? batch.size) },
  });
  sink.hold();
  await scheduler.advance(2000);
  sink.release();
  await scheduler.advance(1000);
  await run.done;
  return events;
}

describe('batch cost', () => {
  it('a catch-up batch carries at most 4096 samples and observations, or a single tick', async () => {
    const heavy = await catchUpBatches(10_000);
    expect(heavy.reduce((a, b) => a + b, 0)).to.equal(300);
    expect(Math.max(...heavy)).to.equal(1);
    // 100 observations and 4 rows a tick: 39 ticks a batch.
    const light = await catchUpBatches(100);
    expect(light.reduce((a, b) => a + b, 0)).to.equal(300);
    expect(Math.max(...light)).to.equal(39);
  });

  it('a replayed log file or log CSV of long records makes smaller batches, by its largest record', async () => {
    const long = 'x'.repeat(60_000);
    const records = async (log_generator: Record<string, unknown>): Promise<number> => {
      const scheduler = new ManualScheduler();
      const sink = new MemorySink();
      const sizes: number[] = [];
      const entry = metricEntry({
        signal_type: 'logs',
        rate: 1000,
        duration: 2000,
        log_generator,
        encoder: { type: 'json_lines' },
      } as never);
      const run = runEntry(entry, {
        scheduler,
        createSink: () => sink,
        hooks: { onLogs: (batch) => void sizes.push(batch.size) },
      });
      sink.hold();
      await scheduler.advance(1000);
      sink.release();
      await scheduler.advance(1000);
      await run.done;
      expect(sizes.reduce((a, b) => a + b, 0)).to.equal(2000);
      return Math.max(...sizes);
    };
    // About 60 KB a record: 8 MiB / 60 KB is 139 ticks a batch, where a short record's catch-up takes 1000 at once.
    const lines = { lines: ['short', long], toJSON: () => ({}) };
    expect(await records({ type: 'replay', file: 'app.log', lines })).to.be.at.most(140);
    const record = { severity: 'info', message: 'short', fields: { detail: long } };
    const table = { times: { at: [0, 1], span: 2 }, records: [record, record], toJSON: () => ({}) };
    const csv = { type: 'csv_replay', file: 'app.csv', repeat: true, timescale: 1, default_severity: 'info', table };
    expect(await records(csv)).to.be.at.most(140);
    expect(
      await records({ type: 'replay', file: 'app.log', lines: { lines: ['short'], toJSON: () => ({}) } }),
    ).to.be.above(500);
  });

  it('a batch repeats at most about 8 MiB of text: an event of large labels makes smaller batches', async () => {
    // 100 KB of labels a sample: 83 ticks a batch, so a chunk stays far below what one write can take.
    const large = await catchUp({ labels: { big: 'v'.repeat(100_000) } });
    expect(large.reduce((a, b) => a + b, 0)).to.equal(300);
    expect(Math.max(...large)).to.equal(83);
    // Ordinary labels: the catch-up in one batch (199 ticks), as before the bound.
    expect(Math.max(...(await catchUp({ labels: { host: 'a' } })))).to.be.above(150);
  });

  it('a trace of large attributes makes smaller batches, by what its spans carry', async () => {
    const traces = async (attributes: Record<string, string>): Promise<number[]> => {
      const scheduler = new ManualScheduler();
      const sink = new MemorySink();
      const ticks: number[] = [];
      const trace_generator = traceConfig({
        root: { service: 'front', operation: 'GET /', kind: 'server', duration: 0.01, attributes },
      });
      const entry = metricEntry({ signal_type: 'traces', rate: 100, duration: 3000, trace_generator } as never);
      const run = runEntry({ ...entry, encoder: { type: 'json_lines' } } as never, {
        scheduler,
        createSink: () => sink,
        hooks: { onSpans: (batch) => void ticks.push(batch.size) },
      });
      sink.hold();
      await scheduler.advance(2000);
      sink.release();
      await scheduler.advance(1000);
      await run.done;
      expect(ticks.reduce((a, b) => a + b, 0)).to.equal(300);
      return ticks;
    };
    // 500 kB of attributes a trace: 16 traces make 8 MiB, where a catch-up of small traces takes 199 at once.
    expect(Math.max(...(await traces({ body: 'x'.repeat(500_000) })))).to.equal(16);
    expect(Math.max(...(await traces({ 'http.route': '/' })))).to.be.above(150);
  });
});
