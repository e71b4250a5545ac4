import { expect } from 'chai';
import { BehaviorSubject, of, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks, type SlotPattern } from '../../operators/ticks.js';
import { timestampOf, type TickBatch } from '../../operators/model/batch.js';
import { collect, perTick, virtualTime } from '../support/marbles.js';

const slot = (b: TickBatch, i: number) => b.index[i]!;

describe('ticks', () => {
  it('emits one tick per deadline and completes at the duration', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(100)).pipe(ticks({ duration: 40 }), perTick(slot));
      expectObservable(source).toBe('a 9ms b 9ms c 9ms d 9ms |', { a: 0, b: 1, c: 2, d: 3 });
    });
  });

  it('wakes at whole milliseconds but keeps exact scheduled offsets', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(3)).pipe(
        ticks({ duration: 1000 }),
        perTick((b, i) => b.offset[i]),
      );
      expectObservable(source).toBe('a 333ms b 332ms c 332ms |', { a: 0, b: 1000 / 3, c: 2000 / 3 });
    });
  });

  it('emits the ticks at 0, 1/rate, … before the duration', () => {
    for (const [rate, duration] of [
      [7, 1000],
      [0.5, 5000],
      [0.3, 10_000],
      [1000, 2500],
      [3, 3_600_000],
    ] as const) {
      const offsets = collect(of(RateSchedule.constant(rate)).pipe(ticks({ duration })), (b, i) => b.offset[i]!);
      expect(offsets, `rate ${rate}`).to.have.length(Math.ceil((duration * rate) / 1000));
      expect(offsets.at(-1)!, `rate ${rate}`).to.be.below(duration);
    }
  });

  it('puts a slot whose exact time is a whole microsecond at it, so a duration ending there leaves it out', () => {
    // n / rate in floating point put these slots a hair before the duration's end: one event too many, stamped at it.
    for (const [rate, duration, burst] of [
      [2.1, 10_000],
      [0.005, 200_000],
      [0.017, 1_000_000],
      [39.2, 5000, { every: 1000, for: 500, multiplier: 1.5 }],
    ] as const) {
      const schedule = burst ? RateSchedule.constant(rate).withBurst(burst) : RateSchedule.constant(rate);
      const offsets = collect(of(schedule).pipe(ticks({ duration })), (b, i) => b.offset[i]!);
      const expected = burst ? (duration / burst.every) * 49 : (duration * rate) / 1000;
      expect(offsets, `rate ${rate}`).to.have.length(expected);
      expect(schedule.timeOf(expected), `rate ${rate}`).to.equal(duration);
    }
  });

  it('has no cumulative drift: tick n is due at n / rate', () => {
    const offsets = collect(of(RateSchedule.constant(3)).pipe(ticks({ duration: 3_600_000 })), (b, i) => b.offset[i]!);
    expect(offsets[10_799]).to.equal(10_799 * (1000 / 3));
  });

  it('splits a high rate into bounded batches, one wake-up per millisecond', () => {
    const sizes: number[] = [];
    const frames = new Set<number>();
    const scheduler = virtualTime();
    scheduler.run(({ flush }) => {
      of(RateSchedule.constant(1_000_000))
        .pipe(ticks({ duration: 5, maxBatch: 300 }))
        .subscribe((batch) => {
          sizes.push(batch.size);
          frames.add(scheduler.now());
        });
      flush();
    });
    expect(sizes.reduce((a, b) => a + b, 0)).to.equal(5000);
    expect(Math.max(...sizes)).to.equal(300);
    expect([...frames]).to.deep.equal([0, 1, 2, 3, 4, 5]);
  });

  it('catches up the ticks that fell due while paused, in one batch', () => {
    virtualTime().run(({ expectObservable, cold }) => {
      const paused = new BehaviorSubject(false);
      cold('5ms a 44ms b', { a: true, b: false }).subscribe(paused);
      const source = of(RateSchedule.constant(100)).pipe(ticks({ duration: 80, paused }), perTick(slot));
      expectObservable(source).toBe('a 49ms (bcdef) 3ms g 9ms h 9ms |', {
        a: 0,
        b: 1,
        c: 2,
        d: 3,
        e: 4,
        f: 5,
        g: 6,
        h: 7,
      });
    });
  });

  it('errors the stream with what onShortfall throws at the end of a paused run, instead of letting it escape', () => {
    const broken = new Error('the shortfall handler broke');
    virtualTime().run(({ expectObservable }) => {
      const paused = new BehaviorSubject(true);
      const source = of(RateSchedule.constant(100)).pipe(
        ticks({
          duration: 30,
          paused,
          onShortfall: () => {
            throw broken;
          },
        }),
        perTick(slot),
      );
      expectObservable(source).toBe('30ms #', undefined, broken);
    });
  });

  it('ends at its duration even while still paused, dropping what it could not emit', () => {
    virtualTime().run(({ expectObservable, cold }) => {
      const paused = new BehaviorSubject(false);
      cold('5ms a', { a: true }).subscribe(paused);
      const source = of(RateSchedule.constant(100)).pipe(ticks({ duration: 30, paused }), perTick(slot));
      expectObservable(source).toBe('a 29ms |', { a: 0 });
    });
  });

  it('tells the slots it dropped at its duration, once, a shard counting its own slots only; nothing when it kept up', () => {
    const shortfalls = (pausedFrom: string | undefined, slots?: SlotPattern) => {
      const told: number[] = [];
      virtualTime().run(({ expectObservable, cold }) => {
        const paused = new BehaviorSubject(false);
        if (pausedFrom) cold(pausedFrom, { a: true }).subscribe(paused);
        const source = of(RateSchedule.constant(100)).pipe(
          ticks({ duration: 80, paused, slots, onShortfall: (missed) => told.push(missed) }),
        );
        // Slots 0 to 7 fall due before 80 ms.
        expectObservable(source.pipe(perTick(slot))).toBe(
          !pausedFrom ? 'a 9ms b 9ms c 9ms d 9ms e 9ms f 9ms g 9ms h 9ms |' : slots ? '80ms |' : 'a 79ms |',
          { a: 0, b: 1, c: 2, d: 3, e: 4, f: 5, g: 6, h: 7 },
        );
      });
      return told;
    };
    expect(shortfalls(undefined)).to.deep.equal([]);
    // Paused from 5 ms: only slot 0 went out.
    expect(shortfalls('5ms a')).to.deep.equal([7]);
    // The shard's slots before 8 are 1, 2, 4, 5 and 7, none of them out.
    expect(shortfalls('5ms a', { period: 3, residues: [1, 2] })).to.deep.equal([5]);
  });

  it('emits the slots of the next `ahead` ms at each wake-up, never late, and still ends at its duration', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(100)).pipe(
        ticks({ duration: 80, ahead: 25 }),
        perTick((b, i) => b.offset[i]),
      );
      expectObservable(source).toBe('(abc) 25ms (def) 25ms (gh) 16ms |', {
        a: 0,
        b: 10,
        c: 20,
        d: 30,
        e: 40,
        f: 50,
        g: 60,
        h: 70,
      });
    });
  });

  it('starts when the first schedule arrives and stamps events from the anchor', () => {
    virtualTime().run(({ expectObservable, cold }) => {
      const schedules = cold('20ms a', { a: RateSchedule.constant(100) });
      const source = schedules.pipe(
        ticks({ duration: 20, anchor: (start) => 1_700_000_000_000 + start }),
        perTick((b, i) => timestampOf(b, i)),
      );
      expectObservable(source).toBe('20ms a 9ms b 9ms |', { a: 1_700_000_000_020, b: 1_700_000_000_030 });
    });
  });

  it('ends when its source completes before the first schedule: the entry never started, nothing is left waiting', () => {
    virtualTime().run(({ expectObservable, expectSubscriptions, cold }) => {
      const paused = cold<boolean>('f', { f: false });
      const schedules = cold<RateSchedule>('20ms |');
      expectObservable(schedules.pipe(ticks({ duration: 100, paused }))).toBe('20ms |');
      expectSubscriptions(paused.subscriptions).toBe('^ 19ms !');
    });
  });

  it('errors, naming it, when anchor gives no epoch ms: NaN or a number past a Date would be written on every event', () => {
    for (const [given, shown] of [
      [Number.NaN, 'NaN'],
      [1e300, '1e+300'],
    ] as const) {
      virtualTime().run(({ expectObservable }) => {
        const source = of(RateSchedule.constant(100)).pipe(ticks({ duration: 20, anchor: () => given }));
        expectObservable(source).toBe(
          '#',
          undefined,
          new RangeError(
            `ticks: what anchor returns must be epoch ms, a number from -8.64e15 to 8.64e15, got ${shown}`,
          ),
        );
      });
    }
  });

  it('counts from `start` when given: a schedule that arrives late catches up, and the duration ends on time', () => {
    virtualTime().run(({ expectObservable, cold }) => {
      // Due at 10 ms, arriving at 17 ms: ticks 0 (10 ms) is caught up at once, the rest fall on their own times.
      const schedules = cold('17ms a', { a: RateSchedule.constant(100) });
      const source = schedules.pipe(
        ticks({ start: 10, duration: 30, anchor: (start) => 1_700_000_000_000 + start }),
        perTick((b, i) => timestampOf(b, i)),
      );
      expectObservable(source).toBe('17ms a 2ms b 9ms c 9ms |', {
        a: 1_700_000_000_010,
        b: 1_700_000_000_020,
        c: 1_700_000_000_030,
      });
    });
  });

  it('switches to a new schedule from the moment it arrives', () => {
    virtualTime().run(({ expectObservable, cold }) => {
      const schedules = cold('a 11ms b', { a: RateSchedule.constant(100), b: RateSchedule.constant(200) });
      const source = schedules.pipe(
        ticks({ duration: 40 }),
        perTick((b, i) => b.offset[i]),
      );
      expectObservable(source).toBe('a 9ms b 4ms c 4ms d 4ms e 4ms f 4ms g 4ms |', {
        a: 0,
        b: 10,
        c: 15,
        d: 20,
        e: 25,
        f: 30,
        g: 35,
      });
    });
  });
});

describe('the timer of ticks', () => {
  /** Virtual time without a frame limit. */
  function unlimited() {
    const scheduler = virtualTime();
    scheduler.maxFrames = Infinity;
    return scheduler;
  }

  /** `scheduler`, recording the actions its `schedule` makes and the action each wake-up runs on. */
  function recording(scheduler: SchedulerLike) {
    const made: Subscription[] = [];
    const ran: SchedulerAction<unknown>[] = [];
    const recorder: SchedulerLike = {
      now: () => scheduler.now(),
      schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T) {
        const action = scheduler.schedule<T>(
          function (this: SchedulerAction<T>, value?: T) {
            ran.push(this as SchedulerAction<unknown>);
            work.call(this, value);
          },
          delay,
          state,
        );
        made.push(action);
        return action;
      },
    };
    return { recorder, made, ran };
  }

  /**
   * The slots a constant 1/s timer of `duration` ms emits on an unlimited virtual clock, run to the end through a
   * recording scheduler; `onBatch` sees the slots so far and what the recorder saw after each batch.
   */
  function recordedRun(
    duration: number,
    onBatch: (slots: number[], ran: SchedulerAction<unknown>[]) => void = () => {},
  ) {
    const scheduler = unlimited();
    const { recorder, made, ran } = recording(scheduler);
    const slots: number[] = [];
    of(RateSchedule.constant(1))
      .pipe(ticks({ scheduler: recorder, duration }))
      .subscribe((batch) => {
        slots.push(...batch.index);
        onBatch(slots, ran);
      });
    scheduler.flush();
    return { slots, made };
  }

  it('reschedules its one action from wake-up to wake-up instead of asking the scheduler for a new one each', () => {
    const { slots, made } = recordedRun(100_000);
    expect(slots).to.deep.equal(Array.from({ length: 100 }, (_, n) => n));
    // The deadline of the duration, and the timer's first wake-up: nothing more in 100 wake-ups.
    expect(made).to.have.length(2);
  });

  it('detaches the new action a virtual scheduler makes from the one that ran: cancelling that one cancels no later wake-up', () => {
    const { slots } = recordedRun(10_000, (slots, ran) => {
      // A VirtualAction rescheduled from its work makes a new one and adds it to itself: kept added, each
      // wake-up's action would hold (and cancel with) every one after it.
      if (slots.length === 3) ran[0]!.unsubscribe();
    });
    expect(slots).to.deep.equal(Array.from({ length: 10 }, (_, n) => n));
  });
});

describe('ticks of some slots only (a shard)', () => {
  it('emits only the slots whose number modulo the period is one of the residues, at their own times', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(100)).pipe(
        ticks({ duration: 80, slots: { period: 3, residues: [1, 2] } }),
        perTick(slot),
      );
      expectObservable(source).toBe('10ms a 9ms b 19ms c 9ms d 19ms e 9ms |', { a: 1, b: 2, c: 4, d: 5, e: 7 });
    });
  });

  it('fills whole batches of its own slots while behind, then waits for its next slot', () => {
    const batches: number[][] = [];
    const frames: number[] = [];
    const scheduler = virtualTime();
    scheduler.run(({ flush }) => {
      of(RateSchedule.constant(1_000_000))
        .pipe(ticks({ duration: 3, maxBatch: 300, slots: { period: 1000, residues: [0, 999] } }))
        .subscribe((batch) => {
          batches.push(Array.from(batch.index));
          frames.push(scheduler.now());
        });
      flush();
    });
    expect(batches).to.deep.equal([[0], [999, 1000], [1999, 2000], [2999]]);
    expect(frames).to.deep.equal([0, 1, 2, 3]);
    const sizes: number[] = [];
    virtualTime().run(({ flush }) => {
      of(RateSchedule.constant(1_000_000))
        .pipe(ticks({ duration: 2, maxBatch: 300, slots: { period: 2, residues: [1] } }))
        .subscribe((batch) => sizes.push(batch.size));
      flush();
    });
    expect(sizes).to.deep.equal([300, 200, 300, 200]);
  });

  it('emits nothing with no residue, and still ends at its duration', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(1000)).pipe(ticks({ duration: 50, slots: { period: 2, residues: [] } }));
      expectObservable(source).toBe('50ms |');
    });
  });

  it('leaves no timer behind once it ended, even with no slot of its own to wait for', () => {
    for (const residues of [[], [1]]) {
      const scheduler = virtualTime();
      scheduler.maxFrames = 1000;
      let completed = -1;
      of(RateSchedule.constant(10))
        .pipe(ticks({ duration: 500, scheduler, slots: { period: 2, residues } }))
        .subscribe({ complete: () => (completed = scheduler.now()) });
      scheduler.flush();
      expect(completed, `residues [${residues}]`).to.equal(500);
      // A timer still scheduled would keep a process (a worker of svc run --workers) alive after its end.
      expect(scheduler.actions, `residues [${residues}]`).to.deep.equal([]);
    }
  });
});

describe('slot counting past the exact integers', () => {
  it('refuses to count beyond 2^53 slots instead of looping on n + 1 === n', () => {
    expect(() => RateSchedule.constant(1e300).slotsBefore(1000)).to.throw(RangeError, /more than 2\^53 slots/);
    expect(() => RateSchedule.constant(3e15).slotsDueBy(4000)).to.throw(RangeError, /more than 2\^53 slots/);
    expect(RateSchedule.constant(1e6).slotsBefore(365 * 86_400_000)).to.equal(31_536_000_000_000);
  });

  it('names a burst when its multiplier is what makes too many slots, not the base rate alone', () => {
    const burst = { every: 10, for: 5, multiplier: 1e300 };
    expect(() => RateSchedule.constant(10).withBurst(burst).slotsBefore(5)).to.throw(
      RangeError,
      'more than 2^53 slots fall due within 5 ms at 10 events/s × 1e+300 (burst.multiplier): slot numbers would no longer be exact',
    );
  });

  it('names the base rate alone when it makes too many slots by itself, whatever the burst', () => {
    const burst = { every: 10, for: 5, multiplier: 2 };
    expect(() => RateSchedule.constant(1e300).withBurst(burst).slotsBefore(5)).to.throw(
      RangeError,
      'more than 2^53 slots fall due within 5 ms at 1e+300 events/s: slot numbers would no longer be exact',
    );
  });

  it('sends that error down the stream of ticks', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(1e300)).pipe(ticks({ duration: 1000 }));
      expectObservable(source).toBe(
        '#',
        undefined,
        new RangeError(
          'more than 2^53 slots fall due within 1000 ms at 1e+300 events/s: slot numbers would no longer be exact',
        ),
      );
    });
  });
});
