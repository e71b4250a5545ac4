import { expect } from 'chai';
import { stat } from 'node:fs';
import type { SchedulerAction, Subscription } from 'rxjs';
import { dateTimestampProvider } from 'rxjs/internal/scheduler/dateTimestampProvider';
import { liveScheduler } from '../../lib/runtime/live-scheduler.js';
import { settle } from '../support/clock.js';

describe('liveScheduler', () => {
  it('runs work due now as an immediate, not a timer: scheduled from I/O, it runs before a zero-delay timer (Node clamps those to 1 ms)', async () => {
    const order: string[] = [];
    await new Promise<void>((resolve) =>
      // Within an I/O callback Node runs immediates before timers, always.
      stat('.', () => {
        setTimeout(() => (order.push('timeout'), resolve()), 0);
        liveScheduler.schedule(() => order.push('now'));
      }),
    );
    expect(order).to.deep.equal(['now', 'timeout']);
  });

  it('yields to the event loop: what was queued before it runs first', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('earlier immediate'));
    liveScheduler.schedule(() => order.push('work'));
    await settle();
    expect(order).to.deep.equal(['earlier immediate', 'work']);
  });

  it('passes the state, reschedules through this.schedule, and runs delayed work on a timer', async () => {
    const seen: number[] = [];
    await new Promise<void>((done) =>
      liveScheduler.schedule<number>(
        function (n) {
          seen.push(n!);
          if (n! < 3) this.schedule(n! + 1, n === 2 ? 5 : 0);
          else done();
        },
        0,
        1,
      ),
    );
    expect(seen).to.deep.equal([1, 2, 3]);
  });

  it('reschedules an action in place: every run of a work rescheduled from itself is the action schedule returned', async () => {
    const runs: unknown[] = [];
    let first!: unknown;
    await new Promise<void>((done) => {
      first = liveScheduler.schedule<number>(
        function (n) {
          runs.push(this);
          if (n! < 4) expect(this.schedule(n! + 1, n! % 2 ? 0 : 2)).to.equal(this);
          else done();
        },
        1,
        1,
      );
    });
    expect(runs).to.have.length(4);
    for (const run of runs) expect(run).to.equal(first);
  });

  it('cancels a rescheduled action by the subscription schedule first returned', async () => {
    let ran = 0;
    const action = liveScheduler.schedule(function () {
      if (++ran === 1) this.schedule(undefined, 2);
    }, 1);
    await new Promise<void>((resolve) => liveScheduler.schedule(() => resolve(), 1));
    expect(ran).to.equal(1);
    action.unsubscribe();
    await new Promise<void>((resolve) => liveScheduler.schedule(() => resolve(), 10));
    expect(ran).to.equal(1);
  });

  it('does not run work whose subscription was unsubscribed, now or later', async () => {
    let ran = 0;
    liveScheduler.schedule(() => ran++).unsubscribe();
    liveScheduler.schedule(() => ran++, 5).unsubscribe();
    // Timers of one delay fire in the order they were set: had the cancelled work run, it would have by now.
    await new Promise<void>((resolve) => liveScheduler.schedule(() => resolve(), 5));
    expect(ran).to.equal(0);
  });

  describe('work due at the same millisecond', () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    let now = 0;
    beforeEach(() => {
      now = Date.now();
      dateTimestampProvider.delegate = { now: () => now };
    });
    afterEach(() => (dateTimestampProvider.delegate = undefined));

    it('shares one timer, runs each work once in the order scheduled, and passes each its state', async () => {
      const before = timers();
      const seen: number[] = [];
      let last!: Promise<void>;
      const start = now;
      for (let n = 0; n < 100; n++) {
        // Scheduled at different clock readings, due at the same instant.
        now = start + (n % 2);
        last = new Promise<void>((resolve) =>
          liveScheduler.schedule<number>((k) => (seen.push(k!), resolve()), 40 - (n % 2), n),
        );
      }
      expect(timers()).to.equal(before + 1);
      await last;
      expect(seen).to.deep.equal(Array.from({ length: 100 }, (_, n) => n));
    });

    it('runs an action an earlier one of its instant moved to a later instant then, not now', async () => {
      const seen: string[] = [];
      let later!: Subscription & Pick<SchedulerAction<void>, 'schedule'>;
      liveScheduler.schedule(() => {
        seen.push(`first at ${now}`);
        later.schedule(undefined, 20);
      }, 30);
      later = liveScheduler.schedule(() => seen.push(`later at ${now}`), 30) as typeof later;
      // Both are due at the same instant; the first moves the second 20 ms on.
      const start = now;
      await new Promise<void>((resolve) => liveScheduler.schedule(() => resolve(), 30));
      now = start + 5;
      await new Promise<void>((resolve) => liveScheduler.schedule(() => resolve(), 40));
      expect(seen).to.deep.equal([`first at ${start}`, `later at ${start + 5}`]);
    });

    it('clears the timer of an instant once all its work is unsubscribed: a cancelled wait does not hold the process', () => {
      const before = timers();
      const subscriptions = Array.from({ length: 10 }, () => liveScheduler.schedule(() => undefined, 86_400_000));
      try {
        expect(timers()).to.equal(before + 1);
        subscriptions.slice(1).forEach((s) => s.unsubscribe());
        expect(timers()).to.equal(before + 1);
        subscriptions[0]!.unsubscribe();
        expect(timers()).to.equal(before);
      } finally {
        subscriptions.forEach((s) => s.unsubscribe());
      }
    });
  });

  it('reads the wall clock', () => {
    expect(liveScheduler.now()).to.be.within(Date.now() - 5, Date.now() + 5);
  });
});
