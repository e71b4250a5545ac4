/** Writing bytes and fixed-width numbers into a buffer that an encoder or a framing writes a message into. */

/*
 * Held once: this V8 does not inline the look-up of a method on a typed array (a `Buffer` or a `Uint8Array`), even
 * where the call site's feedback is monomorphic, so `out.set(…)` or `out.writeDoubleLE(…)` calls the load builtin
 * before the method (about 10 ns a `set`, 4–6 a `writeDoubleLE`); calling a reference held once skips the look-up.
 * Every such write on the hot path of an encoder or a framing goes through the functions below.
 */
const copyInto = Uint8Array.prototype.set;
const { writeDoubleLE, writeUInt32LE, writeUInt32BE, writeBigUInt64LE } = Buffer.prototype;

/** Writes `bytes` into `out` at `at` (room assumed); returns where they end. */
export function putBytes(out: Uint8Array, bytes: Uint8Array, at: number): number {
  copyInto.call(out, bytes, at);
  return at + bytes.length;
}

/** Writes `value` (0 to 999 999) as six decimal digits, leading zeros kept, at `at` (room assumed). */
export function putSixDigits(out: Uint8Array, value: number, at: number): void {
  for (let k = at + 5; k >= at; k--) {
    const rest = (value / 10) | 0;
    out[k] = 48 + value - rest * 10; // '0' + the digit
    value = rest;
  }
}

/** Writes `value` as a little-endian double (protobuf's `double`, `fixed64` of a float) at `at`; returns its end. */
export function putDoubleLE(out: Buffer, value: number, at: number): number {
  return writeDoubleLE.call(out, value, at);
}

/** Writes `value` as a little-endian 32-bit unsigned integer (protobuf's `fixed32`) at `at`; returns its end. */
export function putUInt32LE(out: Buffer, value: number, at: number): number {
  return writeUInt32LE.call(out, value, at);
}

/** Writes `value` as a big-endian 32-bit unsigned integer (an id's word as bytes) at `at`; returns its end. */
export function putUInt32BE(out: Buffer, value: number, at: number): number {
  return writeUInt32BE.call(out, value, at);
}

/** Writes `value` as a little-endian 64-bit unsigned integer (protobuf's `fixed64`) at `at`; returns its end. */
export function putBigUInt64LE(out: Buffer, value: bigint, at: number): number {
  return writeBigUInt64LE.call(out, value, at);
}

/** ES2024's well-formed string methods: Node 20 has them, the ES2022 lib svc compiles with does not type them. */
interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/**
 * `text` with each lone surrogate replaced by U+FFFD, as Node's `Buffer` writes such a string as UTF-8 (the text
 * encoders, remote write 2.0's symbols). For strings protobufjs encodes: it writes a lone surrogate as its three
 * CESU-8 bytes, which are no UTF-8, and Prometheus refuses a whole scrape for one label value holding them (an
 * OTLP receiver, a whole request). A well-formed string, the usual one, costs one scan in V8 (no copy).
 */
export function wellFormed(text: string): string {
  const checked = text as unknown as WellFormedString;
  return checked.isWellFormed() ? text : checked.toWellFormed();
}
