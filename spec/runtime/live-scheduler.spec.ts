import { expect } from 'chai';
import { stat } from 'node:fs';
import { liveScheduler } from '../../lib/runtime/live-scheduler.js';

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
    await new Promise((resolve) => setImmediate(resolve));
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

  it('does not run work whose subscription was unsubscribed, now or later', async () => {
    let ran = 0;
    liveScheduler.schedule(() => ran++).unsubscribe();
    liveScheduler.schedule(() => ran++, 5).unsubscribe();
    // Timers of one delay fire in the order they were set: had the cancelled work run, it would have by now.
    await new Promise<void>((resolve) => liveScheduler.schedule(() => resolve(), 5));
    expect(ran).to.equal(0);
  });

  it('reads the wall clock', () => {
    expect(liveScheduler.now()).to.be.within(Date.now() - 5, Date.now() + 5);
  });
});
