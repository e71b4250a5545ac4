import { expect } from 'chai';
import fc from 'fast-check';
import { distributionSampler } from '../../lib/generators/distribution.js';
import type { DistributionConfig } from '../../lib/language/fields.js';

function moments(config: DistributionConfig, seed = 3, count = 50_000) {
  const sample = distributionSampler(config, seed);
  const values = Array.from({ length: count }, (_, i) => sample(i, 0));
  const mean = values.reduce((a, b) => a + b, 0) / count;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / count;
  return { values, mean, stddev: Math.sqrt(variance) };
}

describe('distributions', () => {
  it('exponential has mean 1/rate and only non-negative values', () => {
    const { values, mean, stddev } = moments({ type: 'exponential', rate: 4 });
    expect(mean).to.be.closeTo(0.25, 0.005);
    expect(stddev).to.be.closeTo(0.25, 0.01);
    expect(Math.min(...values)).to.be.at.least(0);
  });

  it('normal has its mean and standard deviation', () => {
    const { mean, stddev } = moments({ type: 'normal', mean: 100, stddev: 15 });
    expect(mean).to.be.closeTo(100, 0.3);
    expect(stddev).to.be.closeTo(15, 0.3);
  });

  it('uniform stays in [min, max) with the middle as mean', () => {
    const { values, mean } = moments({ type: 'uniform', min: -2, max: 6 });
    expect(mean).to.be.closeTo(2, 0.05);
    expect(Math.min(...values)).to.be.at.least(-2);
    expect(Math.max(...values)).to.be.below(6);
  });

  it('uniform over a range wider than the doubles (-1e308 to 1e308) stays finite and within it', () => {
    const { values } = moments({ type: 'uniform', min: -1e308, max: 1e308 }, 3, 1000);
    for (const value of values) expect(value).to.be.within(-1e308, 1e308);
  });

  it('is reproducible per seed and differs between seeds', () => {
    const config: DistributionConfig = { type: 'normal', mean: 0, stddev: 1 };
    expect(moments(config, 5, 100).values).to.deep.equal(moments(config, 5, 100).values);
    expect(moments(config, 6, 100).values).to.not.deep.equal(moments(config, 5, 100).values);
  });

  it('mean_shift_per_sec moves every observation by shift × the tick time in seconds', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<DistributionConfig>(
          { type: 'exponential', rate: 3 },
          { type: 'normal', mean: 1, stddev: 0.2 },
          { type: 'uniform', min: 0, max: 2 },
        ),
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.nat({ max: 1e6 }),
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        (config, shift, i, at) => {
          const drifting = distributionSampler({ ...config, mean_shift_per_sec: shift }, 5)(i, at);
          expect(drifting).to.be.closeTo(
            distributionSampler(config, 5)(i, at) + (shift * at) / 1000,
            1e-6 * (1 + Math.abs((shift * at) / 1000)),
          );
        },
      ),
    );
    const { mean } = moments({ type: 'normal', mean: 0.2, stddev: 0.01 });
    const later = distributionSampler({ type: 'normal', mean: 0.2, stddev: 0.01, mean_shift_per_sec: 0.05 }, 3);
    const shifted = Array.from({ length: 50_000 }, (_, i) => later(i, 60_000)).reduce((a, b) => a + b, 0) / 50_000;
    expect(shifted).to.be.closeTo(mean + 3, 1e-9);
  });
});
