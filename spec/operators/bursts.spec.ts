import { expect } from 'chai';
import { of } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { bursts } from '../../operators/bursts.js';
import { collect, perTick, virtualTime } from '../support/marbles.js';

describe('bursts', () => {
  it('multiplies the rate in the head of every cycle and keeps the base rate elsewhere', () => {
    // 10/s, ×5 in [0, 200) of every second: 10 ticks 20 ms apart, then 8 ticks 100 ms apart.
    const at = collect(
      of(RateSchedule.constant(10)).pipe(bursts({ every: 1000, for: 200, multiplier: 5 }), ticks({ duration: 2000 })),
      (b, i) => b.offset[i]!,
    );
    const cycle = [0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200, 300, 400, 500, 600, 700, 800, 900];
    expect(at.map((t) => Math.round(t * 1e6) / 1e6)).to.deep.equal([...cycle, ...cycle.map((t) => t + 1000)]);
  });

  it('counts every burst event as a tick of its own', () => {
    const slots = collect(
      of(RateSchedule.constant(10)).pipe(bursts({ every: 1000, for: 200, multiplier: 5 }), ticks({ duration: 1000 })),
      (b, i) => b.index[i]!,
    );
    expect(slots).to.deep.equal(Array.from({ length: 18 }, (_, n) => n));
  });

  it('emits bursts at their frames in virtual time', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(50)).pipe(
        bursts({ every: 100, for: 40, multiplier: 2 }),
        ticks({ duration: 100 }),
        perTick((b, i) => b.index[i]),
      );
      // 100/s (10 ms) in [0, 40), 50/s (20 ms) in [40, 100).
      expectObservable(source).toBe('a 9ms b 9ms c 9ms d 9ms e 19ms f 19ms g 19ms |', {
        a: 0,
        b: 1,
        c: 2,
        d: 3,
        e: 4,
        f: 5,
        g: 6,
      });
    });
  });

  it('also slows down with a multiplier below 1', () => {
    const at = collect(
      of(RateSchedule.constant(10)).pipe(bursts({ every: 1000, for: 500, multiplier: 0.5 }), ticks({ duration: 1000 })),
      (b, i) => b.offset[i]!,
    );
    // 5/s in [0, 500): 2.5 slots; the half slot carries over, so the next tick is 50 ms into the base rate.
    expect(at.map(Math.round)).to.deep.equal([0, 200, 400, 550, 650, 750, 850, 950]);
  });

  it('reports the rate in force', () => {
    const schedule = RateSchedule.constant(10).withBurst({ every: 1000, for: 200, multiplier: 3 });
    expect([schedule.rateAt(0), schedule.rateAt(199), schedule.rateAt(200), schedule.rateAt(1100)]).to.deep.equal([
      30, 30, 10, 30,
    ]);
  });

  it('refuses an invalid window when it is made, naming the field', () => {
    expect(() => bursts({ every: 100, for: 100, multiplier: 2 })).to.throw(
      RangeError,
      'bursts: burst.for must be shorter than burst.every (100 ms), got 100 ms',
    );
  });

  it('errors the stream on a schedule that has a burst already, naming the operator', () => {
    let error: unknown;
    of(RateSchedule.constant(1).withBurst({ every: 100, for: 10, multiplier: 2 }))
      .pipe(bursts({ every: 100, for: 50, multiplier: 2 }))
      .subscribe({ error: (e) => (error = e) });
    expect(String(error)).to.equal(
      'Error: bursts: the schedule has a burst window already, and a rate schedule holds at most one',
    );
  });
});
