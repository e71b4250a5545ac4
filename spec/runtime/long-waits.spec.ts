import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import type { Entry } from '../../lib/config/types.js';
import { startEntries } from '../../lib/runtime/file-run.js';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { MAX_TIMER_DELAY } from '../../operators/long-timer.js';
import { recordingDelays } from '../support/delays.js';
import { MemorySink } from '../support/sinks.js';
import { metricEntry } from '../support/entries.js';

const DAY = 86_400_000;

/** Runs `entries` together in virtual time to the end: when each entry started, and every delay asked of the scheduler. */
async function runTogether(entries: Entry[]) {
  const test = new TestScheduler(() => undefined);
  test.maxFrames = Infinity;
  const { scheduler, delays } = recordingDelays(test);
  const fileRun = startEntries(entries, { scheduler, createSink: () => new MemorySink() });
  test.flush();
  await fileRun.done;
  test.flush();
  return { startedAt: (id: string) => fileRun.startedAt(id), delays };
}

describe('waits beyond the timer range (2^31 - 1 ms)', () => {
  it('a phase offset of 30 days starts the entry at 30 days', async () => {
    const { startedAt, delays } = await runTogether([
      metricEntry({ id: 'late', rate: 1, duration: 1000, phase_offset: 30 * DAY }),
    ]);
    expect(startedAt('late')).to.equal(30 * DAY);
    expect(Math.max(...delays)).to.be.at.most(MAX_TIMER_DELAY);
  });

  it('an after delay of 30 days starts the entry 30 days after the crossing', async () => {
    const { startedAt, delays } = await runTogether([
      metricEntry({ id: 'cpu', rate: 10, duration: 1000, generator: { type: 'step', start: 0, step_size: 1 } }),
      metricEntry({ id: 'alert', rate: 1, duration: 1000, after: { ref: 'cpu', op: '>', value: 4, delay: 30 * DAY } }),
    ]);
    expect(startedAt('alert')).to.equal(500 + 30 * DAY);
    expect(Math.max(...delays)).to.be.at.most(MAX_TIMER_DELAY);
  });

  it('a lone entry with a phase offset of 30 days starts at 30 days', async () => {
    const test = new TestScheduler(() => undefined);
    test.maxFrames = Infinity;
    const { scheduler, delays } = recordingDelays(test);
    const sink = new MemorySink();
    const run = runEntry(metricEntry({ rate: 1, duration: 1000, phase_offset: 30 * DAY }), {
      scheduler,
      createSink: () => sink,
    });
    test.flush();
    await run.done;
    expect(sink.text.trim().split(' ').at(-1)).to.equal(String(30 * DAY));
    expect(test.now()).to.equal(30 * DAY + 1000);
    expect(Math.max(...delays)).to.be.at.most(MAX_TIMER_DELAY);
  });
});
