/**
 * `out` with room for `more` bytes after its first `used`: binary encoders write a batch into one buffer and
 * grow it when rows are longer than guessed.
 */
export function grown(out: Buffer, used: number, more: number): Buffer {
  return copied(out, used, Math.max(out.length * 2, used + more));
}

/**
 * `out` with room for `rest` bytes after its first `used`, where `rest` already estimates the rest of the batch
 * (its rows at the length guessed, with a margin): grown to that, not doubled, since a chunk keeps its whole buffer
 * alive. By an eighth at least, so that rows ever longer cost a few copies, not one every few rows.
 */
export function grownToFit(out: Buffer, used: number, rest: number): Buffer {
  return copied(out, used, Math.max(used + rest, out.length + (out.length >> 3)));
}

/**
 * `out`'s first `used` bytes as a chunk keeps them, since a sink holds a chunk's whole buffer for as long as its
 * receiver makes it wait: in memory of their own when more than `slack` bytes of `out` lie past them (rows shorter
 * than guessed), or when `out` is a slice of Node's 8 KiB buffer pool (a batch of a few rows, as an entry's timer
 * makes at a few thousand events a second), whose slab a held slice keeps alive with the short-lived buffers cut from
 * it after (docs/reliability.md, "What a held-back sink really holds"); else `out` itself, not copied.
 */
export function fitted(out: Buffer, used: number, slack: number): Buffer {
  const pooled = out.buffer.byteLength === Buffer.poolSize && out.length < Buffer.poolSize;
  if (!pooled && out.length - used <= slack) return out.subarray(0, used);
  // Never pooled, and not zeroed first: every byte is copied over.
  return copied(out, used, used, Buffer.allocUnsafeSlow);
}

/** A buffer of `length` bytes (made by `alloc`) starting with `out`'s first `used`. */
function copied(out: Buffer, used: number, length: number, alloc = Buffer.allocUnsafe): Buffer {
  const bigger = alloc(length);
  out.copy(bigger, 0, 0, used);
  return bigger;
}

/**
 * Writes `text` as UTF-8 into `out` at `at` (room for 3 bytes a UTF-16 unit assumed) and
 * returns where it ends. ASCII, which label sets and numbers nearly always are, is copied a
 * unit at a time: for the short texts of one line that beats `Buffer.write`'s own checks.
 */
export function writeText(out: Buffer, text: string, at: number): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x80) return at + out.write(text.slice(i), at);
    out[at++] = unit;
  }
  return at;
}
