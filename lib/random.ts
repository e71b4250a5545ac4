/**
 * SplitMix64, stateless: output n of the generator seeded with `seed` is
 * mix(seed + (n + 1) * GOLDEN_GAMMA). Any tick's random number is computed directly from
 * (seed, tick), so a run is reproducible on every machine and no state is carried
 * between batches.
 *
 * 64-bit arithmetic is done on two 32-bit halves held as int32 bit patterns, with `Math.imul`
 * and 16-bit partial products: BigInt would cost hundreds of nanoseconds per call on the hot
 * path of `jitter`, and float division or `%` on the halves a hundred.
 */

const TWO_32 = 0x1_0000_0000;

/** The generator of one seed: output n as a 64-bit value, a unit float, or hex. */
export class SplitMix64 {
  private readonly seedHi: number;
  private readonly seedLo: number;
  // Scratch result of `output` and `mul` (int32 bit patterns): the hot path allocates nothing.
  private hi = 0;
  private lo = 0;

  constructor(seed: number) {
    const value = BigInt.asUintN(64, BigInt(Math.trunc(seed)));
    this.seedHi = Number(value >> 32n) | 0;
    this.seedLo = Number(value & 0xffff_ffffn) | 0;
  }

  /** Output n into (hi, lo). */
  private output(n: number): void {
    const k = n + 1;
    this.mul(Math.floor(k / TWO_32) | 0, k | 0, 0x9e3779b9 | 0, 0x7f4a7c15);
    const low = (this.lo >>> 0) + (this.seedLo >>> 0);
    let hi = (this.hi + this.seedHi + (low >= TWO_32 ? 1 : 0)) | 0;
    let lo = low | 0;
    lo ^= (lo >>> 30) | (hi << 2);
    hi ^= hi >>> 30;
    this.mul(hi, lo, 0xbf58476d | 0, 0x1ce4e5b9);
    ({ hi, lo } = this);
    lo ^= (lo >>> 27) | (hi << 5);
    hi ^= hi >>> 27;
    this.mul(hi, lo, 0x94d049bb | 0, 0x133111eb);
    ({ hi, lo } = this);
    this.lo = lo ^ ((lo >>> 31) | (hi << 1));
    this.hi = hi ^ (hi >>> 31);
  }

  /** Low 64 bits of (aHi, aLo) × (bHi, bLo) into (hi, lo); the low halves' product from 16-bit pieces. */
  private mul(aHi: number, aLo: number, bHi: number, bLo: number): void {
    const a0 = aLo & 0xffff;
    const a1 = aLo >>> 16;
    const b0 = bLo & 0xffff;
    const b1 = bLo >>> 16;
    const cross1 = a0 * b1;
    const cross2 = a1 * b0;
    const carry = ((Math.imul(a0, b0) >>> 16) + (cross1 & 0xffff) + (cross2 & 0xffff)) >>> 16;
    this.lo = Math.imul(aLo, bLo);
    this.hi = (Math.imul(a1, b1) + (cross1 >>> 16) + (cross2 >>> 16) + carry + Math.imul(aHi, bLo) + Math.imul(aLo, bHi)) | 0;
  }

  /** Output n mapped to [0, 1) from its top 53 bits. */
  unit(n: number): number {
    this.output(n);
    return ((this.hi >>> 0) * 0x20_0000 + (this.lo >>> 11)) / 2 ** 53;
  }

  /** Output n as 16 lowercase hex digits. */
  hex(n: number): string {
    this.output(n);
    return (this.hi >>> 0).toString(16).padStart(8, '0') + (this.lo >>> 0).toString(16).padStart(8, '0');
  }

  /** Output n as an unsigned 64-bit BigInt (for checks and non-hot paths). */
  bigint(n: number): bigint {
    this.output(n);
    return (BigInt(this.hi >>> 0) << 32n) | BigInt(this.lo >>> 0);
  }
}
