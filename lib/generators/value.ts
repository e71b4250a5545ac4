import type { ValueGenerator } from '../../operators/generate.js';
import { inHeadOf, microsecondCycle, onMicrosecondGrid } from '../../operators/model/window.js';
import type { GeneratorConfig } from '../language/types.js';
import { between, SplitMix64 } from '../random.js';
import { replayRow } from './replay.js';

/**
 * The value generator of a `generator` block: a pure function of the tick (slot number n,
 * scheduled offset in ms). The periodic shapes of time (`sine`, `sawtooth`, `spike`) read time,
 * so bursts do not change their period; the others the slot number, so counters and sequences
 * continue across gaps. `csv_replay` reads time too: the CSV's own spacing.
 */
export function valueGenerator(config: GeneratorConfig): ValueGenerator {
  switch (config.type) {
    case 'constant': {
      const { value } = config;
      return () => value;
    }
    case 'sine': {
      const { amplitude, offset } = config;
      const radiansPerMs = (2 * Math.PI) / (config.period_secs * 1000);
      return (_n, at) => offset + amplitude * Math.sin(radiansPerMs * at);
    }
    case 'step': {
      const { start, step_size, max } = config;
      if (max === undefined) return (n) => start + n * step_size;
      const cycle = stepCycle(start, step_size, max);
      return (n) => start + (n % cycle) * step_size;
    }
    case 'sequence': {
      const { values, repeat } = config;
      const last = values.length - 1;
      return repeat ? (n) => values[n % values.length]! : (n) => values[Math.min(n, last)]!;
    }
    case 'uniform': {
      const { min, max } = config;
      const random = new SplitMix64(config.seed);
      return (n) => between(min, max, random.unit(n));
    }
    case 'sawtooth': {
      const { min, max } = config;
      // Where the tick lies in the period, in microseconds as a window's cycle (a period of 12.3 ms: in ms,
      // 36.9 % 12.3 is 12.299999999999997, the top of the ramp, where a new period starts).
      const period = microsecondCycle(periodMs(config.period_secs));
      // The fraction of the period is below 1, but the point may round to max: keep below it.
      return (_n, at) => Math.min(between(min, max, period.position(at) / period.length), previousDouble(max));
    }
    case 'spike': {
      const { baseline, magnitude } = config;
      // The spike is the head of every interval, as a burst's window is.
      const inSpike = inHeadOf({ every: periodMs(config.interval_secs), for: periodMs(config.duration_secs) });
      return (_n, at) => (inSpike(at) ? baseline + magnitude : baseline);
    }
    case 'csv_replay': {
      // Compiling gives each column its own entry (lib/compile/replays.ts).
      if (!config.series) throw new Error(`csv_replay of ${config.file}: the entry was not compiled`);
      const { times, values } = config.series;
      const row = replayRow(times, config.repeat, config.timescale);
      return (_n, at) => values[row(at)]!;
    }
  }
}

/**
 * Milliseconds of a `*_secs` field, on the microsecond grid where it lies on it: 2.007 × 1000 is 2007.0000000000002,
 * and a tick at 2007 ms then fell at the end of a period rather than the start of the next.
 */
function periodMs(seconds: number): number {
  return onMicrosecondGrid(seconds * 1000);
}

/**
 * The least value `config` writes over an unbounded run (-Infinity for a step counting down without `max`); undefined
 * for a csv_replay not compiled yet (its values are read with its file).
 */
export function lowestValue(config: GeneratorConfig): number | undefined {
  switch (config.type) {
    case 'constant':
      return config.value;
    case 'sine':
      return config.offset - Math.abs(config.amplitude);
    case 'step':
      return config.step_size < 0 && config.max === undefined ? -Infinity : config.start;
    case 'sequence':
      return least(config.values);
    case 'uniform':
    case 'sawtooth':
      return config.min;
    case 'spike':
      return Math.min(config.baseline, config.baseline + config.magnitude);
    case 'csv_replay':
      return config.series && least(config.series.values);
  }
}

/** The least of `values`, without spreading them onto the stack (a CSV column holds up to a million). */
function least(values: readonly number[]): number {
  return values.reduce((low, value) => Math.min(low, value), Infinity);
}

/** The largest double below `x` (finite x). */
function previousDouble(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  const bits = new Float64Array([x]);
  const word = new BigInt64Array(bits.buffer);
  word[0] = word[0]! + (x > 0 ? -1n : 1n);
  return bits[0]!;
}

/**
 * The values of one cycle of a step that wraps at `max`: start … the last one below max, which is never written
 * (the reference tool's wrap: max 5 by 1 is 0 … 4).
 */
export function stepCycle(start: number, stepSize: number, max: number): number {
  // The least n whose value (start + n·step_size, as the generator computes it) reaches max, so rounding neither
  // keeps max in the cycle nor drops values below it. A bisection: the quotient (max − start) / step_size can
  // overflow (−1e308 to 1e308) or be off by billions of steps where step_size is far below start's precision,
  // and a count settled one step at a time never ended there. Validation keeps a cycle under 2^53 steps.
  const reaches = (n: number) => start + n * stepSize >= max;
  let [low, high] = [1, Number.MAX_SAFE_INTEGER];
  if (!reaches(high)) return high;
  while (low < high) {
    const middle = low + Math.floor((high - low) / 2);
    if (reaches(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}
