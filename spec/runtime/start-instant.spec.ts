import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import type { SchedulerLike } from 'rxjs';
import { startEntries } from '../../lib/runtime/file-run.js';
import { MemorySink } from '../support/sinks.js';
import { metricEntry } from '../support/entries.js';

describe('startEntries: the instant an entry starts', () => {
  it('is the instant its timer starts from, even on a clock that moves between two readings', async () => {
    const test = new TestScheduler(() => undefined);
    test.maxFrames = Infinity;
    // A wall clock on a busy machine: every reading is a millisecond later than the one before.
    let readings = 0;
    const scheduler: SchedulerLike = {
      now: () => test.now() + ++readings,
      schedule: (work: any, delay?: number, state?: any) => test.schedule(work, delay, state),
    };
    const sinks = new Map(['cpu', 'alert'].map((id) => [id, new MemorySink()]));
    const fileRun = startEntries(
      [
        metricEntry({ id: 'cpu', name: 'cpu', duration: 1000, generator: { type: 'step', start: 0, step_size: 1 } }),
        metricEntry({
          id: 'alert',
          name: 'alert',
          duration: 200,
          after: { ref: 'cpu', op: '>', value: 4, delay: 200 },
        }),
      ],
      { scheduler, createSink: (entry) => sinks.get(entry.id)! },
    );
    test.flush();
    await fileRun.done;
    const firstStamp = (id: string) => Number(sinks.get(id)!.text.split('\n')[0]!.split(' ').at(-1));
    expect(fileRun.startedAt('cpu')).to.equal(firstStamp('cpu'));
    expect(fileRun.startedAt('alert')).to.equal(firstStamp('alert'));
    // alert starts 700 ms (cpu's tick 5, + 200 ms) after cpu's tick 0, at the earliest.
    expect(firstStamp('alert') - firstStamp('cpu')).to.be.at.least(700);
  });
});
