import { expect } from 'chai';
import { of } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { bursts } from '../../operators/bursts.js';
import { gaps, gapWindows, silences } from '../../operators/gaps.js';
import { generate } from '../../operators/generate.js';
import type { TickBatch } from '../../operators/model/batch.js';
import { collect, perTick, virtualTime } from '../support/marbles.js';

const tick = (b: TickBatch, i: number) => ({ n: b.index[i]!, at: b.offset[i]! });

describe('gaps', () => {
  it('silences the tail of every cycle and keeps counting the slots', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(100)).pipe(
        ticks({ duration: 80 }),
        gaps({ every: 40, for: 20 }),
        perTick((b, i) => b.index[i]),
      );
      expectObservable(source).toBe('a 9ms b 29ms c 9ms d 29ms |', { a: 0, b: 1, c: 4, d: 5 });
    });
  });

  it('lets counters resume as if time had passed', () => {
    const values = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 2000 }),
        generate((n) => 100 + n),
        gaps({ every: 1000, for: 300 }),
      ),
      (b, i) => b.value[i]!,
    );
    expect(values).to.deep.equal([100, 101, 102, 103, 104, 105, 106, 110, 111, 112, 113, 114, 115, 116]);
  });

  it('beats a burst: no event in a burst window that falls inside a gap', () => {
    const at = collect(
      of(RateSchedule.constant(10)).pipe(
        bursts({ every: 500, for: 200, multiplier: 5 }),
        ticks({ duration: 1000 }),
        gaps({ every: 1000, for: 600 }),
      ),
      tick,
    ).map(({ at }) => Math.round(at));
    // Burst [0, 200) emits every 20 ms; gap [400, 1000) hides the second burst [500, 700) entirely.
    expect(at).to.deep.equal([0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200, 300]);
  });

  it('silences a slot due exactly where a gap starts, whatever floating point makes of n / rate', () => {
    // At 0.005/s slot 1 is due at 200 s, which n / rate put at 199 999.99…: it escaped both silences.
    for (const silence of [
      gaps<TickBatch>({ every: 400_000, for: 200_000 }),
      gapWindows<TickBatch>([{ at: 200_000, for: 1000 }]),
    ]) {
      const kept = collect(of(RateSchedule.constant(0.005)).pipe(ticks({ duration: 400_000 }), silence), tick);
      expect(kept).to.deep.equal([{ n: 0, at: 0 }]);
    }
  });

  it('silences the tail of a sub-millisecond cycle from its first tick to its last, the cycle reckoned in microseconds', () => {
    // 10 000/s in a 0.2 ms cycle whose tail is 0.1 ms: every odd slot is silent. In ms, 0.6 % 0.2 is
    // 0.19999999999999996 and 0.3 % 0.2 is 0.09999999999999998, which silenced slot 6 and kept slot 3.
    const kept = collect(
      of(RateSchedule.constant(10_000)).pipe(ticks({ duration: 10 }), gaps({ every: 0.2, for: 0.1 })),
      tick,
    ).map(({ n }) => n);
    expect(kept).to.deep.equal(Array.from({ length: 50 }, (_, i) => 2 * i));
  });

  it('drops a batch that falls wholly in a gap instead of emitting an empty one', () => {
    const sizes: number[] = [];
    virtualTime().run(({ flush }) => {
      of(RateSchedule.constant(100))
        .pipe(ticks({ duration: 100 }), gaps({ every: 100, for: 50 }))
        .subscribe((b) => sizes.push(b.size));
      flush();
    });
    expect(sizes).to.deep.equal([1, 1, 1, 1, 1]);
  });
});

describe('gapWindows (one-shot silences)', () => {
  it('silences each window [at, at + for) once, keeping the slot numbers', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(100)).pipe(
        ticks({ duration: 80 }),
        gapWindows([
          { at: 10, for: 20 },
          { at: 50, for: 10 },
        ]),
        perTick((b, i) => b.index[i]),
      );
      expectObservable(source).toBe('a 29ms b 9ms c 19ms d 9ms e 9ms |', { a: 0, b: 3, c: 4, d: 6, e: 7 });
    });
  });

  it('is half-open: the tick at `at` is silent, the one at `at + for` is not; at 0 starts silent', () => {
    const at = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 1000 }),
        gapWindows([
          { at: 0, for: 200 },
          { at: 500, for: 200 },
        ]),
      ),
      tick,
    ).map(({ at }) => Math.round(at));
    expect(at).to.deep.equal([200, 300, 400, 700, 800, 900]);
  });

  it('ends a window on the microsecond grid: the tick at `at + for` is heard though `at + for` is a hair past it in ms', () => {
    // At 10 000/s a tick every 0.1 ms; 0.1 + 0.2 is 0.30000000000000004, which silenced the tick at 0.3 ms too.
    // 0.7 + 0.1 (0.7999999999999999) ends at 0.8 ms as well.
    const kept = collect(
      of(RateSchedule.constant(10_000)).pipe(
        ticks({ duration: 1 }),
        gapWindows([
          { at: 0.1, for: 0.2 },
          { at: 0.7, for: 0.1 },
        ]),
      ),
      tick,
    ).map(({ n }) => n);
    expect(kept).to.deep.equal([0, 3, 4, 5, 6, 8, 9]);
  });

  it('joins windows that touch or overlap, in any order, into one silence', () => {
    const at = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 1000 }),
        gapWindows([
          { at: 600, for: 100 },
          { at: 200, for: 200 },
          { at: 400, for: 100 },
          { at: 300, for: 50 },
        ]),
      ),
      tick,
    ).map(({ at }) => Math.round(at));
    expect(at).to.deep.equal([0, 100, 500, 700, 800, 900]);
  });

  it('lets values resume on the slot due when the silence ends, nothing caught up', () => {
    const values = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 1000 }),
        generate((n) => 100 + n),
        gapWindows([{ at: 300, for: 400 }]),
      ),
      (b, i) => b.value[i]!,
    );
    expect(values).to.deep.equal([100, 101, 102, 107, 108, 109]);
  });

  it('composes with a recurring gap: either silence drops a tick', () => {
    const at = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 1000 }),
        gaps({ every: 500, for: 100 }),
        gapWindows([{ at: 100, for: 100 }]),
      ),
      tick,
    ).map(({ at }) => Math.round(at));
    expect(at).to.deep.equal([0, 200, 300, 500, 600, 700, 800]);
  });
});

describe('silences (both silences in one stage)', () => {
  const kept = (stage: ReturnType<typeof silences<TickBatch>>) =>
    collect(of(RateSchedule.constant(10)).pipe(ticks({ duration: 1000 }), stage), tick).map(({ at }) => Math.round(at));

  it('drops what gaps or gapWindows would, overlapping unsorted windows as one silence', () => {
    expect(
      kept(
        silences({ every: 500, for: 100 }, [
          { at: 600, for: 100 },
          { at: 100, for: 100 },
          { at: 150, for: 100 },
        ]),
      ),
    ).to.deep.equal([0, 300, 500, 700, 800]);
  });

  it('applies the one given, and keeps every tick given neither', () => {
    expect(kept(silences({ every: 500, for: 100 }, undefined))).to.deep.equal([0, 100, 200, 300, 500, 600, 700, 800]);
    expect(kept(silences(undefined, [{ at: 100, for: 700 }]))).to.deep.equal([0, 800, 900]);
    expect(kept(silences(undefined, undefined))).to.have.length(10);
  });

  it('keeps the ticks of its marble diagram: a gap in the tail of every 4, a window over tick 1', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(1000)).pipe(
        ticks({ duration: 8 }),
        silences({ every: 4, for: 1 }, [{ at: 1, for: 1 }]),
        perTick((b, i) => b.index[i]),
      );
      expectObservable(source).toBe('a-c-efg-|', { a: 0, c: 2, e: 4, f: 5, g: 6 });
    });
  });

  it('names itself, not gaps or gapWindows, in what a wrong argument throws', () => {
    expect(() => silences({ every: 100, for: 200 }, undefined)).to.throw(
      RangeError,
      'silences: window.for must be shorter than window.every (100 ms), got 200 ms',
    );
    expect(() => silences(undefined, [{ at: -1, for: 10 }])).to.throw(
      RangeError,
      'silences: windows[0].at must be a finite number ≥ 0, got -1',
    );
  });
});
