import { inHeadOf, onMicrosecondGrid, type Window } from './window.js';
import { check, checkWindow, POSITIVE } from '../internal/arguments.js';

/** A window during which the rate is multiplied. */
export interface Burst extends Window {
  readonly multiplier: number;
}

/** The integral of the rate is within a slot or two of the count: settling never takes more steps. */
const MAX_SETTLE = 1024;
/** Slot numbers stay exact integers up to here, settling included. */
const MAX_SLOT = Number.MAX_SAFE_INTEGER - MAX_SETTLE;

/** Throws once settling takes more steps than rounding can explain. */
function settling(step: number): void {
  if (step >= MAX_SETTLE) throw new RangeError('slot counting did not settle: the schedule disagrees with itself');
}

/** Throws unless `burst` is a window `0 < for < every` (ms) with a multiplier above 0, naming `operator`. */
export function checkBurst(operator: string, burst: Burst): void {
  checkWindow(operator, 'burst', burst);
  check(operator, 'burst.multiplier', burst.multiplier, POSITIVE);
}

/**
 * When each emission slot of an entry is due. Slot n is due at `timeOf(n)` milliseconds after
 * the entry start, an absolute deadline: however late a wake-up is, no drift accumulates.
 *
 * The rate is `rate` events per second, multiplied by `burst.multiplier` in the head
 * `[0, for)` of every burst cycle. Slots are the points where the integral of that rate
 * crosses a whole number, so a burst shortens the spacing only inside its window.
 */
export class RateSchedule {
  private readonly perMs: number;
  /** Slots in one burst cycle, and in its burst head. */
  private readonly cycleSlots: number;
  private readonly headSlots: number;
  /** Whether an offset lies in a burst window; the window converted once. */
  private readonly inBurst: (offset: number) => boolean;

  private constructor(
    /** Base rate, events per second. */
    readonly rate: number,
    readonly burst?: Burst,
  ) {
    check('RateSchedule', 'rate', rate, POSITIVE);
    this.perMs = rate / 1000;
    // A rate so small that its per-millisecond figure underflows would put every slot at infinity.
    if (
      !(this.perMs > 0) ||
      (burst && !(this.perMs * burst.multiplier > 0 && Number.isFinite(this.perMs * burst.multiplier)))
    ) {
      throw new RangeError(`rate ${this.rateText(this.perMs > 0)} is outside the range a schedule can represent`);
    }
    this.headSlots = burst ? burst.for * burst.multiplier * this.perMs : 0;
    this.cycleSlots = burst ? this.headSlots + (burst.every - burst.for) * this.perMs : Infinity;
    this.inBurst = burst ? inHeadOf(burst) : () => false;
  }

  /** A schedule of `rate` events per second. */
  static constant(rate: number): RateSchedule {
    return new RateSchedule(rate);
  }

  /** This schedule with a burst window. A schedule holds at most one burst window. `operator` names the caller. */
  withBurst(burst: Burst, operator = 'withBurst'): RateSchedule {
    if (this.burst)
      throw new Error(`${operator}: the schedule has a burst window already, and a rate schedule holds at most one`);
    checkBurst(operator, burst);
    return new RateSchedule(this.rate, burst);
  }

  /**
   * Offset in ms from the entry start at which slot n is due. A slot whose exact time is a whole microsecond, as the
   * slots at a duration's end or a window's edge are, is due at it (2.1/s: slot 21 at 10 000 ms, not 9 999.999…).
   */
  timeOf(n: number): number {
    return onMicrosecondGrid(this.rawTimeOf(n));
  }

  private rawTimeOf(n: number): number {
    const burst = this.burst;
    if (!burst) return n / this.perMs;
    const cycle = Math.floor(n / this.cycleSlots);
    const rest = n - cycle * this.cycleSlots;
    const start = cycle * burst.every;
    return rest < this.headSlots
      ? start + rest / (this.perMs * burst.multiplier)
      : start + burst.for + (rest - this.headSlots) / this.perMs;
  }

  /**
   * The rate for a message, with the burst multiplier when it is what makes the rate fail a check: when the base
   * rate alone passes it (`baseFits`).
   */
  private rateText(baseFits: boolean, unit = ''): string {
    return `${this.rate}${unit}${this.burst && baseFits ? ` × ${this.burst.multiplier} (burst.multiplier)` : ''}`;
  }

  /** Events per second in force at `offset` ms from the entry start. */
  rateAt(offset: number): number {
    return this.burst && this.inBurst(offset) ? this.rate * this.burst.multiplier : this.rate;
  }

  /** Number of slots due strictly before `offset` ms. */
  slotsBefore(offset: number): number {
    return this.countSlots(offset, false);
  }

  /** Number of slots due at or before `offset` ms. */
  slotsDueBy(offset: number): number {
    return this.countSlots(offset, true);
  }

  private countSlots(offset: number, inclusive: boolean): number {
    if (offset < 0 || (offset === 0 && !inclusive)) return 0;
    if (offset === Infinity) return Infinity;
    const due = (n: number) => (inclusive ? this.timeOf(n) <= offset : this.timeOf(n) < offset);
    // Start from the integral of the rate, then settle with timeOf itself so that counting
    // and scheduling agree to the last floating-point bit. Past 2^53, n + 1 === n: stop there.
    const estimate = Math.max(0, Math.ceil(this.integral(offset)));
    if (!(estimate <= MAX_SLOT)) {
      const baseFits = Math.ceil(offset * this.perMs) <= MAX_SLOT;
      throw new RangeError(
        `more than 2^53 slots fall due within ${offset} ms at ${this.rateText(baseFits, ' events/s')}: slot numbers would no longer be exact`,
      );
    }
    let n = estimate;
    for (let step = 0; n > 0 && !due(n - 1); step++, n--) settling(step);
    for (let step = 0; due(n); step++, n++) settling(step);
    return n;
  }

  /** Slots scheduled in [0, offset), as a real number. */
  private integral(offset: number): number {
    const burst = this.burst;
    if (!burst) return offset * this.perMs;
    const cycle = Math.floor(offset / burst.every);
    const within = offset - cycle * burst.every;
    const head = Math.min(within, burst.for);
    return cycle * this.cycleSlots + head * this.perMs * burst.multiplier + (within - head) * this.perMs;
  }
}
