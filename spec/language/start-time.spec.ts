import { expect } from 'chai';
import fc from 'fast-check';
import { parseStartTime } from '../../lib/config/index.js';
import { formatStartTime } from '../../lib/compile/format.js';

describe('parseStartTime', () => {
  it('reads now', () => expect(parseStartTime('now')).to.deep.equal({ kind: 'now' }));

  describe('relative offsets', () => {
    const cases: [string, number][] = [
      ['+1h', 3_600_000],
      ['-30m', -1_800_000],
      ['-2d', -172_800_000],
      ['+500ms', 500],
      ['-1.5s', -1_500],
      ['+0.5d', 43_200_000],
      ['+0s', 0],
      ['-0s', 0],
      // A sign and a duration, in the duration's compound form too.
      ['-1h30m', -5_400_000],
      ['+2m500ms', 120_500],
      ['-1w', -604_800_000],
      ['-1y', -31_536_000_000],
    ];
    for (const [text, offsetMs] of cases) {
      it(`reads ${text} as ${offsetMs} ms`, () =>
        expect(parseStartTime(text)).to.deep.equal({ kind: 'relative', offsetMs }));
    }

    it('never yields negative zero', () =>
      expect(Object.is((parseStartTime('-0s') as { offsetMs: number }).offsetMs, 0)).to.equal(true));

    it('reads any signed whole number of days', () => {
      fc.assert(
        fc.property(fc.integer({ min: -10_000, max: 10_000 }), (days) => {
          const text = `${days < 0 ? '-' : '+'}${Math.abs(days)}d`;
          expect(parseStartTime(text)).to.deep.equal({ kind: 'relative', offsetMs: days * 86_400_000 || 0 });
        }),
      );
    });

    it('reads back the offset svc prints (dry-run, clock group messages)', () => {
      fc.assert(
        fc.property(fc.integer({ min: -36_500 * 86_400_000, max: 36_500 * 86_400_000 }), (offsetMs) => {
          const start = { kind: 'relative', offsetMs: offsetMs || 0 } as const;
          expect(parseStartTime(formatStartTime(start)), formatStartTime(start)).to.deep.equal(start);
        }),
      );
    });

    it('refuses a unit written twice or out of order, as a duration does', () => {
      for (const bad of ['-1m1m', '+1s1m', '-1m-3s', '-m'])
        expect(() => parseStartTime(bad), bad).to.throw(RangeError, `, got "${bad}"`);
    });

    it('asks for a sign when there is none', () => {
      expect(() => parseStartTime('1h')).to.throw(RangeError, '(a relative offset needs a sign: +1h or -1h)');
    });

    it('quotes a long value cut short, not the whole of it', () => {
      for (const long of ['x'.repeat(100_000), `${'1'.repeat(100_000)}h`, `+${'9'.repeat(100_000)}h`]) {
        expect(() => parseStartTime(long))
          .to.throw(RangeError)
          .with.property('message')
          .that.has.length.below(400);
      }
    });
  });

  describe('absolute instants (RFC 3339)', () => {
    const cases: [string, string][] = [
      ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000Z'],
      ['2024-05-01t12:00:00z', '2024-05-01T12:00:00.000Z'],
      ['2024-05-01T12:00:00.5Z', '2024-05-01T12:00:00.500Z'],
      ['2024-05-01T12:00:00.123456789Z', '2024-05-01T12:00:00.123Z'],
      ['2024-05-01T14:30:00+02:30', '2024-05-01T12:00:00.000Z'],
      ['2024-05-01T07:00:00-05:00', '2024-05-01T12:00:00.000Z'],
      ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
      ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ];
    for (const [text, iso] of cases) {
      it(`reads ${text}`, () =>
        expect(parseStartTime(text)).to.deep.equal({ kind: 'absolute', epochMs: Date.parse(iso) }));
    }

    it('keeps years below 100 as written', () => {
      expect(parseStartTime('0050-01-01T00:00:00Z')).to.deep.equal({
        kind: 'absolute',
        epochMs: Date.parse('0050-01-01T00:00:00Z'),
      });
    });

    it('asks for a time zone when there is none', () => {
      expect(() => parseStartTime('2024-05-01T12:00:00')).to.throw(
        RangeError,
        '(an instant needs a time zone: Z or ±hh:mm)',
      );
    });

    for (const impossible of [
      '2023-02-29T00:00:00Z',
      '2024-13-01T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-05-01T24:00:00Z',
      '2024-05-01T12:60:00Z',
      '2024-05-01T12:00:00+24:00',
    ]) {
      it(`rejects the impossible ${impossible}`, () => {
        expect(() => parseStartTime(impossible)).to.throw(RangeError, '(no such date or time)');
      });
    }
  });

  for (const bad of [
    '',
    'NOW',
    'yesterday',
    '2024-05-01',
    '2024-05-01 12:00:00Z',
    '12:00:00Z',
    '+1x',
    '-1m1m',
    '+-1h',
    '+1 h',
    '1714564800',
  ]) {
    it(`rejects ${JSON.stringify(bad)} listing the accepted forms`, () => {
      expect(() => parseStartTime(bad)).to.throw(
        RangeError,
        `expected now, an RFC 3339 instant (2024-05-01T12:00:00Z) or a signed offset (+1h, -30m, -1h30m, -2d: units largest first, each at most once), got ${JSON.stringify(bad)}`,
      );
    });
  }
});
