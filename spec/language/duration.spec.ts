import { expect } from 'chai';
import fc from 'fast-check';
import { parseDuration } from '../../lib/config/index.js';
import { ZERO_DURATION_PATTERN } from '../../lib/language/duration.js';

describe('parseDuration', () => {
  const cases: [string, number][] = [
    ['250ms', 250],
    ['1s', 1_000],
    ['1.5s', 1_500],
    ['1.1s', 1_100],
    ['2m', 120_000],
    ['0.5m', 30_000],
    ['1h', 3_600_000],
    ['0.25h', 900_000],
    ['1.5ms', 1.5],
  ];
  for (const [text, ms] of cases) {
    it(`reads ${text} as ${ms} ms`, () => expect(parseDuration(text)).to.equal(ms));
  }

  it('reads every whole number with every unit exactly', () => {
    const units = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])),
        (n, unit) => {
          expect(parseDuration(`${n}${unit}`)).to.equal(n * units[unit]);
        },
      ),
    );
  });

  for (const bad of [
    '',
    '5',
    's',
    '5x',
    '-1s',
    '+1s',
    '1 s',
    ' 1s',
    '1s ',
    '1.s',
    '.5s',
    '1e3ms',
    '1h30m',
    '1S',
    'NaNs',
  ]) {
    it(`rejects ${JSON.stringify(bad)} naming the units`, () => {
      expect(() => parseDuration(bad)).to.throw(
        RangeError,
        `expected a duration such as 500ms, 1.5s, 2m or 1h (units ms, s, m, h), got ${JSON.stringify(bad)}`,
      );
    });
  }

  for (const [days, hours] of [
    ['7d', '168h'],
    ['1.5d', '36h'],
    ['0.1d', '2.4h'],
  ]) {
    it(`rejects ${days}, naming the hours to write instead`, () => {
      expect(() => parseDuration(days)).to.throw(
        RangeError,
        `expected a duration such as 500ms, 1.5s, 2m or 1h (units ms, s, m, h), got "${days}": a duration has no d unit, write ${hours}`,
      );
    });
  }

  for (const zero of ['0s', '0ms', '0.0h']) {
    it(`rejects the non-positive ${zero}`, () => {
      expect(() => parseDuration(zero)).to.throw(RangeError, `expected a positive, finite duration, got "${zero}"`);
    });
  }

  it('rejects a positive length below the microsecond, saying so rather than calling it non-positive', () => {
    for (const tiny of ['0.0000001ms', '0.0004ms']) {
      expect(() => parseDuration(tiny)).to.throw(
        RangeError,
        `expected a duration of at least 0.001ms (durations count whole microseconds), got "${tiny}"`,
      );
    }
    // A moment may be 0: below the microsecond it is the start.
    expect(parseDuration('0.0004ms', { zero: true })).to.equal(0);
  });

  it("ZERO_DURATION_PATTERN (the JSON Schema's) matches durations it reads as 0, and none it takes", () => {
    const zero = new RegExp(ZERO_DURATION_PATTERN);
    const readsAsZero = (text: string) => parseDuration(text, { zero: true }) === 0;
    // At the bounds of each unit: half a microsecond.
    const near = ['0.0004ms', '0.0004999ms', '0.0005ms', '0.0000004s', '0.0000005s', '0.000000007m', '0.000000009m'];
    for (const text of [...near, '0.00000000012h', '0.00000000014h', '0s', '0.000ms', '1ms'])
      expect(zero.test(text), text).to.equal(readsAsZero(text));
    fc.assert(
      fc.property(
        fc.nat({ max: 12 }),
        fc.nat({ max: 99 }),
        fc.constantFrom('ms', 's', 'm', 'h'),
        (zeros, digits, unit) => {
          const text = `0.${'0'.repeat(zeros)}${digits}${unit}`;
          if (zero.test(text)) expect(readsAsZero(text), text).to.equal(true);
        },
      ),
    );
  });

  it('rejects a duration too large to represent', () => {
    expect(() => parseDuration(`${'9'.repeat(400)}h`)).to.throw(RangeError, 'expected a positive, finite duration');
  });

  it('quotes a long value cut short, as every message does, not the whole of it', () => {
    for (const long of ['x'.repeat(100_000), `${'9'.repeat(100_000)}h`]) {
      const message = (() => {
        try {
          parseDuration(long);
        } catch (error) {
          return (error as Error).message;
        }
      })();
      expect(message).to.match(/, got "[x9]{57}\.\.\."$/);
    }
  });
});
