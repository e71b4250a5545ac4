/**
 * SplitMix64, stateless: output n of the generator seeded with `seed` is
 * mix(seed + (n + 1) * GOLDEN_GAMMA). Any tick's random number is computed directly from
 * (seed, tick), so a run is reproducible on every machine and no state is carried
 * between batches.
 *
 * 64-bit arithmetic is done on two unsigned 32-bit halves: BigInt would cost hundreds of
 * nanoseconds per call on the hot path of `jitter`.
 */

/** A 64-bit unsigned integer as two 32-bit halves. */
interface U64 {
  hi: number;
  lo: number;
}

const TWO_32 = 0x1_0000_0000;
const GAMMA: U64 = { hi: 0x9e3779b9, lo: 0x7f4a7c15 };
const MUL_1: U64 = { hi: 0xbf58476d, lo: 0x1ce4e5b9 };
const MUL_2: U64 = { hi: 0x94d049bb, lo: 0x133111eb };

/** Splits a safe integer (negative ones in two's complement) into 64-bit halves. */
function fromInteger(n: number): U64 {
  const value = BigInt.asUintN(64, BigInt(Math.trunc(n)));
  return { hi: Number(value >> 32n), lo: Number(value & 0xffff_ffffn) };
}

function add(a: U64, b: U64, out: U64): U64 {
  const lo = a.lo + b.lo;
  out.hi = (a.hi + b.hi + (lo >= TWO_32 ? 1 : 0)) >>> 0;
  out.lo = lo >>> 0;
  return out;
}

/** Low 64 bits of a * b: the high half from integer multiplies only (16-bit limbs for the carry). */
function mul(a: U64, b: U64, out: U64): U64 {
  const a0 = a.lo & 0xffff;
  const a1 = a.lo >>> 16;
  const b0 = b.lo & 0xffff;
  const b1 = b.lo >>> 16;
  // High 32 bits of a.lo * b.lo, each partial product below 2^32.
  const t = a0 * b0;
  const m1 = a1 * b0 + (t >>> 16);
  const m2 = a0 * b1 + (m1 & 0xffff);
  const carry = a1 * b1 + (m1 >>> 16) + (m2 >>> 16);
  out.hi = (carry + Math.imul(a.hi, b.lo) + Math.imul(a.lo, b.hi)) >>> 0;
  out.lo = Math.imul(a.lo, b.lo) >>> 0;
  return out;
}

/** x ^= x >>> k, for 0 < k < 32. */
function xorShiftRight(x: U64, k: number): U64 {
  const lo = (x.lo >>> k) | (x.hi << (32 - k));
  x.lo = (x.lo ^ lo) >>> 0;
  x.hi = (x.hi ^ (x.hi >>> k)) >>> 0;
  return x;
}

function mix(z: U64): U64 {
  mul(xorShiftRight(z, 30), MUL_1, z);
  mul(xorShiftRight(z, 27), MUL_2, z);
  return xorShiftRight(z, 31);
}

/** The generator of one seed: output n as a 64-bit value, a unit float, or hex. */
export class SplitMix64 {
  private readonly seed: U64;
  // Scratch registers: the hot path allocates nothing.
  private readonly step: U64 = { hi: 0, lo: 0 };
  private readonly state: U64 = { hi: 0, lo: 0 };

  constructor(seed: number) {
    this.seed = fromInteger(seed);
  }

  private output(n: number): U64 {
    const k = n + 1;
    this.step.hi = Math.floor(k / TWO_32) >>> 0;
    this.step.lo = k >>> 0;
    return mix(add(this.seed, mul(this.step, GAMMA, this.step), this.state));
  }

  /** Output n mapped to [0, 1) from its top 53 bits. */
  unit(n: number): number {
    const z = this.output(n);
    return (z.hi * 0x20_0000 + (z.lo >>> 11)) / 2 ** 53;
  }

  /** Output n as 16 lowercase hex digits. */
  hex(n: number): string {
    const z = this.output(n);
    return z.hi.toString(16).padStart(8, '0') + z.lo.toString(16).padStart(8, '0');
  }

  /** Output n as an unsigned 64-bit BigInt (for checks and non-hot paths). */
  bigint(n: number): bigint {
    const z = this.output(n);
    return (BigInt(z.hi) << 32n) | BigInt(z.lo);
  }
}
