import type { Encoder } from '../../operators/encode.js';
import type { Labelled, SampleBatch } from '../../operators/batch.js';

export type { Encoder };

/** Encoder of metric samples (a `metrics` entry). */
export type MetricEncoder = Encoder<Labelled<SampleBatch>>;

/** A metric encoder that writes text lines. */
export type TextMetricEncoder = Encoder<Labelled<SampleBatch>, string>;
