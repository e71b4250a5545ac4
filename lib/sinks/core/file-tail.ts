/**
 * The end of a file appended to: the trailer it ends with, which lib/sinks/file.ts cuts before appending, apart from
 * the stream machinery of the file sink.
 */

export const LINE_FEED = 0x0a;

/**
 * How many bytes at the end of `end` (the file's last bytes, as many as `trailer` has) are `trailer`: all of
 * them, or all but its line feed (`# EOF` as a hand or another tool ends a file, without one); 0 when it is not there.
 */
export function trailerAt(end: Buffer, trailer: Buffer): number {
  if (trailer.length === 0) return 0;
  if (end.equals(trailer)) return trailer.length;
  if (trailer.at(-1) !== LINE_FEED) return 0;
  const bare = trailer.subarray(0, -1);
  // Only as a whole line: `x# EOF` is not the trailer.
  const line = end.length === trailer.length ? end.subarray(1) : end;
  const before = end.length === trailer.length ? end.at(0) : LINE_FEED;
  return line.equals(bare) && before === LINE_FEED ? bare.length : 0;
}
