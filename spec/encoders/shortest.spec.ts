import { expect } from 'chai';
import fc from 'fast-check';
import { SHORTEST_MAX_BYTES, writeShortest } from '../../lib/encoders/shortest.js';

const out = Buffer.alloc(64);
const written = (v: number) => out.toString('latin1', 0, writeShortest(out, v, 0));

const bits = new DataView(new ArrayBuffer(8));
/** The double whose IEEE 754 bits are `high:low`. */
function fromBits(high: number, low: number): number {
  bits.setUint32(0, high);
  bits.setUint32(4, low);
  return bits.getFloat64(0);
}
/** The finite double `steps` representable values from positive `v` (further from 0 when steps > 0). */
function stepped(v: number, steps: number): number {
  bits.setFloat64(0, v);
  bits.setBigUint64(0, bits.getBigUint64(0) + BigInt(steps));
  return bits.getFloat64(0);
}

/** Mulberry32: a small seeded generator of 32-bit words, for a sweep that is the same every run. */
function words(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

describe('writeShortest', () => {
  it('writes what String writes for targeted values', () => {
    const values = [
      0,
      -0,
      1,
      -1,
      0.1,
      0.2,
      0.1 + 0.2,
      0.5,
      0.25,
      1.5,
      50,
      49.99999999999999,
      1 / 3,
      2 / 3,
      100,
      1e-3,
      12345.678,
      5e-324,
      -5e-324,
      Number.MIN_VALUE,
      Number.MAX_VALUE,
      -Number.MAX_VALUE,
      Number.EPSILON,
      2 ** 53 - 1,
      2 ** 53,
      2 ** 53 + 2,
      2 ** 53 - 2,
      2 ** 52 - 0.5,
      2 ** 52 + 1,
      2 ** 31,
      2 ** 31 - 1,
      2 ** 32,
      1e9,
      1e15,
      1e16,
      1e17,
      1e21,
      stepped(1e21, -1),
      1e-7,
      stepped(1e-7, -1),
      1e-6,
      stepped(1e-6, -1),
      123e-20,
      9.999999999999999e22,
      1e23,
      2 ** -19,
      stepped(2 ** -19, -1),
      2 ** -17,
      2 ** -1022,
      stepped(2 ** -1022, -1),
      1.7976931348623157e308,
      4.35,
      0.3,
      2.5,
      1.005,
      Infinity,
      -Infinity,
      NaN,
    ];
    for (const v of values) expect(written(v), `${v}`).to.equal(String(v));
  });

  it('writes values whose last eight digits are all 9s or 0s but one, where splitting the digits in two is off by one', () => {
    expect(written(99.89999999999999)).to.equal('99.89999999999999');
    for (const head of ['0.1234567', '1.234567', '12.34567', '50.12345', '0.9876543', '3.141592']) {
      for (const tail of ['899999997', '899999999', '800000001', '800000003']) {
        const v = Number(head + tail);
        expect(written(v), head + tail).to.equal(String(v));
      }
    }
  });

  it('writes the integers at and around every power of ten as String does, where the count of digits changes', () => {
    for (let k = 0; k <= 15; k++)
      for (const v of [10 ** k - 1, 10 ** k, 10 ** k + 1, -(10 ** k)])
        expect(written(v), String(v)).to.equal(String(v));
  });

  it('writes 0 for -0, and a sign for other negative values', () => {
    expect(written(-0)).to.equal('0');
    expect(written(-0.1)).to.equal('-0.1');
    expect(written(-123456789)).to.equal('-123456789');
    expect(written(-1e-7)).to.equal('-1e-7');
  });

  it('picks the even one of two equally close shortest forms', () => {
    // Each is exactly halfway between its two 17-digit (16-digit) neighbours, both of which read back as it.
    expect(written(2 ** 50 + 0.25))
      .to.equal('1125899906842624.2')
      .and.to.equal(String(2 ** 50 + 0.25));
    expect(written(2 ** 50 + 0.75))
      .to.equal('1125899906842624.8')
      .and.to.equal(String(2 ** 50 + 0.75));
    expect(written(524289 / 65536))
      .to.equal('8.000015258789062')
      .and.to.equal(String(524289 / 65536));
  });

  it('writes every power of two and its neighbours as String does', () => {
    for (let e = -1074; e <= 1023; e++) {
      const power = 2 ** e;
      const near = [power, stepped(power, 1), stepped(power, 2), stepped(power, 3)];
      if (power > Number.MIN_VALUE) near.push(stepped(power, -1), stepped(power, -2));
      for (const v of near) {
        expect(written(v), `2^${e}`).to.equal(String(v));
        expect(written(-v), `-2^${e}`).to.equal(String(-v));
      }
    }
  });

  it('writes at the position given, leaves the bytes before it alone and returns where it ends', () => {
    const buffer = Buffer.from('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx');
    const end = writeShortest(buffer, 0.30000000000000004, 3);
    expect(end).to.equal(3 + '0.30000000000000004'.length);
    expect(buffer.toString('latin1', 0, end + 1)).to.equal('xxx0.30000000000000004x');
  });

  it('needs no more than SHORTEST_MAX_BYTES (25) bytes', () => {
    const v = -stepped(2 ** -19, 1);
    const exact = Buffer.alloc(SHORTEST_MAX_BYTES);
    expect(exact.toString('latin1', 0, writeShortest(exact, v, 0))).to.equal('-0.0000019073486328125004');
  });

  it('matches String for any double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (v) => written(v) === String(v)),
      { numRuns: 20_000 },
    );
  });

  it('matches String for doubles of the fast path, 2^-19 to 2^52', () => {
    const inRange = fc.double({ min: 2 ** -19, max: 2 ** 52, noNaN: true });
    fc.assert(
      fc.property(inRange, fc.boolean(), (v, negative) => written(negative ? -v : v) === String(negative ? -v : v)),
      { numRuns: 20_000 },
    );
  });

  it('matches String for integers', () => {
    fc.assert(
      fc.property(fc.integer(), (n) => written(n) === String(n)),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => written(n) === String(n)),
      { numRuns: 20_000 },
    );
  });

  it('matches String for doubles from random 64-bit patterns', () => {
    const word = fc.integer({ min: 0, max: 2 ** 32 - 1 });
    const finite = fc
      .tuple(word, word)
      .map(([high, low]) => fromBits(high, low))
      .filter(Number.isFinite);
    fc.assert(
      fc.property(finite, (v) => written(v) === String(v)),
      { numRuns: 20_000 },
    );
  });

  it('matches String over a seeded sweep of 2 million doubles, most of them in the fast path', () => {
    const next = words(0x5eed);
    let first = '';
    for (let i = 0; i < 2_000_000 && first === ''; i++) {
      const high = next();
      const low = next();
      // Three in four get a biased exponent from 2^-72 to 2^53, just past the fast path's ends.
      const exponent = (high & 3) !== 0 ? 951 + (next() % 126) : (high >>> 20) & 0x7ff;
      const v = fromBits((high & 0x800fffff) | (exponent << 20), low);
      if (!Number.isFinite(v)) continue;
      if (written(v) !== String(v)) first = `${String(v)} written as ${written(v)}`;
    }
    expect(first).to.equal('');
  });
});
