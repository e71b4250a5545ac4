/** The lines of an encoded chunk without their line feeds; binary data is read as UTF-8. */
export function splitLines(data: string | Uint8Array): string[] {
  const text = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
