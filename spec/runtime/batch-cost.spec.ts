import { expect } from 'chai';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { ManualScheduler } from '../support/clock.js';
import { MemorySink } from '../support/sinks.js';
import { metricEntry } from '../support/entries.js';

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

  it('a batch repeats at most about 8 MiB of text: an event of large labels makes smaller batches', async () => {
    // 100 KB of labels a sample: 83 ticks a batch, so a chunk stays far below what one write can take.
    const large = await catchUp({ labels: { big: 'v'.repeat(100_000) } });
    expect(large.reduce((a, b) => a + b, 0)).to.equal(300);
    expect(Math.max(...large)).to.equal(83);
    // Ordinary labels: the catch-up in one batch (199 ticks), as before the bound.
    expect(Math.max(...(await catchUp({ labels: { host: 'a' } })))).to.be.above(150);
  });
});
