import { map, type OperatorFunction } from 'rxjs';
import type { EncodedBatch, TickBatch } from './batch.js';

/** Turns one batch of events into the bytes a sink writes, one string per batch. */
export interface Encoder<B> {
  encode(batch: B): string;
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
  return map((batch) => ({ size: batch.size, data: encoder.encode(batch) }));
}
