import { expect } from 'chai';
import fc from 'fast-check';
import { inHead, inHeadOf, inTail, inTailOf } from '../../../operators/model/window.js';

describe('recurring windows', () => {
  // Windows and times on the microsecond grid (where durations lie), some below a millisecond.
  const window = fc
    .tuple(fc.integer({ min: 2, max: 5e6 }), fc.double({ min: 0.01, max: 0.99, noNaN: true }))
    .map(([every, part]) => ({ every: every / 1000, for: Math.max(1, Math.floor(every * part)) / 1000 }));
  const offset = fc.integer({ min: 0, max: 1e12 }).map((us) => us / 1000);

  it('inHeadOf and inTailOf, the window converted once, answer as inHead and inTail: by the position in microseconds', () => {
    fc.assert(
      fc.property(window, fc.array(offset, { maxLength: 20 }), (w, offsets) => {
        const [head, tail] = [inHeadOf(w), inTailOf(w)];
        for (const at of offsets) {
          const position = Math.round(at * 1000) % Math.round(w.every * 1000);
          expect([head(at), tail(at)]).to.deep.equal([inHead(w, at), inTail(w, at)]);
          expect(head(at)).to.equal(position < Math.round(w.for * 1000));
          expect(tail(at)).to.equal(position >= Math.round((w.every - w.for) * 1000));
        }
      }),
    );
  });
});
