import type { DistributionConfig } from '../language/fields.js';
import { between, SplitMix64 } from '../random.js';

/**
 * Observation i of a distribution, made at `at` ms after the entry start: a pure function of
 * (seed, i, at), drawn by inverse transform (exponential, uniform) or Box–Muller from two draws
 * (normal), then moved by `mean_shift_per_sec` × the time in seconds.
 */
export function distributionSampler(config: DistributionConfig, seed: number): (i: number, at: number) => number {
  const random = new SplitMix64(seed);
  const observe = observation(config);
  return config.type === 'normal'
    ? (i, at) => observe(random.unit(2 * i), random.unit(2 * i + 1), at)
    : (i, at) => observe(random.unit(i), 0, at);
}

/**
 * A distribution as a function of unit draws: an observation from `u` (and `v`, which only the
 * normal distribution reads), made at `at` ms after the entry start. For callers that own their
 * stream of draws (a trace's).
 */
export function observation(config: DistributionConfig): (u: number, v: number, at: number) => number {
  const draw = transform(config);
  const shift = config.mean_shift_per_sec;
  return shift ? (u, v, at) => draw(u, v) + (shift * at) / 1000 : (u, v) => draw(u, v);
}

function transform(config: DistributionConfig): (u: number, v: number) => number {
  switch (config.type) {
    case 'exponential': {
      const { rate } = config;
      return (u) => -Math.log1p(-u) / rate;
    }
    case 'uniform': {
      const { min, max } = config;
      return (u) => between(min, max, u);
    }
    case 'normal': {
      const { mean, stddev } = config;
      return (u, v) => mean + stddev * Math.sqrt(-2 * Math.log1p(-u)) * Math.cos(2 * Math.PI * v);
    }
  }
}

/**
 * Whether the mean of a distribution's observations is 0 or below at some moment of an entry lasting `duration` ms
 * (absent: until stopped): at its start, or later as a negative `mean_shift_per_sec` moves it down. A histogram's
 * sum, of every observation so far, then goes below 0 (or about 0, half the time below).
 */
export function meanReachesZero(config: DistributionConfig, duration?: number): boolean {
  const mean =
    config.type === 'exponential'
      ? 1 / config.rate
      : config.type === 'uniform'
        ? (config.min + config.max) / 2
        : config.mean;
  const shift = config.mean_shift_per_sec ?? 0;
  if (mean <= 0) return true;
  if (shift >= 0) return false;
  return duration === undefined || mean + (shift * duration) / 1000 <= 0;
}

/**
 * How many means an exponential draw reaches at most: the most −ln(1 − u) reaches for a unit draw (u has 53 bits,
 * so 1 − u ≥ 2^−53).
 */
export const EXPONENTIAL_REACH = 53 * Math.LN2;
/** How many standard deviations from its mean a normal draw reaches at most (Box–Muller of the same draw). */
export const NORMAL_REACH = Math.sqrt(2 * EXPONENTIAL_REACH);

/**
 * The largest magnitude an observation reaches within `duration` ms of the entry start: an exponential draw is at
 * most 53 ln 2 ≈ 36.7 times its mean, a normal one at most √(2 × 53 ln 2) ≈ 8.6 standard deviations from its
 * mean, a uniform one between its bounds; `mean_shift_per_sec` moves them further.
 */
export function observationReach(config: DistributionConfig, duration: number): number {
  const drawn =
    config.type === 'exponential'
      ? EXPONENTIAL_REACH / config.rate
      : config.type === 'normal'
        ? Math.abs(config.mean) + NORMAL_REACH * config.stddev
        : Math.max(Math.abs(config.min), Math.abs(config.max));
  return drawn + (Math.abs(config.mean_shift_per_sec ?? 0) * duration) / 1000;
}
