/**
 * `out` with room for `more` bytes after its first `used`: binary encoders write a batch into one buffer and
 * grow it when rows are longer than guessed.
 */
export function grown(out: Buffer, used: number, more: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, used + more));
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
