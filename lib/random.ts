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

// The 64-bit constants of SplitMix64 as int32 halves: the golden gamma, then the two mixing multipliers.
const GAMMA_HI = 0x9e3779b9 | 0;
const GAMMA_LO = 0x7f4a7c15;
const MIX1_HI = 0xbf58476d | 0;
const MIX1_LO = 0x1ce4e5b9;
const MIX2_HI = 0x94d049bb | 0;
const MIX2_LO = 0x133111eb;

/** The high 32 bits (an int32 bit pattern) of the unsigned 64-bit product of two 32-bit halves, from 16-bit pieces. */
function mulHigh(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const cross1 = a0 * b1;
  const cross2 = a1 * b0;
  const carry = ((Math.imul(a0, b0) >>> 16) + (cross1 & 0xffff) + (cross2 & 0xffff)) >>> 16;
  return (Math.imul(a1, b1) + (cross1 >>> 16) + (cross2 >>> 16) + carry) | 0;
}

/** The char code of each nibble's lowercase hex digit. */
const NIBBLE = Array.from({ length: 16 }, (_, n) => n.toString(16).charCodeAt(0));

/** The hex digit of the nibble of `word` at bit `shift`, as a char code. */
const digit = (word: number, shift: number) => NIBBLE[(word >>> shift) & 15]!;

/**
 * Two 32-bit words (any int32 or uint32 bit patterns), high first, as 16 lowercase hex digits. One call of
 * `String.fromCharCode` makes the string flat at once: joining pieces costs several times more on the exemplar path.
 */
export function hex64(hi: number, lo: number): string {
  return String.fromCharCode(
    digit(hi, 28),
    digit(hi, 24),
    digit(hi, 20),
    digit(hi, 16),
    digit(hi, 12),
    digit(hi, 8),
    digit(hi, 4),
    digit(hi, 0),
    digit(lo, 28),
    digit(lo, 24),
    digit(lo, 20),
    digit(lo, 16),
    digit(lo, 12),
    digit(lo, 8),
    digit(lo, 4),
    digit(lo, 0),
  );
}

/** MurmurHash3's 32-bit finalizer: a bijection of int32 bit patterns that mixes every bit into every other. */
function fmix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

/**
 * The point a fraction `f` (0 ≤ f < 1) of the way from `a` to `b` (a ≤ b): a unit draw scaled onto a range, a value
 * between two ranks. `a + f·(b − a)`; where `b − a` is beyond the doubles (bounds more than 1.8e308 apart, or an
 * infinite one), `a·(1 − f) + b·f`, which stays finite where the point is: `-1e308` to `1e308` gave +Inf and, at
 * f = 0, NaN.
 */
export function between(a: number, b: number, f: number): number {
  const span = b - a;
  if (Number.isFinite(span)) return a + f * span;
  return f === 0 || a === b ? a : a * (1 - f) + b * f;
}

/** 32-bit FNV-1a of a text's UTF-16 code units from `basis` (signed: `>>> 0` for the unsigned value). */
export function fnv1a(text: string, basis = 0x811c9dc5): number {
  let hash = basis;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}

/**
 * A seed made of a text (an entry's id): {@link fnv1a} from two bases, the high half kept to 21 bits so that the
 * seed is a safe integer.
 */
export function textSeed(text: string): number {
  return (fnv1a(text) >>> 11) * TWO_32 + (fnv1a(text, 0x050c5d1f) >>> 0);
}

/** The generator of one seed: output n as a 64-bit value, a unit float, or hex; and the ids of trace n (idWords). */
export class SplitMix64 {
  private seedHi: number;
  private seedLo: number;
  // Scratch result of `output` (int32 bit patterns): the hot path allocates nothing.
  private hi = 0;
  private lo = 0;

  constructor(seed: number) {
    const value = BigInt.asUintN(64, BigInt(Math.trunc(seed)));
    this.seedHi = Number(value >> 32n) | 0;
    this.seedLo = Number(value & 0xffff_ffffn) | 0;
  }

  /**
   * Output n into (hi, lo); each 64-bit product's low half is `Math.imul`, its high half {@link mulHigh} plus
   * the cross terms.
   */
  private output(n: number): void {
    const k = n + 1;
    const kHi = Math.floor(k / TWO_32) | 0;
    const kLo = k | 0;
    let lo = Math.imul(kLo, GAMMA_LO);
    let hi = (mulHigh(kLo, GAMMA_LO) + Math.imul(kHi, GAMMA_LO) + Math.imul(kLo, GAMMA_HI)) | 0;
    const low = (lo >>> 0) + (this.seedLo >>> 0);
    hi = (hi + this.seedHi + (low >= TWO_32 ? 1 : 0)) | 0;
    lo = low | 0;
    lo ^= (lo >>> 30) | (hi << 2);
    hi ^= hi >>> 30;
    hi = (mulHigh(lo, MIX1_LO) + Math.imul(hi, MIX1_LO) + Math.imul(lo, MIX1_HI)) | 0;
    lo = Math.imul(lo, MIX1_LO);
    lo ^= (lo >>> 27) | (hi << 5);
    hi ^= hi >>> 27;
    hi = (mulHigh(lo, MIX2_LO) + Math.imul(hi, MIX2_LO) + Math.imul(lo, MIX2_HI)) | 0;
    lo = Math.imul(lo, MIX2_LO);
    this.lo = lo ^ ((lo >>> 31) | (hi << 1));
    this.hi = hi ^ (hi >>> 31);
  }

  /**
   * Seeds this generator with output n of `source`, without BigInt: a stream of its own for each
   * n (draw k of trace n), as cheap to start as one draw.
   */
  reseed(source: SplitMix64, n: number): this {
    source.output(n);
    this.seedHi = source.hi;
    this.seedLo = source.lo;
    return this;
  }

  /** Output n as two unsigned 32-bit words, high then low, into `out` at `at`. */
  words(n: number, out: Uint32Array, at: number): void {
    this.output(n);
    out[at] = this.hi;
    out[at + 1] = this.lo;
  }

  /**
   * The ids of trace n: its trace id's 4 words into `traceId` at `traceAt`, its span id's 2 into `spanId` at
   * `spanAt` (32-bit, high first). Each word is the murmur3 finalizer of the one before with a constant of its own;
   * the first is of n's low half and the seed's, the second of n's high half, the seed's and the first, the span id's
   * last of the trace id's first and last. The finalizer is a bijection, so the trace id's first 64 bits give n back
   * and two traces of one seed never share them. No generator output: about 140 instructions less a trace
   * (docs/performance.md, "Session 44").
   */
  idWords(n: number, traceId: Uint32Array, traceAt: number, spanId: Uint32Array, spanAt: number): void {
    const first = fmix32((n | 0) ^ this.seedLo);
    const second = fmix32(((n / TWO_32) | 0) ^ this.seedHi ^ first);
    const third = fmix32(second ^ 0x9e3779b9);
    const fourth = fmix32(third ^ 0x7f4a7c15);
    traceId[traceAt] = first;
    traceId[traceAt + 1] = second;
    traceId[traceAt + 2] = third;
    traceId[traceAt + 3] = fourth;
    spanId[spanAt] = fmix32(fourth ^ 0x632be5ab);
    spanId[spanAt + 1] = fmix32(first ^ fourth ^ 0x85ebca6b);
  }

  /** Output n mapped to [0, 1) from its top 53 bits. */
  unit(n: number): number {
    this.output(n);
    return ((this.hi >>> 0) * 0x20_0000 + (this.lo >>> 11)) / 2 ** 53;
  }

  /** Output n as 16 lowercase hex digits. */
  hex(n: number): string {
    this.output(n);
    return hex64(this.hi, this.lo);
  }

  /** Output n as an unsigned 64-bit BigInt (for checks and non-hot paths). */
  bigint(n: number): bigint {
    this.output(n);
    return (BigInt(this.hi >>> 0) << 32n) | BigInt(this.lo >>> 0);
  }
}
