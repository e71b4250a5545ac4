import { expect } from 'chai';
import fc from 'fast-check';
import { valueGenerator } from '../../lib/generators/value.js';
import { replayRow } from '../../lib/generators/replay.js';
import { SplitMix64 } from '../../lib/random.js';

const first = (gen: ReturnType<typeof valueGenerator>, count: number, spacingMs = 1000) =>
  Array.from({ length: count }, (_, n) => gen(n, n * spacingMs));

describe('value generators', () => {
  it('constant', () => {
    expect(first(valueGenerator({ type: 'constant', value: 42.5 }), 3)).to.deep.equal([42.5, 42.5, 42.5]);
  });

  it('step counts slots from start', () => {
    expect(first(valueGenerator({ type: 'step', start: 10, step_size: 2.5 }), 4)).to.deep.equal([10, 12.5, 15, 17.5]);
  });

  it('sequence repeats, or holds its last value', () => {
    expect(first(valueGenerator({ type: 'sequence', values: [1, 5, 9], repeat: true }), 7)).to.deep.equal([
      1, 5, 9, 1, 5, 9, 1,
    ]);
    expect(first(valueGenerator({ type: 'sequence', values: [1, 5, 9], repeat: false }), 5)).to.deep.equal([
      1, 5, 9, 9, 9,
    ]);
  });

  it('sine follows offset + amplitude·sin(2π·t/period) of the tick time', () => {
    const gen = valueGenerator({ type: 'sine', amplitude: 10, period_secs: 4, offset: 50 });
    const quarter = first(gen, 5).map((v) => Math.round(v * 1e9) / 1e9);
    expect(quarter).to.deep.equal([50, 60, 50, 40, 50]);
    expect(gen(0, 500)).to.be.closeTo(50 + 10 * Math.sin(Math.PI / 4), 1e-12);
  });
});

describe('value generators: uniform, sawtooth, spike, wrapping step', () => {
  const finite = fc.double({ min: -1e6, max: 1e6, noNaN: true });
  const tick = fc.nat({ max: 1e9 });

  it('uniform is min + (max − min)·u(seed, n), u from SplitMix64: within [min, max), the same for the same seed', () => {
    fc.assert(
      fc.property(
        finite,
        fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        fc.integer(),
        tick,
        (min, width, seed, n) => {
          const max = min + width;
          const value = valueGenerator({ type: 'uniform', min, max, seed })(n, 0);
          expect(value).to.equal(min + new SplitMix64(seed).unit(n) * (max - min));
          expect(value).to.be.at.least(min).and.below(max);
        },
      ),
    );
    const draws = first(valueGenerator({ type: 'uniform', min: 0, max: 1, seed: 7 }), 1000);
    expect(new Set(draws).size).to.equal(1000);
    expect(draws.reduce((a, b) => a + b) / draws.length).to.be.closeTo(0.5, 0.05);
  });

  it('sawtooth ramps from min toward max over period_secs of the tick time, then resets to min', () => {
    const gen = valueGenerator({ type: 'sawtooth', min: 10, max: 20, period_secs: 4 });
    expect(first(gen, 9)).to.deep.equal([10, 12.5, 15, 17.5, 10, 12.5, 15, 17.5, 10]);
    // Times on the microsecond grid (where slots due at a whole microsecond lie), the period reckoned in microseconds.
    const microseconds = fc.integer({ min: 0, max: 1e15 });
    fc.assert(
      fc.property(microseconds, (us) => {
        const value = gen(0, us / 1000);
        expect(value).to.be.closeTo(10 + 10 * ((us % 4e6) / 4e6), 1e-9);
        expect(value).to.be.at.least(10).and.below(20);
      }),
    );
  });

  it('spike, sawtooth and a csv_replay timescale start each period at its exact time, where × 1000 rounds up', () => {
    // 2.007 × 1000 is 2007.0000000000002: the spike opened 1 ms late (none at 2007 and 4014 ms), the sawtooth wrapped late.
    const spike = valueGenerator({
      type: 'spike',
      baseline: 0,
      magnitude: 100,
      duration_secs: 0.002,
      interval_secs: 2.007,
    });
    expect([2006, 2007, 2008, 2009, 4013, 4014].map((t) => spike(0, t))).to.deep.equal([0, 100, 100, 0, 0, 100]);
    const sawtooth = valueGenerator({ type: 'sawtooth', min: 0, max: 2007, period_secs: 2.007 });
    expect([2006, 2007, 4014].map((t) => sawtooth(0, t))).to.deep.equal([2006, 0, 0]);
    // A period of 1.1 ms: 3.3 % 1.1 is 1.0999999999999996 in ms, which left out the spike opening at 3.3 ms.
    const fast = valueGenerator({
      type: 'spike',
      baseline: 0,
      magnitude: 1,
      duration_secs: 0.001,
      interval_secs: 0.0011,
    });
    expect([1.1, 2.2, 3.3, 5.5, 6.6, 11].map((t) => fast(0, t))).to.deep.equal([1, 1, 1, 1, 1, 1]);
    // A period of 12.3 ms: 36.9 % 12.3 is 12.299999999999997 in ms, which wrote the top of the ramp at three periods.
    const ramp = valueGenerator({ type: 'sawtooth', min: 0, max: 100, period_secs: 0.0123 });
    expect([12.3, 24.6, 36.9, 73.8].map((t) => ramp(0, t))).to.deep.equal([0, 0, 0, 0]);
    expect([36.9, 73.8].map((t) => fast(0, t))).to.deep.equal([1, 1]);
    // 90 ms at timescale 0.7 is 63 ms of the CSV's time, not 62.99…: the row at 63 ms is in force.
    expect(replayRow({ at: [0, 63], span: 126 }, true, 0.7)(90)).to.equal(1);
    // A pass of 41.1 ms: 123.3 % 41.1 is 41.09999999999999 in ms, which read the last row where the third repeat starts.
    const rows = replayRow({ at: [0, 13.7, 27.4], span: 41.1 }, true, 1);
    expect([41.1, 82.2, 123.3, 137, 164.4].map(rows)).to.deep.equal([0, 0, 0, 1, 0]);
    expect([27.4, 41.1, 1e6].map(replayRow({ at: [0, 13.7, 27.4], span: 41.1 }, false, 1))).to.deep.equal([2, 2, 2]);
  });

  it('uniform and sawtooth over a range wider than the doubles (-1e308 to 1e308) stay finite and within it', () => {
    // max − min overflows: the values were +Inf, and NaN where the fraction is 0 (the sawtooth's start).
    const uniform = first(valueGenerator({ type: 'uniform', min: -1e308, max: 1e308, seed: 3 }), 100);
    const sawtooth = first(valueGenerator({ type: 'sawtooth', min: -1e308, max: 1e308, period_secs: 4 }), 5);
    for (const value of [...uniform, ...sawtooth]) expect(value).to.be.within(-1e308, 1e308);
    expect(sawtooth).to.deep.equal([-1e308, -5e307, 0, 5e307, -1e308]);
  });

  it('spike is baseline + magnitude for the first duration_secs of every interval_secs, else baseline', () => {
    const gen = valueGenerator({ type: 'spike', baseline: 5, magnitude: 90, duration_secs: 2, interval_secs: 5 });
    expect(first(gen, 11)).to.deep.equal([95, 95, 5, 5, 5, 95, 95, 5, 5, 5, 95]);
    // Times on the microsecond grid (where slots due at a whole microsecond lie), the cycle reckoned in microseconds.
    const microseconds = fc.integer({ min: 0, max: 1e15 });
    fc.assert(fc.property(microseconds, (us) => void expect(gen(0, us / 1000)).to.equal(us % 5e6 < 2e6 ? 95 : 5)));
  });

  it('step with max counts start, start + step_size, … up to the last value below max, then wraps back to start', () => {
    // The reference tool's wrap: max itself is never written, so max 5 by 1 is 0 … 4.
    expect(first(valueGenerator({ type: 'step', start: 0, step_size: 1, max: 5 }), 7)).to.deep.equal([
      0, 1, 2, 3, 4, 0, 1,
    ]);
    expect(first(valueGenerator({ type: 'step', start: 0, step_size: 25, max: 100 }), 6)).to.deep.equal([
      0, 25, 50, 75, 0, 25,
    ]);
    expect(first(valueGenerator({ type: 'step', start: 0, step_size: 0.1, max: 0.3 }), 4)).to.deep.equal([
      0, 0.1, 0.2, 0,
    ]);
    expect(first(valueGenerator({ type: 'step', start: 1, step_size: 2, max: 6 }), 5)).to.deep.equal([1, 3, 5, 1, 3]);
    // Cycles of any length keep every value below max and no other: 10^13 and 2^52 steps.
    for (const max of [1e13, 2 ** 52]) {
      const step = valueGenerator({ type: 'step', start: 0, step_size: 1, max });
      expect([step(max - 1, 0), step(max, 0)], String(max)).to.deep.equal([max - 1, 0]);
    }
    // Where max − start overflows the double range, or step_size lies far below start's precision, the cycle is
    // still found, and at once: counting it one step at a time from (max − start) / step_size had looped for ever
    // (svc run, --dry-run with an `after` on it, and svc-server's POST /preview hung).
    const wide = valueGenerator({ type: 'step', start: -1e308, step_size: 1e308, max: 1e308 });
    expect([0, 1, 2].map((n) => wide(n, 0))).to.deep.equal([-1e308, 0, -1e308]);
    const fine = valueGenerator({ type: 'step', start: 1e16, step_size: 1e-15, max: 1e16 + 2 });
    expect([fine(1e15, 0), fine(1e15 + 1, 0)]).to.deep.equal([1e16, 1e16]);
    fc.assert(
      fc.property(
        finite,
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        fc.integer({ min: 1, max: 1000 }),
        tick,
        (start, step, steps, n) => {
          const max = start + step * steps;
          fc.pre(max > start);
          const value = valueGenerator({ type: 'step', start, step_size: step, max })(n, 0);
          expect(value)
            .to.be.at.least(start)
            .and.at.most(max + 1e-6 * Math.abs(max));
        },
      ),
    );
  });
});
