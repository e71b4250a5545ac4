import { putUInt32BE } from '../protocols/bytes.js';

/**
 * Ids held as 32-bit words, high first (`IdWords`: four a trace id, two a span id), written out: as hex digits for the
 * text formats, as big-endian bytes for the protobuf ones.
 */

/** The two lowercase hex digits of each byte value, as ASCII in the order they are stored little-endian: the first digit in the low byte. */
const PAIRS = Uint16Array.from({ length: 256 }, (_, byte) => {
  const digits = byte.toString(16).padStart(2, '0');
  return digits.charCodeAt(0) | (digits.charCodeAt(1) << 8);
});

/**
 * Writes `count` 32-bit words of `words` from position `from` as lowercase hex, 8 digits a word, high first, into
 * `out` at `at` (room assumed); returns where they end. A byte's two digits come from one table, and no string is
 * made: ids held as words (exemplars, spans) are written out this way.
 */
export function writeHexWords(out: Uint8Array, words: Uint32Array, from: number, count: number, at: number): number {
  for (let w = from; w < from + count; w++) {
    const word = words[w]!;
    // Unrolled: a loop over the four bytes costs a third more. A byte store keeps the low byte.
    let pair = PAIRS[word >>> 24]!;
    out[at] = pair;
    out[at + 1] = pair >> 8;
    pair = PAIRS[(word >>> 16) & 0xff]!;
    out[at + 2] = pair;
    out[at + 3] = pair >> 8;
    pair = PAIRS[(word >>> 8) & 0xff]!;
    out[at + 4] = pair;
    out[at + 5] = pair >> 8;
    pair = PAIRS[word & 0xff]!;
    out[at + 6] = pair;
    out[at + 7] = pair >> 8;
    at += 8;
  }
  return at;
}

/**
 * {@link writeHexWords} through a view of the output, four digits a store: a quarter of the stores and their bounds
 * checks. For the exemplar writer, which writes the ids into its own copy of its fixed text and then copies that whole:
 * written in place through the view of the output the line encoder now keeps, they took no less time (docs/performance.md,
 * "Session 42").
 */
export function putHexWords(view: DataView, words: Uint32Array, from: number, count: number, at: number): number {
  for (let w = from; w < from + count; w++) {
    const word = words[w]!;
    view.setUint32(at, PAIRS[word >>> 24]! | (PAIRS[(word >>> 16) & 0xff]! << 16), true);
    view.setUint32(at + 4, PAIRS[(word >>> 8) & 0xff]! | (PAIRS[word & 0xff]! << 16), true);
    at += 8;
  }
  return at;
}

/** Writes `count` 32-bit words of `words` from position `from` as big-endian bytes into `out` at `at`; returns where they end. */
export function writeIdBytes(out: Buffer, words: Uint32Array, from: number, count: number, at: number): number {
  for (let w = from; w < from + count; w++) at = putUInt32BE(out, words[w]!, at);
  return at;
}
