import { expect } from 'chai';
import { UsageError } from 'clipanion';
import { flagNumber } from '../../lib/cli/flags.js';

describe('flagNumber: the one parser of number flags', () => {
  it('reads numbers, fractions and exponents', () => {
    expect(flagNumber('--rate', '2.5')).to.equal(2.5);
    expect(flagNumber('--rate', '1e3')).to.equal(1000);
    expect(flagNumber('--value', '-3')).to.equal(-3);
    expect(flagNumber('--value', '+.5')).to.equal(0.5);
    expect(flagNumber('--rate', '1E-3')).to.equal(0.001);
  });

  it('refuses what is not a number, naming the flag', () => {
    // Decimal and finite only: Number() would read the last four as 16, Infinity, -Infinity and Infinity.
    for (const text of ['', ' ', 'fast', '1,5', 'NaN', '0x10', 'Infinity', '-Infinity', '1e400']) {
      expect(() => flagNumber('--rate', text)).to.throw(UsageError, `--rate: expected a number, got "${text}"`);
    }
  });

  it('holds a whole-number range, saying what it expects', () => {
    const port = { integer: true, min: 0, max: 65535, expected: 'a port from 0 to 65535' };
    expect(flagNumber('--port', '0', port)).to.equal(0);
    expect(flagNumber('--port', '65535', port)).to.equal(65535);
    for (const text of ['65536', '-1', '80.5', 'http']) {
      expect(() => flagNumber('--port', text, port)).to.throw(
        UsageError,
        `--port: expected a port from 0 to 65535, got "${text}"`,
      );
    }
  });
});
