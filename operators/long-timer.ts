import { Observable, asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { check, checkOptional, type Rule, SCHEDULER } from './internal/arguments.js';

/**
 * Longest delay one timer takes: Node clamps a longer one to 1 ms (with a TimeoutOverflowWarning),
 * so it would fire at once.
 */
export const MAX_TIMER_DELAY = 2 ** 31 - 1;

/** A delay: any number but NaN, which would fire at once as if it were 0. */
const DELAY: Rule = { type: 'number', test: (value: number) => !Number.isNaN(value), expected: 'a number' };

/**
 * Like RxJS `timer(delay)`, for any finite delay (a negative one fires at once, `Infinity` never): a wait beyond {@link MAX_TIMER_DELAY} is taken
 * in several wake-ups of the scheduler, each re-reading `scheduler.now()`, so it ends at the due
 * time itself rather than early.
 *
 * ```
 * longTimer(30 days)
 * 0: -----(2^31 - 1 ms)-----(2^31 - 1 ms)-----…-----(0|)   at exactly 30 days
 * ```
 */
export function longTimer(delay: number, scheduler: SchedulerLike = asyncScheduler): Observable<0> {
  check('longTimer', 'delay', delay, DELAY);
  checkOptional('longTimer', 'scheduler', scheduler, SCHEDULER);
  return new Observable<0>((subscriber) => {
    const due = scheduler.now() + Math.max(0, delay);
    let pending: Subscription | undefined;
    const wait = (): void => {
      const left = due - scheduler.now();
      if (left > 0) {
        pending = scheduler.schedule(wait, Math.min(left, MAX_TIMER_DELAY));
        return;
      }
      subscriber.next(0);
      subscriber.complete();
    };
    pending = scheduler.schedule(wait, Math.min(Math.max(0, delay), MAX_TIMER_DELAY));
    return () => pending?.unsubscribe();
  });
}
