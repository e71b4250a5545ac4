import { expect } from 'chai';
import { of } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { generate } from '../../operators/generate.js';
import { jitter } from '../../operators/jitter.js';
import { collect } from '../support/marbles.js';

const values = (rate: number, duration: number, amount: number, seed: number, maxBatch?: number) =>
  collect(
    of(RateSchedule.constant(rate)).pipe(
      ticks({ duration, maxBatch }),
      generate(() => 10),
      jitter(amount, seed),
    ),
    (b, i) => b.value[i]!,
  );

describe('jitter', () => {
  it('adds noise within ±amount', () => {
    const noisy = values(1000, 1000, 2, 7);
    expect(noisy).to.have.length(1000);
    for (const v of noisy) expect(v).to.be.within(8, 12);
    expect(new Set(noisy).size).to.be.greaterThan(990);
    expect(Math.min(...noisy)).to.be.below(8.1);
    expect(Math.max(...noisy)).to.be.above(11.9);
  });

  it('is reproducible for a seed, whatever the batching, and differs between seeds', () => {
    expect(values(1000, 500, 1, 3, 7)).to.deep.equal(values(1000, 500, 1, 3, 4096));
    expect(values(1000, 500, 1, 3)).to.not.deep.equal(values(1000, 500, 1, 4));
  });
});
