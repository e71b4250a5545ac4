import { expect } from 'chai';
import fc from 'fast-check';
import { SplitMix64, hex64 } from '../lib/random.js';

const MASK = (1n << 64n) - 1n;

/** Textbook SplitMix64 in BigInt: the reference the fast version must match bit for bit. */
function reference(seed: number | bigint, n: number): bigint {
  let z = (BigInt.asUintN(64, BigInt(seed)) + BigInt(n + 1) * 0x9e3779b97f4a7c15n) & MASK;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}

/** The inverse of MurmurHash3's 32-bit finalizer, from the inverses of its multipliers modulo 2^32. */
function unmix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, inverse(0xc2b2ae35));
  x ^= (x >>> 13) ^ (x >>> 26);
  x = Math.imul(x, inverse(0x85ebca6b));
  return (x ^ (x >>> 16)) >>> 0;
}

/** The inverse of an odd number modulo 2^32 (Newton's iteration doubles the correct low bits each step). */
function inverse(odd: number): number {
  let x = odd;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(odd, x));
  return x;
}

describe('SplitMix64', () => {
  it('matches the published first outputs for seed 0', () => {
    // First outputs of SplitMix64 seeded with 0, as in the reference C implementation.
    const rng = new SplitMix64(0);
    expect(rng.hex(0)).to.equal('e220a8397b1dcdaf');
    expect(rng.hex(1)).to.equal('6e789e6aa1b965f4');
    expect(rng.hex(2)).to.equal('06c45d188009454f');
  });

  it('writes two words as the 16 hex digits of their 64 bits, whatever their sign', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }),
        fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }),
        (hi, lo) => {
          const bits = (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
          expect(hex64(hi, lo)).to.equal(bits.toString(16).padStart(16, '0'));
        },
      ),
    );
  });

  it("makes a trace's ids whose first 64 bits give n back, the rest mixed from them, none shared", () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.nat({ max: 2 ** 50 }), (seed, first) => {
        const rng = new SplitMix64(seed);
        const seedBits = BigInt.asUintN(64, BigInt(seed));
        const traces = new Set<string>();
        const spans = new Set<string>();
        for (let n = first; n < first + 200; n++) {
          const traceId = new Uint32Array(5);
          const spanId = new Uint32Array(3);
          rng.idWords(n, traceId, 1, spanId, 1);
          const low = unmix(traceId[1]!) ^ Number(seedBits & 0xffff_ffffn);
          const high = unmix(traceId[2]!) ^ Number(seedBits >> 32n) ^ traceId[1]!;
          expect((high >>> 0) * 2 ** 32 + (low >>> 0), 'n from the first two words').to.equal(n);
          expect([traceId[0], spanId[0]], 'nothing before its place').to.deep.equal([0, 0]);
          traces.add(traceId.join());
          spans.add(spanId.join());
          // The same ids again for the same n.
          const again = new Uint32Array(5);
          rng.idWords(n, again, 1, new Uint32Array(3), 1);
          expect([...again]).to.deep.equal([...traceId]);
        }
        expect([traces.size, spans.size]).to.deep.equal([200, 200]);
      }),
      { numRuns: 30 },
    );
  });

  it('matches a BigInt reference for any seed and tick', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.nat({ max: 2 ** 50 }), (seed, n) => {
        expect(new SplitMix64(seed).bigint(n)).to.equal(reference(seed, n));
      }),
    );
  });

  it('maps to [0, 1) and differs between seeds', () => {
    const a = new SplitMix64(1);
    const b = new SplitMix64(2);
    let same = 0;
    for (let n = 0; n < 1000; n++) {
      const u = a.unit(n);
      expect(u).to.be.at.least(0).and.below(1);
      if (u === b.unit(n)) same++;
    }
    expect(same).to.equal(0);
  });

  it('writes output n as two 32-bit words, and reseeds from another stream as the reference seeded with its output', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.nat({ max: 2 ** 50 }), fc.nat(), (seed, n, k) => {
        const source = new SplitMix64(seed);
        const words = new Uint32Array(3);
        source.words(n, words, 1);
        expect((BigInt(words[1]!) << 32n) | BigInt(words[2]!)).to.equal(reference(seed, n));
        const stream = new SplitMix64(7).reseed(source, n);
        expect(stream.bigint(k)).to.equal(reference(reference(seed, n), k));
      }),
    );
  });
});
