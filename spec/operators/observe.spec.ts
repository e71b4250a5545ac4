import { expect } from 'chai';
import { of } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { observe } from '../../operators/observe.js';
import { collect } from '../support/marbles.js';

describe('observe', () => {
  it('gives the sampler each observation number and the tick time, so observations can drift', () => {
    const out = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 300 }),
        observe((i, at) => i + at / 1000, 2),
      ),
      (b, i) => [...b.observations[i]!],
    );
    expect(out).to.deep.equal([
      [0, 1],
      [2.1, 3.1],
      [4.2, 5.2],
    ]);
  });

  it('refuses more observations a tick than the scenario language allows, naming perTick', () => {
    expect(() => observe(() => 0, 1e12)).to.throw(
      RangeError,
      'observe: perTick must be a whole number from 0 to 10000, got 1000000000000',
    );
    expect(() => observe(() => 0, 10_000)).to.not.throw();
  });
});
