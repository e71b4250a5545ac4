import { expect } from 'chai';
import fc from 'fast-check';
import { parseDuration } from '../../lib/config/index.js';
import { formatDuration, formatMs, promDuration } from '../../lib/format.js';
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
    // Prometheus' form, which svc prints: units largest first, each at most once.
    ['1m30s', 90_000],
    ['1h30m', 5_400_000],
    ['2m500ms', 120_500],
    ['2m05s', 125_000],
    ['1h2m3.5s', 3_723_500],
    ['0h1m', 60_000],
    ['7d', 604_800_000],
    ['1.5d', 129_600_000],
    ['1w2d', 777_600_000],
    ['1y', 31_536_000_000],
    ['1y2w3d4h5m6s7ms', 31_536_000_000 + 2 * 604_800_000 + 3 * 86_400_000 + 4 * 3_600_000 + 5 * 60_000 + 6_007],
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
    '1S',
    'NaNs',
    // Each unit at most once, largest first, each with its number and no sign.
    '1m1m',
    '1s1m',
    '1ms1s',
    '1m-3s',
    '1m+3s',
    'm',
    '1m30',
    '1h 30m',
    '1h.5m',
    '1mm',
  ]) {
    it(`rejects ${JSON.stringify(bad)} naming the units`, () => {
      expect(() => parseDuration(bad)).to.throw(
        RangeError,
        `expected a duration such as 500ms, 1.5s, 1m30s or 7d (units y, w, d, h, m, s, ms: largest first, each at most once), got ${JSON.stringify(bad)}`,
      );
    });
  }

  it("reads every whole number with every unit, several units at once, as Prometheus' form adds them", () => {
    const units = { y: 31_536_000_000, w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
    fc.assert(
      fc.property(fc.subarray(Object.keys(units) as (keyof typeof units)[], { minLength: 1 }), fc.nat(), (used, n) => {
        const numbers = used.map((_, i) => (n + i * 7919) % 1000);
        const text = used.map((unit, i) => `${numbers[i]}${unit}`).join('');
        const ms = used.reduce((sum, unit, i) => sum + numbers[i]! * units[unit], 0);
        if (ms > 0) expect(parseDuration(text), text).to.equal(ms);
      }),
    );
  });

  it('reads back every duration svc prints (progress lines, dry-run, compile messages, svc test)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 * 86_400_000 }), (ms) => {
        expect(parseDuration(formatMs(ms)), formatMs(ms)).to.equal(ms);
        expect(parseDuration(promDuration(ms)), promDuration(ms)).to.equal(ms);
        // Rounded for display: what it reads back is printed the same.
        expect(formatDuration(parseDuration(formatDuration(ms))), formatDuration(ms)).to.equal(formatDuration(ms));
      }),
    );
    for (const printed of ['0ms', '0s']) expect(parseDuration(printed, { zero: true })).to.equal(0);
  });

  for (const zero of ['0s', '0ms', '0.0h', '0h0m', '0d0.000s']) {
    it(`rejects the non-positive ${zero}`, () => {
      expect(() => parseDuration(zero)).to.throw(RangeError, `expected a positive, finite duration, got "${zero}"`);
    });
  }

  it('rejects a positive length below the microsecond, saying so rather than calling it non-positive', () => {
    for (const tiny of ['0.0000001ms', '0.0004ms', '0h0.0000004s', '0.0000002s0.0002ms']) {
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
    const nearLarger = ['0.0000000001h', '0.00000000012h', '0.00000000014h', '0.000000000004d', '0.000000000006d'];
    const nearLargest = [
      '0.0000000000007w',
      '0.0000000000009w',
      '0.00000000000001y',
      '0.000000000000014y',
      '0.000000000000016y',
    ];
    const compound = ['0h0m', '0h0.0000004s', '0.0000004s0ms', '0h0.0000005s', '0.0000004s0.0004ms', '0s1ms'];
    for (const text of [...near, ...nearLarger, ...nearLargest, ...compound, '0s', '0.000ms', '1ms'])
      expect(zero.test(text), text).to.equal(readsAsZero(text));
    const units = ['y', 'w', 'd', 'h', 'm', 's', 'ms'];
    fc.assert(
      fc.property(
        fc.nat({ max: 15 }),
        fc.nat({ max: 99 }),
        fc.constantFrom(...units),
        fc.subarray(units),
        (zeros, digits, unit, zeroUnits) => {
          // One small part among parts of 0, in the order of the units.
          const part = (u: string) => (u === unit ? `0.${'0'.repeat(zeros)}${digits}${u}` : `0${u}`);
          const text = units
            .filter((u) => u === unit || zeroUnits.includes(u))
            .map(part)
            .join('');
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
