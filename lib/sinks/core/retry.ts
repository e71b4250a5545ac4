import type { RetryConfig } from '../../language/fields.js';

/** How often and how patiently a sink tries to deliver the same data. */
export interface RetryPolicy {
  /** Attempts in all, the first one included (≥ 1). */
  readonly maxAttempts: number;
  /** Upper bound of the wait before the second attempt, in ms. */
  readonly initialBackoff: number;
  /** Upper bound of any wait, in ms. */
  readonly maxBackoff: number;
}

/** Used for whatever `retry` leaves out: about 1.5 s of retries in all before data is given up. */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, initialBackoff: 100, maxBackoff: 5000 };

/** The policy of a sink's `retry` field (durations already in ms), defaults filled in. */
export function retryPolicy(config: RetryConfig | undefined): RetryPolicy {
  const initialBackoff = config?.initial_backoff ?? DEFAULT_RETRY.initialBackoff;
  return {
    maxAttempts: config?.max_attempts ?? DEFAULT_RETRY.maxAttempts,
    initialBackoff,
    maxBackoff: config?.max_backoff ?? Math.max(DEFAULT_RETRY.maxBackoff, initialBackoff),
  };
}

/**
 * Wait before attempt `failed + 1` after `failed` failed attempts: exponential backoff with
 * full jitter, uniform in [0, min(maxBackoff, initialBackoff · 2^(failed − 1))). Full jitter
 * keeps many generators that lost the same backend from reconnecting in lockstep.
 */
export function backoff(policy: RetryPolicy, failed: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxBackoff, policy.initialBackoff * 2 ** Math.max(0, failed - 1));
  return Math.floor(random() * ceiling);
}
