import { expect } from 'chai';
import { backoff, DEFAULT_RETRY, retryPolicy } from '../../../lib/sinks/core/retry.js';

describe('retry backoff: exponential, capped, full jitter', () => {
  const policy = { maxAttempts: 10, initialBackoff: 100, maxBackoff: 1000 };

  it('the ceiling doubles from initial_backoff after each failed attempt and stops at max_backoff', () => {
    const ceilings = [1, 2, 3, 4, 5, 6].map((failed) => backoff(policy, failed, () => 0.999_999) + 1);
    expect(ceilings).to.deep.equal([100, 200, 400, 800, 1000, 1000]);
  });

  it('the wait is uniform under the ceiling (full jitter): from 0, spread over the whole range', () => {
    expect(backoff(policy, 3, () => 0)).to.equal(0);
    expect(backoff(policy, 3, () => 0.5)).to.equal(200);
    const waits = Array.from({ length: 1000 }, () => backoff(policy, 4));
    expect(Math.min(...waits))
      .to.be.at.least(0)
      .and.below(200);
    expect(Math.max(...waits))
      .to.be.below(800)
      .and.above(600);
    expect(new Set(waits).size).to.be.greaterThan(100);
  });

  it('a retry field fills in what it leaves out; max_backoff is never below initial_backoff', () => {
    expect(retryPolicy(undefined)).to.deep.equal(DEFAULT_RETRY);
    expect(retryPolicy({ max_attempts: 3, initial_backoff: 10_000 })).to.deep.equal({
      maxAttempts: 3,
      initialBackoff: 10_000,
      maxBackoff: 10_000,
    });
  });
});
