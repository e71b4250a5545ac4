import { expect } from 'chai';
import { valueGenerator } from '../../lib/generators/value.js';

const first = (gen: ReturnType<typeof valueGenerator>, count: number, spacingMs = 1000) =>
  Array.from({ length: count }, (_, n) => gen(n, n * spacingMs));

describe('value generators', () => {
  it('constant', () => {
    expect(first(valueGenerator({ type: 'constant', value: 42.5 }), 3)).to.deep.equal([42.5, 42.5, 42.5]);
  });

  it('step counts slots from start', () => {
    expect(first(valueGenerator({ type: 'step', start: 10, step_size: 2.5 }), 4)).to.deep.equal([10, 12.5, 15, 17.5]);
  });

  it('sequence repeats, or holds its last value', () => {
    expect(first(valueGenerator({ type: 'sequence', values: [1, 5, 9], repeat: true }), 7)).to.deep.equal([1, 5, 9, 1, 5, 9, 1]);
    expect(first(valueGenerator({ type: 'sequence', values: [1, 5, 9], repeat: false }), 5)).to.deep.equal([1, 5, 9, 9, 9]);
  });

  it('sine follows offset + amplitude·sin(2π·t/period) of the tick time', () => {
    const gen = valueGenerator({ type: 'sine', amplitude: 10, period_secs: 4, offset: 50 });
    const quarter = first(gen, 5).map((v) => Math.round(v * 1e9) / 1e9);
    expect(quarter).to.deep.equal([50, 60, 50, 40, 50]);
    expect(gen(0, 500)).to.be.closeTo(50 + 10 * Math.sin(Math.PI / 4), 1e-12);
  });
});
