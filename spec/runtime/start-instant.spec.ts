import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import type { SchedulerLike } from 'rxjs';
import { startEntries } from '../../lib/runtime/file-run.js';
import { MemorySink } from '../support/sinks.js';
import { metricEntry } from '../support/entries.js';

/** Virtual time read through a wall clock on a busy machine: every reading is a millisecond later than the one before. */
function movingClock(): { test: TestScheduler; scheduler: SchedulerLike } {
  const test = new TestScheduler(() => undefined);
  test.maxFrames = Infinity;
  let readings = 0;
  const scheduler: SchedulerLike = {
    now: () => test.now() + ++readings,
    schedule: (work: any, delay?: number, state?: any) => test.schedule(work, delay, state),
  };
  return { test, scheduler };
}

describe('startEntries: the instant an entry starts', () => {
  it('is the instant its timer starts from, even on a clock that moves between two readings', async () => {
    const { test, scheduler } = movingClock();
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

  it('is the instant it was due, not the late wake-up that started it: a clock group stamps its exact timeline', async () => {
    const test = new TestScheduler(() => undefined);
    test.maxFrames = Infinity;
    // A busy event loop: every timer fires 7 ms after it was due.
    const scheduler: SchedulerLike = {
      now: () => test.now(),
      schedule: (work: any, delay = 0, state?: any) => test.schedule(work, delay + 7, state),
    };
    const JAN_1 = Date.parse('2026-01-01T00:00:00Z');
    const start_time = { kind: 'absolute' as const, epochMs: JAN_1 };
    const step = { type: 'step' as const, start: 0, step_size: 1 };
    const entries = [
      metricEntry({ id: 'cpu', name: 'cpu', duration: 1000, generator: step, start_time, clock_group: 'g' }),
      metricEntry({ id: 'late', name: 'late', duration: 300, phase_offset: 300, start_time, clock_group: 'g' }),
      metricEntry({
        id: 'alert',
        name: 'alert',
        duration: 200,
        start_time,
        clock_group: 'g',
        after: { ref: 'cpu', op: '>', value: 4, delay: 200 },
      }),
    ];
    const sinks = new Map(entries.map((entry) => [entry.id, new MemorySink()]));
    const fileRun = startEntries(entries, { scheduler, createSink: (entry) => sinks.get(entry.id)! });
    test.flush();
    await fileRun.done;
    const stamps = (id: string) =>
      sinks
        .get(id)!
        .text.split('\n')
        .filter(Boolean)
        .map((line) => Number(line.split(' ').at(-1)) - JAN_1);
    expect(stamps('late')).to.deep.equal([300, 400, 500]);
    // cpu's tick 5 at 500 ms, + 200 ms.
    expect(stamps('alert')).to.deep.equal([700, 800]);
    expect(fileRun.startedAt('late')).to.equal(300);
    expect(fileRun.startedAt('alert')).to.equal(700);
  });

  it('is the file start for every entry without a phase offset, however long the entries before it took', async () => {
    const { test, scheduler } = movingClock();
    const entries = ['a', 'b', 'c', 'd'].map((id) => metricEntry({ id, name: id, duration: 100 }));
    const sinks = new Map(entries.map((entry) => [entry.id, new MemorySink()]));
    const fileRun = startEntries(entries, { scheduler, createSink: (entry) => sinks.get(entry.id)! });
    test.flush();
    await fileRun.done;
    const firstStamps = entries.map(({ id }) => Number(sinks.get(id)!.text.split('\n')[0]!.split(' ').at(-1)));
    expect(new Set(firstStamps).size).to.equal(1);
    expect(entries.map(({ id }) => fileRun.startedAt(id))).to.deep.equal(firstStamps);
  });
});
