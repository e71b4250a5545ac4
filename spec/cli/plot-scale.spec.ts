import { expect } from 'chai';
import type { PreviewEntry, PreviewSeries } from '../../lib/preview/index.js';
import { heightOf, rangeOf } from '../../lib/cli/plot/scale.js';

const gauge = { unit: 'value' } as PreviewEntry;
const flat = (value: number) => [{ values: [value, value, null] } as unknown as PreviewSeries];

describe('the value range of a chart', () => {
  it('widens a flat line to a range of numbers that holds it, at the edges of what a number can be', () => {
    for (const value of [1.7e308, -1.7e308, Number.MAX_VALUE, 5e-324, -5e-324, 0, 42]) {
      const range = rangeOf(gauge, flat(value));
      expect(Number.isFinite(range.min) && Number.isFinite(range.max), `${value}: ${JSON.stringify(range)}`).to.be.true;
      expect(range.min, String(value)).to.be.below(range.max);
      expect(heightOf(value, range), String(value)).to.be.within(0, 1);
    }
    // Not on the bottom row, where a range up to Infinity put it.
    expect(heightOf(1.7e308, rangeOf(gauge, flat(1.7e308)))).to.be.above(0.5);
  });
});

describe('the height of a value in a chart', () => {
  it('places the smallest numbers where they lie, and values of a range wider than the largest number too', () => {
    expect(heightOf(5e-324, { min: 0, max: 5e-324 })).to.equal(1);
    expect(heightOf(5e-324, { min: 0, max: 1e-323 })).to.equal(0.5);
    expect(heightOf(0, { min: -1.7e308, max: 1.7e308 })).to.equal(0.5);
    expect(heightOf(1.7e308, { min: -1.7e308, max: 1.7e308 })).to.equal(1);
  });
});
