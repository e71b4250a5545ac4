import { expect } from 'chai';
import fc from 'fast-check';
import { putHexWords, writeHexWords, writeIdBytes } from '../../lib/encoders/id-words.js';

/** Up to 8 words, a position among them to write from (past the end: none), and a place in the output to write at. */
const wordRun = fc
  .tuple(fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxLength: 8 }), fc.nat({ max: 8 }), fc.nat({ max: 5 }))
  .map(([values, from, at]) => ({
    values,
    words: Uint32Array.from(values),
    from,
    at,
    count: Math.max(0, values.length - from),
  }));

describe('writeHexWords', () => {
  it('writes words as the lowercase hex digits of their bits, 8 a word, at its place, and says where they end', () => {
    fc.assert(
      fc.property(wordRun, ({ values, words, from, at, count }) => {
        const out = Buffer.alloc(at + 8 * count + 3, '.');
        const expected = values
          .slice(from)
          .map((word) => BigInt(word).toString(16).padStart(8, '0'))
          .join('');
        expect(writeHexWords(out, words, from, count, at)).to.equal(at + 8 * count);
        // Nothing before or after the digits is touched.
        expect(out.toString('latin1')).to.equal(`${'.'.repeat(at)}${expected}...`);
      }),
    );
  });

  it('agrees with BigInt on the 128 bits of four words, high first', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (id) => {
        const words = Uint32Array.from({ length: 4 }, (_, w) => Number((id >> BigInt(96 - 32 * w)) & 0xffff_ffffn));
        const out = Buffer.alloc(32);
        writeHexWords(out, words, 0, 4, 0);
        expect(out.toString('latin1')).to.equal(id.toString(16).padStart(32, '0'));
      }),
    );
  });
});

describe('putHexWords', () => {
  it('writes the digits writeHexWords writes, through a view of the output at any place, touching nothing else', () => {
    fc.assert(
      fc.property(wordRun, ({ words, from, at, count }) => {
        const bytes = Buffer.alloc(at + 8 * count + 3, '.');
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
        expect(putHexWords(view, words, from, count, at)).to.equal(at + 8 * count);
        const expected = Buffer.alloc(at + 8 * count + 3, '.');
        writeHexWords(expected, words, from, count, at);
        expect(bytes.toString('latin1')).to.equal(expected.toString('latin1'));
      }),
    );
  });
});

describe('writeIdBytes', () => {
  it('writes words as big-endian bytes, 4 a word, at its place, the bytes of the same id as its hex digits', () => {
    fc.assert(
      fc.property(wordRun, ({ words, from, at, count }) => {
        const out = Buffer.alloc(at + 4 * count + 3, 0xee);
        expect(writeIdBytes(out, words, from, count, at)).to.equal(at + 4 * count);
        const hex = Buffer.alloc(8 * count);
        writeHexWords(hex, words, from, count, 0);
        expect(out.subarray(at, at + 4 * count).toString('hex')).to.equal(hex.toString('latin1'));
        // Nothing before or after the bytes is touched.
        expect([...out.subarray(0, at), ...out.subarray(at + 4 * count)].every((byte) => byte === 0xee)).to.equal(true);
      }),
    );
  });
});
