import { expect } from 'chai';
import fc from 'fast-check';
import { millisecondsText } from '../../lib/encoders/number.js';

describe('millisecondsText', () => {
  it('writes every millisecond as String does, in any order: across seconds, below 1000, before 1970', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -1e13, max: 4e12 }), fc.integer({ min: 0, max: 2000 }), fc.constantFrom(1795360000999, 1795360001000)), { maxLength: 50 }), (times) => {
        const text = millisecondsText();
        expect(times.map(text)).to.deep.equal(times.map(String));
      }),
    );
  });

  it('keeps the three digits of the millisecond within a second: 1795360000005 is not 17953600005', () => {
    const text = millisecondsText();
    expect([1795360000999, 1795360000005, 1795360000050].map(text)).to.deep.equal(['1795360000999', '1795360000005', '1795360000050']);
  });
});
