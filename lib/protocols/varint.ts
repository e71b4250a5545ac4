/**
 * Protobuf varints for encoders that write messages byte by byte: any non-negative integer up to 2^53 (a
 * millisecond timestamp, a length, a symbol reference), and zigzag for the signed `sint` fields.
 */

/** Bytes of `value` as a varint. */
export function varintBytes(value: number): number {
  let bytes = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    bytes++;
  }
  return bytes;
}

/** Writes `value` as a varint into `out` at `at`; returns where it ends. */
export function writeVarint(out: Buffer, value: number, at: number): number {
  while (value >= 0x80) {
    // `&` reads the low 32 bits, whose low 7 are the value's: 2^32 is a multiple of 2^7.
    out[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 0x80);
  }
  out[at] = value;
  return at + 1;
}

/** `sint32` and `sint64` as their varint carries them: 0, -1, 1, -2 … become 0, 1, 2, 3 … */
export function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}
