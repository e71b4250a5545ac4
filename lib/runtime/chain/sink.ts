import type { Sink } from '../../../operators/deliver.js';
import type { Entry } from '../../config/types.js';
import { encoderSinkDeps, type EncoderSinkDeps } from '../../encoders/index.js';
import { createSink } from '../../sinks/index.js';
import type { SinkDeps } from '../../sinks/kinds/index.js';

/**
 * The sink an entry's chain delivers to, as its `sink` configuration names it, told what its
 * encoder writes (the http_push body type and how its chunks join, the openmetrics trailer, zipkin_json's whole chunks). Throws when it cannot be built.
 */
export function entrySink(entry: Entry, deps: Omit<SinkDeps, keyof EncoderSinkDeps>): Sink {
  return createSink(entry.sink, { ...deps, ...encoderSinkDeps(entry.encoder.type) });
}

/** Takes every write and keeps nothing: for runs that read the chain's hooks instead (svc test, previews). */
export const DISCARD: Sink = { write: () => undefined, flush: () => Promise.resolve(), close: () => Promise.resolve() };
