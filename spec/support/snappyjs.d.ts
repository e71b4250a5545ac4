/**
 * snappyjs ships no types. The specs decompress with it, independently of the `snappy` package
 * svc compresses with; the benchmark measures its compression beside that package's.
 */
declare module 'snappyjs' {
  export function uncompress(compressed: Uint8Array): Uint8Array;
  export function compress(data: Uint8Array): Uint8Array;
}
