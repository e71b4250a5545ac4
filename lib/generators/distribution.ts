import type { DistributionConfig } from '../language/fields.js';
import { SplitMix64 } from '../random.js';

/**
 * Observation i of a distribution, made at `at` ms after the entry start: a pure function of
 * (seed, i, at), drawn by inverse transform (exponential, uniform) or Box–Muller from two draws
 * (normal), then moved by `mean_shift_per_sec` × the time in seconds.
 */
export function distributionSampler(config: DistributionConfig, seed: number): (i: number, at: number) => number {
  const draw = drawer(config, seed);
  const shift = config.mean_shift_per_sec;
  return shift ? (i, at) => draw(i) + (shift * at) / 1000 : draw;
}

function drawer(config: DistributionConfig, seed: number): (i: number) => number {
  const random = new SplitMix64(seed);
  switch (config.type) {
    case 'exponential': {
      const { rate } = config;
      return (i) => -Math.log1p(-random.unit(i)) / rate;
    }
    case 'uniform': {
      const { min, max } = config;
      return (i) => min + random.unit(i) * (max - min);
    }
    case 'normal': {
      const { mean, stddev } = config;
      return (i) => {
        const radius = Math.sqrt(-2 * Math.log1p(-random.unit(2 * i)));
        return mean + stddev * radius * Math.cos(2 * Math.PI * random.unit(2 * i + 1));
      };
    }
  }
}
