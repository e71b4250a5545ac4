/** `out` with room for `more` bytes after its first `used`: binary encoders write a batch into one buffer and grow it when rows are longer than guessed. */
export function grown(out: Buffer, used: number, more: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, used + more));
  out.copy(bigger, 0, 0, used);
  return bigger;
}
