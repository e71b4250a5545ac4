export type { Sink } from '../../operators/deliver.js';

/** A delivery failure, named after the sink that failed. */
export class SinkError extends Error {
  constructor(
    readonly sink: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${sink} sink: ${message}`, options);
    this.name = 'SinkError';
  }
}
