import { map, type OperatorFunction } from 'rxjs';
import type { EncodedBatch, TickBatch } from './batch.js';

/** Turns one batch of events into the bytes a sink writes: one string (or byte array) per batch. */
export interface Encoder<B, D extends string | Uint8Array = string | Uint8Array> {
  encode(batch: B): D;
}

/**
 * Encoder map: one encoded string per batch. An encoder that throws errors the stream.
 *
 * ```
 * batches:  a-----b-----|
 *           encode(metricsText({ name: 'up' }))
 * chunks:   A-----B-----|   A = 'up 1 1700000000000\n…'
 * ```
 */
export function encode<B extends TickBatch>(encoder: Encoder<B>): OperatorFunction<B, EncodedBatch> {
  return map((batch) => ({ size: batch.events ?? batch.size, data: encoder.encode(batch), source: batch }));
}
