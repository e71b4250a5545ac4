import { expect } from 'chai';
import { formatMs } from '../lib/format.js';

describe('figures as text', () => {
  it('gives a duration exactly for messages: three decimals at most, zero parts left out', () => {
    expect([250, 1000 / 3, 1250, 90_000, 3_600_000, 3_723_500].map(formatMs)).to.deep.equal([
      '250ms',
      '333.333ms',
      '1.25s',
      '1m30s',
      '1h',
      '1h2m3.5s',
    ]);
  });
});
