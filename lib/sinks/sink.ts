export type { Sink, SinkReport } from '../../operators/deliver.js';

/** A delivery failure, named after the sink that failed. */
export class SinkError extends Error {
  /** Whether trying again may succeed (network errors, 429, 5xx), as opposed to a refusal. */
  readonly retryable: boolean;
  /** How long (ms) the destination asked to wait before trying again (Retry-After, gRPC RetryInfo). */
  readonly retryAfter: number | undefined;

  constructor(
    readonly sink: string,
    /** What went wrong, without the `<sink> sink: ` prefix of the message. */
    readonly detail: string,
    options?: { cause?: unknown; retryable?: boolean; retryAfter?: number },
  ) {
    super(`${sink} sink: ${detail}`, options);
    this.name = 'SinkError';
    this.retryable = options?.retryable ?? false;
    this.retryAfter = options?.retryAfter;
  }
}
