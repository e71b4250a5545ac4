import type { Subscriber } from 'rxjs';

/**
 * `work` with whatever it throws sent down `subscriber` as an error. For an operator's own
 * handlers (an inner subscription's callbacks, timers, promise continuations): RxJS routes a
 * throw there to its unhandled-error hook, not downstream, so without this it would escape the
 * stream as an uncaught exception.
 */
export function guarded<A extends unknown[]>(
  subscriber: Pick<Subscriber<unknown>, 'error'>,
  work: (...args: A) => void,
): (...args: A) => void {
  return (...args) => {
    try {
      work(...args);
    } catch (error) {
      subscriber.error(error);
    }
  };
}
