import { expect } from 'chai';
import fc from 'fast-check';
import { isoMillisecondsText, millisecondsText } from '../../lib/protocols/epoch-text.js';

describe('millisecondsText', () => {
  it('writes every millisecond as String does, in any order: across seconds, below 1000, before 1970', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: -1e13, max: 4e12 }),
            fc.integer({ min: 0, max: 2000 }),
            fc.constantFrom(1795360000999, 1795360001000),
          ),
          { maxLength: 50 },
        ),
        (times) => {
          const text = millisecondsText();
          expect(times.map(text)).to.deep.equal(times.map(String));
        },
      ),
    );
  });

  it('keeps the three digits of the millisecond within a second: 1795360000005 is not 17953600005', () => {
    const text = millisecondsText();
    expect([1795360000999, 1795360000005, 1795360000050].map(text)).to.deep.equal([
      '1795360000999',
      '1795360000005',
      '1795360000050',
    ]);
  });
});

describe('isoMillisecondsText', () => {
  it('writes every millisecond as toISOString does, in any order: across seconds, before 1970, years past 9999', () => {
    const times = fc.oneof(
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.integer({ min: -2000, max: 2000 }),
      fc.constantFrom(1795360000999, 1795360001000, 253402300799999, 253402300800000),
    );
    fc.assert(
      fc.property(fc.array(times, { maxLength: 50 }), (ms) => {
        const text = isoMillisecondsText();
        expect(ms.map(text)).to.deep.equal(ms.map((t) => new Date(t).toISOString()));
      }),
    );
  });

  it('refuses a time outside the Date range as toISOString does, even within a valid second', () => {
    const text = isoMillisecondsText();
    for (const ms of [8.64e15 + 1, -8.64e15 - 1, NaN]) expect(() => text(ms), String(ms)).to.throw(RangeError);
  });
});
