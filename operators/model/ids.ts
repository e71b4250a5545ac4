import { hex64 } from '../../lib/random.js';

/**
 * Trace and span ids as 32-bit words, high first: four a trace id, two a span id, item `s`'s at `4 * s` and
 * `2 * s`. Spans (`SpanColumns`) and exemplars (`ExemplarRows`) hold their ids so.
 */
export interface IdWords {
  readonly traceId: Uint32Array;
  readonly spanId: Uint32Array;
}

/** Item `s`'s trace id as 32 lowercase hex digits (for checks and messages; encoders write bytes). */
export function traceIdHex({ traceId: words }: Pick<IdWords, 'traceId'>, s: number): string {
  return hex64(words[4 * s]!, words[4 * s + 1]!) + hex64(words[4 * s + 2]!, words[4 * s + 3]!);
}

/** Item `s`'s span id as 16 lowercase hex digits. */
export function spanIdHex({ spanId: words }: Pick<IdWords, 'spanId'>, s: number): string {
  return hex64(words[2 * s]!, words[2 * s + 1]!);
}
