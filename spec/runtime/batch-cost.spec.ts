import { expect } from 'chai';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { ManualScheduler } from '../support/clock.js';
import { MemorySink } from '../support/sinks.js';
import { metricEntry } from '../support/entries.js';

/** Ticks per batch of a histogram entry catching up 2 s of ticks its held sink kept back. */
async function catchUpBatches(observationsPerTick: number): Promise<number[]> {
  const scheduler = new ManualScheduler();
  const sink = new MemorySink();
  const events: number[] = [];
  const run = runEntry(
    metricEntry({
      signal_type: 'histogram',
      name: 'latency',
      rate: 100,
      duration: 3000,
      distribution: { type: 'uniform', min: 0, max: 1 },
      buckets: [0.5],
      observations_per_tick: observationsPerTick,
      metric_type: 'histogram',
    }),
    { scheduler, createSink: () => sink, hooks: { onSamples: (batch) => void events.push(batch.events!) } },
  );
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
});
