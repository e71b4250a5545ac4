import { writeText } from './grow.js';

/** Binary exponents (of the value as `c·2^q`, `2^52 ≤ c < 2^53`) of the fast path's non-integers. */
const Q_MIN = -71;
const Q_MAX = -1;
const P26 = 2 ** 26;
const P53 = 2 ** 53;
const E8 = 1e8;

/**
 * Per binary exponent q in [Q_MIN, Q_MAX] (index q - Q_MIN), the decimal scale K: the smallest
 * that makes the gap between neighbours, 2^q, at least 1 once scaled by 10^K, so that the
 * rounding interval (half a gap each side) holds an integer. Then `10^K·2^q = 5^K/2^E`
 * gives E. K ≤ 22, and 10^K is an exact double, so the comparison is exact.
 */
const SCALES = Int32Array.from({ length: Q_MAX - Q_MIN + 1 }, (_, i) => {
  let k = 0;
  while (10 ** k * 2 ** (Q_MIN + i) < 1) k++;
  return k;
});
const K_MAX = Math.max(...SCALES);
/** 5^K split in 26-bit limbs, and half of it: half a gap in units of 2^-E of the scaled value. */
const FIVE_LOW = Float64Array.from({ length: K_MAX + 1 }, (_, k) => 5 ** k % P26);
const FIVE_HIGH = Float64Array.from({ length: K_MAX + 1 }, (_, k) => Math.floor(5 ** k / P26));
const HALF_GAP = Float64Array.from({ length: K_MAX + 1 }, (_, k) => 5 ** k / 2);

const POWERS_OF_TWO = Float64Array.from({ length: 53 }, (_, e) => 2 ** e);
const INVERSE_POWERS_OF_TWO = POWERS_OF_TWO.map((p) => 1 / p);

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
/** Index of the word holding sign, exponent and top of the mantissa. */
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LOW = 1 - HIGH;

/** Most bytes {@link writeShortest} writes (`-0.0000019073486328125004`, or `String`'s longest exponent form). */
export const SHORTEST_MAX_BYTES = 25;

/**
 * Writes the ASCII bytes of `String(v)` (ECMAScript Number::toString) into `out` at `at` (room
 * for {@link SHORTEST_MAX_BYTES} assumed) and returns where they end.
 *
 * Fast path, for integers below 2^53 in magnitude: their decimal digits. For other values in
 * 2^-19 ≤ |v| < 2^52 (about 1.9e-6 to 4.5e15), free-format shortest digits (Steele & White's
 * question, answered in one step as Schubfach does): with v = c·2^q, scale by the smallest
 * 10^K that makes the gap 2^q at least 1 wide. The scaled v = c·5^K / 2^E is computed exactly
 * in 26-bit limbs held in doubles, as its integer part s and fraction. The rounding interval,
 * half a gap each side and under 10 wide, holds at most one multiple of 10, which is then the
 * shortest; otherwise the shortest are s or s + 1 and the closer of the ones inside is taken
 * (ties to even).
 *
 * In this range two refinements of the general algorithm cannot change the result, so they
 * are left out. Whether the interval's ends are included (they are when c is even): an end is
 * an odd multiple of 2^(q-1), never a multiple of 10^-K, since K < 1 - q. The narrower gap
 * below a power of two (c = 2^52): such a v is 2^p with -19 ≤ p ≤ -1, an exact decimal of
 * -p < K places, so s is v itself, with a last digit 0, and is taken; and v's digits (at most
 * 14) are its shortest form, as every other decimal as short is further than 2^-53·v from it.
 *
 * Everything else (subnormals, huge, tiny, non-finite) falls back to `String(v)`.
 */
export function writeShortest(out: Buffer, v: number, at: number): number {
  ONE[0] = v;
  return writeShortestAt(out, viewOf(out), ONE, 0, at);
}

/** {@link writeShortest}'s argument, for a caller that does not hold it in a column. */
const ONE = new Float64Array(1);

/** A view of all of `out`, for {@link writeShortestAt}: made once a buffer, by a caller writing many values into it. */
export const viewOf = (out: Buffer): DataView => new DataView(out.buffer, out.byteOffset, out.length);

/**
 * {@link writeShortest} of `values[index]`, `view` a view of all of `out` ({@link viewOf}): a non-integer's digits go
 * in four at a store through it. A hot caller holds its values in a column: a number that is no small integer, handed
 * to a function not inlined, is boxed first (an allocation a value).
 */
export function writeShortestAt(out: Buffer, view: DataView, values: Float64Array, index: number, at: number): number {
  const v = values[index]!;
  const magnitude = Math.abs(v);
  if (magnitude < P53 && Math.floor(magnitude) === magnitude) {
    if (v < 0) out[at++] = 45; // '-' (not for -0)
    return writeInteger(out, magnitude, at);
  }
  bits[0] = v;
  const high = words[HIGH]!;
  const low = words[LOW]!;
  const q = ((high >>> 20) & 0x7ff) - 1075;
  if (q < Q_MIN || q > Q_MAX) return writeText(out, String(v), at);
  if (v < 0) out[at++] = 45;
  const fraction = high & 0xfffff;
  const k = SCALES[q - Q_MIN]!;
  const e = -q - k;

  // W = c·5^K with c = cHigh·2^26 + cLow (27 and 26 bits), 5^K = fHigh·2^26 + fLow (≤ 26 bits
  // each): every product and sum below stays under 2^53, so all of it is exact.
  const cHigh = ((fraction | 0x100000) << 6) | (low >>> 26);
  const cLow = low & 0x3ffffff;
  const fLow = FIVE_LOW[k]!;
  const fHigh = FIVE_HIGH[k]!;
  const p0 = cLow * fLow;
  const carry0 = Math.floor(p0 / P26);
  const cross = cHigh * fLow;
  const crossHigh = Math.floor(cross / P26);
  const middle = cLow * fHigh + (cross - crossHigh * P26) + carry0;
  const carry1 = Math.floor(middle / P26);
  const top = cHigh * fHigh + crossHigh + carry1; // W = top·2^52 + below
  const below = (middle - carry1 * P26) * P26 + (p0 - carry0 * P26);

  // s = floor(W / 2^E) = top·2^(52-E) + belowInt, as a·10^8 + b; the fraction is r / 2^E.
  const one = POWERS_OF_TWO[e]!;
  const belowInt = Math.floor(below * INVERSE_POWERS_OF_TWO[e]!);
  const r = below - belowInt * one;
  const topPart = top * POWERS_OF_TWO[52 - e]!;
  // The estimate of a is never low (a·10^8 is a double, and the double 1e-8 is above 10^-8); it
  // is one too high when s is within a rounding of the next multiple of 10^8.
  let a = Math.floor((topPart + belowInt) * 1e-8);
  let b = topPart - a * E8 + belowInt; // exact: each partial result is an integer under 2^53
  if (b < 0) {
    a--;
    b += E8;
  }

  // Distances from v to candidates are integers, the half-gap is not: no candidate is on an end.
  const half = HALF_GAP[k]!;
  const bits32 = b | 0; // b < 2^31: int32 division, no fmod
  const d = bits32 - ((bits32 / 10) | 0) * 10;
  if (d * one + r < half)
    b -= d; // s - d, the multiple of 10 at or below v
  else if ((10 - d) * one - r < half)
    b += 10 - d; // the one above
  // Else s or s + 1: the one inside, or the closer (ties to even) when both are.
  else if (r > half || (one - r < half && 2 * r + (bits32 & 1) > one)) b++;
  if (b === E8) {
    a++;
    b = 0;
  }
  return writeDecimal(out, view, a, b, (a >= E8 ? 17 : 16) - k, at);
}

/**
 * Writes the digits of `a·10^8 + b` (a of 8 or 9 digits, b < 10^8), as a non-integer with `n`
 * digits before the point (`0.000…` when n ≤ 0), without trailing zeros.
 */
function writeDecimal(out: Buffer, view: DataView, a: number, b: number, n: number, at: number): number {
  let end: number;
  if (n >= 1) {
    // The digits one place right, then the first n moved back over the gap for the point, four at a time. With a
    // ninth digit of `a` first (most values), each load spans two of the run's stores, which the processor does not
    // forward; still less time than a byte at a time.
    end = writeDigitRun(view, a, b, at + 1);
    let i = 0;
    for (; i + 4 <= n; i += 4) view.setUint32(at + i, view.getUint32(at + 1 + i, true), true);
    for (; i < n; i++) out[at + i] = out[at + 1 + i]!;
    out[at + n] = 46; // '.'
  } else {
    view.setUint16(at, ZERO_POINT, true);
    for (let z = 0; z < -n; z++) out[at + 2 + z] = 48;
    end = writeDigitRun(view, a, b, at + 2 - n);
  }
  while (out[end - 1] === 48) end--;
  return end;
}

/** "0." as a little-endian 16-bit word. */
const ZERO_POINT = 0x2e30;

/** "00" … "99", each the two character codes of a little-endian 16-bit word: the first digit in the low byte. */
const PAIRS = Uint16Array.from({ length: 100 }, (_, i) => (48 + ((i / 10) | 0)) | ((48 + (i % 10)) << 8));

/** Writes the digits of `a·10^8 + b` (1 ≤ a < 10^9, b < 10^8) through `view`; returns where they end. */
function writeDigitRun(view: DataView, a: number, b: number, at: number): number {
  let high = a | 0;
  if (high >= E8) {
    const first = (high / E8) | 0;
    view.setUint8(at++, 48 + first);
    high -= first * E8;
  }
  writeEight(view, high, at);
  writeEight(view, b | 0, at + 8);
  return at + 16;
}

/**
 * Writes `n` (below 10^8) as eight digits, zero-padded, through `view`: four digits a store, two pairs from the table.
 * Half the loads and a quarter of the stores (each with its bounds check) of byte stores: a non-integer's digits were
 * the largest part of writing it (docs/performance.md, "Session 42").
 */
function writeEight(view: DataView, n: number, at: number): void {
  const high = (n / 10000) | 0;
  const low = n - high * 10000;
  const p0 = (high / 100) | 0;
  const p2 = (low / 100) | 0;
  view.setUint32(at, PAIRS[p0]! | (PAIRS[high - p0 * 100]! << 16), true);
  view.setUint32(at + 4, PAIRS[p2]! | (PAIRS[low - p2 * 100]! << 16), true);
}

/** Writes the digits of `n`, a non-negative integer below 2^53, into `out` at `at`; returns where they end. */
export function writeInteger(out: Buffer, n: number, at: number): number {
  // Most counts are below 10^8 and need no division of doubles, which took a fifth of writing one.
  if (n < E8) return writeDigits(out, n, digitCount(n), at);
  // Exact: n / 10^8 < 2^27 is never within half an ulp (2^-27) of an integer it is not.
  const a = Math.floor(n / E8);
  at = writeDigits(out, a, digitCount(a), at);
  return writeDigits(out, n - a * E8, 8, at);
}

/**
 * The number of digits of `n`, an integer below 10^9, by comparisons with constants: a loop over a table of powers of
 * ten cost about an eighth of writing a seven-digit integer (docs/performance.md, "Session 42").
 */
function digitCount(n: number): number {
  if (n < 1e4) return n < 100 ? (n < 10 ? 1 : 2) : n < 1e3 ? 3 : 4;
  if (n < 1e6) return n < 1e5 ? 5 : 6;
  return n < 1e7 ? 7 : n < 1e8 ? 8 : 9;
}

/**
 * Writes `n`, an integer below 10^9, as `digits` digits (zero-padded) from the last pair back, a byte at a time:
 * {@link writeInteger} is also called by encoders that keep no view of their output. Returns where they end.
 */
function writeDigits(out: Buffer, n: number, digits: number, at: number): number {
  const end = at + digits;
  let p = end;
  let rest = n | 0;
  while (p - at >= 2) {
    const next = (rest / 100) | 0;
    const pair = PAIRS[rest - next * 100]!;
    out[--p] = pair >> 8; // a byte store keeps the low byte
    out[--p] = pair;
    rest = next;
  }
  if (p > at) out[--p] = 48 + rest;
  return end;
}
