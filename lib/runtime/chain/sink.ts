import type { Sink } from '../../../operators/deliver.js';
import type { Entry } from '../../config/types.js';
import { encoderKindOf } from '../../encoders/index.js';
import { createSink } from '../../sinks/index.js';
import type { SinkDeps } from '../../sinks/kinds/index.js';

/**
 * The sink an entry's chain delivers to, as its `sink` configuration names it, told what its
 * encoder writes (the http_push body type and how its chunks join, the openmetrics trailer, zipkin_json's whole chunks). Throws when it cannot be built.
 */
export function entrySink(entry: Entry, deps: Omit<SinkDeps, EncoderSinkDeps>): Sink {
  return createSink(entry.sink, { ...deps, ...encoderSinkDeps(entry.encoder.type) });
}

/** What a sink is told of the encoder whose chunks it takes. */
type EncoderSinkDeps = 'encoder' | 'trailer' | 'join' | 'wholeChunks';

/**
 * What a sink is told of `encoder`, whose chunks it takes: its type (the http_push body type), how its chunks join,
 * the trailer a stream of it ends with (openmetrics `# EOF`), whether each chunk is one document (zipkin_json).
 */
export function encoderSinkDeps(encoder: Entry['encoder']['type']): Pick<SinkDeps, EncoderSinkDeps> {
  const kind = encoderKindOf(encoder);
  return { encoder, trailer: kind?.trailer, join: kind?.join, wholeChunks: kind?.wholeChunks };
}

/** Takes every write and keeps nothing: for runs that read the chain's hooks instead (svc test, previews). */
export const DISCARD: Sink = { write: () => undefined, flush: () => Promise.resolve(), close: () => Promise.resolve() };
