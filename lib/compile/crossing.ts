/**
 * When does an `after` trigger fire? The first tick of the watched entry whose value satisfies
 * the strict comparison, computed from its generator where that is possible (no jitter): constant,
 * sequence, step and sine by their shape; the others by their range, then by looking at their
 * first ticks. Ticks are the same slots the runtime emits (`RateSchedule`, bursts
 * included, none at or after `duration`), and values the same generator function, so the answer
 * is the tick the runtime trigger will see. Gaps do not matter: the trigger watches generated
 * values, also those a gap keeps from being emitted (docs/timing.md).
 */
import { rateScheduleOf } from '../config/entry.js';
import type { Entry } from '../config/types.js';
import type { After } from '../language/fields.js';
import { stepCycle, valueGenerator } from '../generators/value.js';
import { formatMs } from '../format.js';
import type { GeneratorConfig } from '../language/types.js';

export type Crossing =
  /** The first tick satisfying the condition, `offset` ms after the watched entry's start. */
  | { readonly kind: 'tick'; readonly tick: number; readonly offset: number; readonly value: number }
  /** No tick ever satisfies it: `reason` completes "<ref> never goes above <value> …". */
  | { readonly kind: 'never'; readonly reason: string }
  /** Only the running entry can tell (jitter, or ticks landing rarely in a narrow sine window). */
  | { readonly kind: 'runtime'; readonly reason: string };

/** Sine windows looked at before giving the question to the runtime. */
const MAX_WINDOWS = 10_000;
/**
 * Steps (values computed, sine windows opened) the searches of one file may take together, so
 * that compiling a file of many `after` entries stays quick; beyond them the runtime decides.
 */
export const CROSSING_STEPS = 5000;

/** What is left of the steps the searches of one file may take. */
export interface SearchBudget {
  left: number;
}
/** Tick numbers stay exact integers below this. */
const MAX_TICK = 2 ** 52;
/** Ticks looked at in one sine window: the first inside it holds unless rounding sits on its edge. */
const MAX_WINDOW_TICKS = 1000;
/** Ticks a step estimate may move while settling on the generator's own values. */
const MAX_SETTLE = 1000;
/** Ticks looked at one by one for a generator known only by its range. */
const MAX_SCANNED_TICKS = 1000;

/** The least and greatest value of the generators searched tick by tick. */
function rangeOf(config: GeneratorConfig): { low: number; high: number; shape: string } {
  switch (config.type) {
    case 'step': {
      // Only a wrapping step (with max) is searched this way; its highest value is the last below max.
      const top = config.max!;
      return {
        low: config.start,
        high: config.start + (stepCycle(config.start, config.step_size, top) - 1) * config.step_size,
        shape: `step from ${config.start} by ${config.step_size}, wrapping at ${top}`,
      };
    }
    case 'spike': {
      const [a, b] = [config.baseline, config.baseline + config.magnitude];
      return { low: Math.min(a, b), high: Math.max(a, b), shape: `spike between ${a} and ${b}` };
    }
    case 'csv_replay': {
      const values = config.series?.values ?? [];
      const [low, high] = values.reduce(([lo, hi], v) => [Math.min(lo, v), Math.max(hi, v)], [Infinity, -Infinity]);
      return { low, high, shape: `csv_replay of ${config.file} (${config.series?.header}) between ${low} and ${high}` };
    }
    default: {
      const { min, max } = config as { min: number; max: number };
      return { low: min, high: max, shape: `${config.type} from ${min} to below ${max}` };
    }
  }
}

export function firstCrossing(watched: Entry, after: After, budget: SearchBudget = { left: CROSSING_STEPS }): Crossing {
  if (watched.jitter) return { kind: 'runtime', reason: `${watched.id} has jitter ±${watched.jitter}` };
  const config = watched.generator;
  if (!config) return { kind: 'runtime', reason: `${watched.id} has no value generator` };

  const schedule = rateScheduleOf(watched);
  const end = watched.duration === undefined ? Infinity : schedule.slotsBefore(watched.duration);
  const generate = valueGenerator(config);
  const valueAt = (n: number) => generate(n, schedule.timeOf(n));
  const holds = after.op === '>' ? (v: number) => v > after.value : (v: number) => v < after.value;
  const direction = after.op === '>' ? 'above' : 'below';

  const found = (tick: number): Crossing => {
    if (tick >= end) {
      return {
        kind: 'never',
        reason: `before it stops (duration ${formatMs(watched.duration!)}; it would first be ${direction} ${after.value} at its tick ${tick}, ${formatMs(schedule.timeOf(tick))} after it starts)`,
      };
    }
    return { kind: 'tick', tick, offset: schedule.timeOf(tick), value: valueAt(tick) };
  };
  const never = (reason: string): Crossing => ({ kind: 'never', reason });
  const spent: Crossing = {
    kind: 'runtime',
    reason: 'svc stopped looking for the crossing before running (the file has many after entries to work out)',
  };
  /** Takes `steps` from the budget; false when it has not got them. */
  const spend = (steps: number): boolean => {
    if (steps > budget.left) return false;
    budget.left -= steps;
    return true;
  };

  /** start + n·step crosses the threshold once, near an estimate of the tick. */
  const stepCrossing = (start: number, step: number): Crossing => {
    if (step === 0) return never(`(step_size 0: constant ${start})`);
    if ((after.op === '>') !== step > 0)
      return never(`(step from ${start} by ${step}: moving away from ${after.value})`);
    const estimate = Math.max(1, Math.floor((after.value - start) / step) + 1);
    // Where tick numbers stop being exact integers, no run gets: 2^52 ticks at 1000/s is 142 000 years.
    if (!(estimate < MAX_TICK)) return never(`(step from ${start} by ${step}: not within ${MAX_TICK} ticks)`);
    // Settle the estimate on the generator itself: floating-point rounding moves it a tick or two.
    let n = estimate;
    for (let moves = 0; moves < MAX_SETTLE && n > 1 && holds(valueAt(n - 1)); moves++) n--;
    for (let moves = 0; moves < MAX_SETTLE && !holds(valueAt(n)); moves++) n++;
    if (!spend(Math.abs(n - estimate))) return spent;
    return holds(valueAt(n))
      ? found(n)
      : { kind: 'runtime', reason: `${watched.id}'s step values round unevenly near ${after.value}` };
  };
  /** A generator known by its range: never, when the range rules the value out; else its first ticks. */
  const scan = (): Crossing => {
    const { low, high, shape } = rangeOf(config);
    if (after.op === '>' ? high <= after.value : low >= after.value) return never(`(${shape})`);
    const last = Math.min(end, MAX_SCANNED_TICKS);
    for (let n = 1; n < last; n++) {
      if (!spend(1)) return spent;
      if (holds(valueAt(n))) return found(n);
    }
    if (last === end) return never(`before it stops (duration ${formatMs(watched.duration!)}) (${shape})`);
    return {
      kind: 'runtime',
      reason: `${watched.id} is not ${direction} ${after.value} in its first ${MAX_SCANNED_TICKS} ticks (${shape})`,
    };
  };

  if (holds(valueAt(0))) return found(0);
  switch (config.type) {
    case 'constant':
      return never(`(constant ${config.value})`);
    case 'sequence': {
      if (!spend(config.values.length)) return spent;
      const i = config.values.findIndex(holds);
      return i < 0
        ? never(`(sequence values from ${Math.min(...config.values)} to ${Math.max(...config.values)})`)
        : found(i);
    }
    case 'step':
      if (config.max === undefined) return stepCrossing(config.start, config.step_size);
      return scan();
    case 'uniform':
    case 'sawtooth':
    case 'spike':
    case 'csv_replay':
      return scan();
    case 'sine': {
      const { amplitude, offset } = config;
      const low = offset - Math.abs(amplitude);
      const high = offset + Math.abs(amplitude);
      const range = `(sine between ${low} and ${high})`;
      // Tick 0 (value = offset) does not hold, so the phases where it does form one window per period.
      const c = amplitude === 0 ? NaN : (after.value - offset) / amplitude;
      const above = (after.op === '>') === amplitude > 0; // want sin(φ) > c, else sin(φ) < c
      if (amplitude === 0 || (above ? c >= 1 : c <= -1)) return never(range);
      const [lo, hi] = above
        ? [Math.asin(c), Math.PI - Math.asin(c)]
        : [Math.PI - Math.asin(c), 2 * Math.PI + Math.asin(c)];
      const period = config.period_secs * 1000;
      const msPerRadian = period / (2 * Math.PI);
      const limit = watched.duration ?? Infinity;
      // Beyond tick 2^52 slot numbers stop being exact: leave such a far crossing to the runtime.
      const horizon = schedule.timeOf(MAX_TICK);
      for (let k = 0; k < MAX_WINDOWS; k++) {
        const from = lo * msPerRadian + k * period;
        const to = hi * msPerRadian + k * period;
        if (from >= limit) return never(`before it stops (duration ${formatMs(limit)}) ${range}`);
        if (from >= horizon) break;
        // The first slot after the window opens; one before it too, in case rounding put it inside.
        const first = Math.max(0, schedule.slotsDueBy(from) - 1);
        for (let n = first; n < first + MAX_WINDOW_TICKS && schedule.timeOf(n) <= to; n++) {
          if (!spend(1)) return spent;
          if (holds(valueAt(n))) return found(n);
        }
        if (!spend(1)) return spent;
      }
      return {
        kind: 'runtime',
        reason: `${watched.id}'s ticks rarely fall where it is ${direction} ${after.value} ${range}`,
      };
    }
  }
}
