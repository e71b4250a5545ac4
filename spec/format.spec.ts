import { expect } from 'chai';
import { countOf, formatMs, formatValue, promDuration } from '../lib/format.js';

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

  it('writes a duration as Prometheus does: whole units, 0s for none', () => {
    expect([15_000, 7_500, 5_430_000, 0].map(promDuration)).to.deep.equal(['15s', '7s500ms', '1h30m30s', '0s']);
  });

  it('writes a value as an axis does: three significant digits, compact when large, an exponent when small or past T', () => {
    expect([0.125, 79.94, 12_345, 301_234_567, -2_500_000, 0.00004567, 0].map((v) => formatValue(v))).to.deep.equal([
      '0.125',
      '79.9',
      '12.3K',
      '301M',
      '-2.5M',
      '4.6e-5',
      '0',
    ]);
    // Past T, an exponent: compact notation would write the digits in full (1e308 as 400 characters).
    expect([999e12, 1e15, 1.44e20, -1.7e308, Infinity].map((v) => formatValue(v))).to.deep.equal([
      '999T',
      '1.0e15',
      '1.4e20',
      '-1.7e308',
      '∞',
    ]);
    // The notation is chosen after rounding: a value that rounds to 1e15 is written as 1e15 is, not 1000T.
    expect([9.9996e14, 999.96, 0.00099996, Number.MAX_VALUE, -Infinity].map((v) => formatValue(v))).to.deep.equal([
      '1.0e15',
      '1K',
      '0.001',
      '1.8e308',
      '-∞',
    ]);
    expect([123_456_789, 0.00004567, 1.23456].map((v) => formatValue(v, 5))).to.deep.equal([
      '123.46M',
      '4.567e-5',
      '1.2346',
    ]);
  });

  it('writes a count with its noun, singular for one', () => {
    expect([0, 1, 2].map((n) => countOf(n, 'scenario'))).to.deep.equal(['0 scenarios', '1 scenario', '2 scenarios']);
    expect(countOf(1, 'entry', 'entries')).to.equal('1 entry');
    expect(countOf(3, 'entry', 'entries')).to.equal('3 entries');
  });
});
