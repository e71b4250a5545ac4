/** snappyjs ships no types; the specs use its block decompression, independent of the `snappy` package svc sends with. */
declare module 'snappyjs' {
  export function uncompress(compressed: Uint8Array): Uint8Array;
}
