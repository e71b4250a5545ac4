import { expect } from 'chai';
import { of } from 'rxjs';
import { longTimer, MAX_TIMER_DELAY } from '../../operators/long-timer.js';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { recordingDelays as recording } from '../support/delays.js';
import { virtualTime } from '../support/marbles.js';

const DAY = 86_400_000;

describe('longTimer', () => {
  it('fires once, at its delay, however far beyond the timer range it lies', () => {
    const test = virtualTime();
    const { scheduler, delays } = recording(test);
    test.run(({ expectObservable }) => {
      expectObservable(longTimer(30 * DAY, scheduler)).toBe(`${30 * DAY}ms (0|)`, { 0: 0 });
      expectObservable(longTimer(5, scheduler)).toBe('5ms (0|)', { 0: 0 });
    });
    expect(delays.length).to.be.above(2);
    expect(Math.max(...delays)).to.be.at.most(MAX_TIMER_DELAY);
  });

  it('never fires for an infinite delay, and fires at once for a negative one', () => {
    virtualTime().run(({ expectObservable }) => {
      expectObservable(longTimer(Number.POSITIVE_INFINITY), '^ 100ms !').toBe('');
      expectObservable(longTimer(-5)).toBe('(0|)', { 0: 0 });
    });
  });

  it('is told a delay that is not a number, or a scheduler that is not one, when it is made', () => {
    expect(() => longTimer(Number.NaN)).to.throw(RangeError, 'longTimer: delay must be a number, got NaN');
    expect(() => longTimer('5' as never)).to.throw(TypeError, 'longTimer: delay must be a number, got "5"');
    expect(() => longTimer(5, {} as never)).to.throw(
      RangeError,
      'longTimer: scheduler must be an object with now(), schedule()',
    );
  });
});

describe('ticks over a duration beyond the timer range', () => {
  it('ends a 30-day run at 30 days and never asks its scheduler for a delay beyond 2^31 - 1 ms', () => {
    const test = virtualTime();
    test.run(() => {
      const { scheduler, delays } = recording(test);
      // One event every 1 000 000 s (11.6 days): ticks at 0, 11.6 and 23.1 days.
      const source = of(RateSchedule.constant(0.000001)).pipe(ticks({ scheduler, duration: 30 * DAY }));
      const batches: number[] = [];
      source.subscribe({ next: (b) => batches.push(b.offset[0]!), complete: () => batches.push(test.now()) });
      test.flush();
      expect(batches.map(Math.round)).to.deep.equal([0, 1e9, 2e9, 30 * DAY]);
      expect(Math.max(...delays)).to.be.at.most(MAX_TIMER_DELAY);
    });
  });
});
