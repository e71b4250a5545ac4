import { map, type OperatorFunction } from 'rxjs';
import type { EncodedBatch, TickBatch } from './model/batch.js';
import { check, withMethods } from './internal/arguments.js';

/**
 * Turns one batch of events into the bytes a sink writes (one byte array per batch: the text
 * encoders write their lines as UTF-8 bytes, the protobuf ones their messages; an encoder of
 * your own may return a string) and the frames of its records.
 */
export interface Encoder<B, D extends string | Uint8Array = string | Uint8Array> {
  encode(batch: B): EncodedBatch<D>;
}

/**
 * Encoder map: one encoded chunk per batch. An encoder that throws errors the stream.
 *
 * ```
 * batches:  a-----b-----|
 *           encode(metricsText({ name: 'up' }))
 * chunks:   A-----B-----|   A.data = the bytes of 'up 1 1700000000000\n…'
 * ```
 */
export function encode<B extends TickBatch>(encoder: Encoder<B>): OperatorFunction<B, EncodedBatch> {
  check('encode', 'encoder', encoder, withMethods('encode'));
  return map((batch) => encoder.encode(batch));
}
