import { asyncScheduler, Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

/** Work due at one instant, run by one Node timer; `fired` once it ran (or began to). */
interface Instant {
  readonly at: number;
  readonly actions: Set<TimedAction<unknown>>;
  timer?: NodeJS.Timeout;
  fired: boolean;
}

/** The instants (epoch ms) that have work due, each with its one timer. */
const instants = new Map<number, Instant>();

/** Delayed work: a member of its instant until it ran or was unsubscribed. */
class TimedAction<T> extends Subscription {
  constructor(
    readonly work: (this: SchedulerAction<T>, state?: T) => void,
    readonly state: T | undefined,
    private readonly instant: Instant,
  ) {
    super();
  }

  /** What `this.schedule(…)` inside the work does: schedules the same work again, as part of this action. */
  schedule(next?: T, later = 0): Subscription {
    this.add(liveScheduler.schedule(this.work, later, next));
    return this;
  }

  override unsubscribe(): void {
    const { instant } = this;
    if (
      !this.closed &&
      !instant.fired &&
      instant.actions.delete(this as unknown as TimedAction<unknown>) &&
      !instant.actions.size
    ) {
      // Nothing left at that instant: its timer must not hold the process (a cancelled wait of days).
      clearTimeout(instant.timer);
      instants.delete(instant.at);
    }
    super.unsubscribe();
  }
}

/** Runs every action of an instant, in the order they were scheduled. */
function fire(instant: Instant): void {
  instant.fired = true;
  instants.delete(instant.at);
  for (const action of instant.actions) {
    if (!action.closed) action.work.call(action as unknown as SchedulerAction<unknown>, action.state);
  }
  // An action its caller keeps after it ran must not keep the others of its instant.
  instant.actions.clear();
}

/**
 * The scheduler of live runs: `asyncScheduler`'s clock, with two changes.
 *
 * - Work due now runs on `setImmediate` instead of `setTimeout(0)`, which Node clamps to 1 ms. A timer that
 *   yields between catch-up batches, or resumes once a sink drained, then loses no millisecond per yield, and
 *   I/O callbacks (a drained stream, a socket) still run before it, as they must for backpressure.
 * - Delayed work due at the same millisecond shares one Node timer. Ten thousand entries ticking once a second
 *   from the same start would otherwise set and clear ten thousand timers a second, each an interval, a bound
 *   function and an action that live until the next tick and so outlive young-generation collections.
 */
export const liveScheduler: SchedulerLike = {
  now: () => asyncScheduler.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    if (delay > 0) {
      const now = asyncScheduler.now();
      // Never before the delay is over; the timer of the instant is set by its first work.
      const at = Math.ceil(now + delay);
      let instant = instants.get(at);
      if (!instant) {
        instant = { at, actions: new Set(), fired: false };
        instants.set(at, instant);
        const scheduled = instant;
        instant.timer = setTimeout(() => fire(scheduled), at - now);
      }
      const action = new TimedAction(work, state, instant);
      instant.actions.add(action as unknown as TimedAction<unknown>);
      return action;
    }
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
