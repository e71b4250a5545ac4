import { asyncScheduler, Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

/**
 * The scheduler of live runs: `asyncScheduler`, except that work due now runs on `setImmediate`
 * instead of `setTimeout(0)`, which Node clamps to 1 ms. A timer that yields between catch-up
 * batches, or resumes once a sink drained, then loses no millisecond per yield, and I/O
 * callbacks (a drained stream, a socket) still run before it, as they must for backpressure.
 */
export const liveScheduler: SchedulerLike = {
  now: () => asyncScheduler.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    if (delay > 0) return asyncScheduler.schedule(work, delay, state);
    const subscription = new Subscription();
    // What `this.schedule(…)` inside the work reschedules: the same work, as a new action of this scheduler.
    const action = Object.assign(subscription, {
      schedule: (next?: T, later = 0) => {
        subscription.add(liveScheduler.schedule(work, later, next));
        return subscription;
      },
    }) as unknown as SchedulerAction<T>;
    const handle = setImmediate(() => {
      if (!subscription.closed) work.call(action, state);
    });
    subscription.add(() => clearImmediate(handle));
    return subscription;
  },
};
