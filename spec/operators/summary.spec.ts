import { expect } from 'chai';
import { of } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { labels } from '../../operators/labels.js';
import { observe } from '../../operators/observe.js';
import { quantileOf, summary } from '../../operators/summary.js';
import { collect, sampleRow } from '../support/marbles.js';

describe('summary', () => {
  it('takes quantiles over the tick alone and sums and counts since start', () => {
    const out = collect(
      of(RateSchedule.constant(10)).pipe(
        ticks({ duration: 200 }),
        observe((i) => i + 1, 4),
        labels({ static: { a: 'b' } }),
        summary([0.5, 0.9]),
      ),
      sampleRow,
    );
    expect(out).to.deep.equal([
      '{a="b",quantile="0.5"} 2.5',
      '{a="b",quantile="0.9"} 3.7',
      '_sum{a="b"} 10',
      '_count{a="b"} 4',
      '{a="b",quantile="0.5"} 6.5',
      '{a="b",quantile="0.9"} 7.7',
      '_sum{a="b"} 36',
      '_count{a="b"} 8',
    ]);
  });

  it('interpolates quantiles linearly between order statistics', () => {
    const sorted = Float64Array.from([10, 20, 30, 40, 50]);
    expect([0, 0.25, 0.5, 0.99, 1].map((q) => quantileOf(sorted, q))).to.deep.equal([10, 20, 30, 49.6, 50]);
    expect(quantileOf(new Float64Array(0), 0.5)).to.be.NaN;
  });

  it('gives an infinite observation its side, not NaN, and does not overflow between far apart ones', () => {
    const [inf, finite, wide] = [
      [5, Infinity, Infinity],
      [-Infinity, 1],
      [-1e308, 1e308],
    ].map((v) => Float64Array.from(v));
    expect([0, 0.25, 0.5, 0.9].map((q) => quantileOf(inf!, q))).to.deep.equal([5, Infinity, Infinity, Infinity]);
    expect([0, 0.5, 1].map((q) => quantileOf(finite!, q))).to.deep.equal([-Infinity, -Infinity, 1]);
    expect(quantileOf(wide!, 0.5)).to.equal(0);
  });
});
