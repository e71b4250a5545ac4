import { asyncScheduler, Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

/**
 * Work due at one instant, run by one Node timer (an immediate for work due now); `fired` once it ran (or began
 * to).
 */
interface Instant {
  /** Epoch ms; NaN for work due now (an instant of its own, never shared). */
  readonly at: number;
  readonly actions: Set<TimedAction<unknown>>;
  timer?: NodeJS.Timeout | NodeJS.Immediate;
  fired: boolean;
}

/** The instants (epoch ms) that have delayed work due, each with its one timer. */
const instants = new Map<number, Instant>();

/**
 * Where an action is once it ran and was not rescheduled: the instant it ran at (its set, its timer and their
 * arguments) is not kept until the action's next run.
 */
const RAN: Instant = { at: Number.NaN, actions: new Set(), fired: true };

/**
 * Work and its state, a member of the instant it is due at until it ran or was unsubscribed. Like RxJS's own
 * actions, it is rescheduled in place (`this.schedule(…)` from its work, or `schedule` on it after it ran): a
 * timer that wakes once a second reuses one action for its whole life instead of making one a wake-up (which,
 * living until the next one, would outlive young-generation collections).
 */
class TimedAction<T> extends Subscription {
  constructor(
    readonly work: (this: SchedulerAction<T>, state?: T) => void,
    public state: T | undefined,
    public instant: Instant,
  ) {
    super();
  }

  /** Moves this action to `later` ms from now (out of the instant it was due at, if it has not run yet). */
  schedule(next?: T, later = 0): Subscription {
    if (this.closed) return this;
    this.leave();
    this.state = next;
    this.instant = join(this as unknown as TimedAction<unknown>, later);
    return this;
  }

  override unsubscribe(): void {
    if (!this.closed) this.leave();
    super.unsubscribe();
  }

  private leave(): void {
    const { instant } = this;
    if (!instant.fired && instant.actions.delete(this as unknown as TimedAction<unknown>) && !instant.actions.size) {
      // Nothing left at that instant: its timer must not hold the process (a cancelled wait of days).
      if (Number.isNaN(instant.at)) clearImmediate(instant.timer as NodeJS.Immediate);
      else {
        clearTimeout(instant.timer as NodeJS.Timeout);
        instants.delete(instant.at);
      }
    }
  }
}

/** Adds `action` to the instant `delay` ms from now (made, with its timer, if it has none yet); returns it. */
function join(action: TimedAction<unknown>, delay: number): Instant {
  if (!(delay > 0)) {
    const instant: Instant = { at: Number.NaN, actions: new Set([action]), fired: false };
    instant.timer = setImmediate(fire, instant);
    return instant;
  }
  const now = asyncScheduler.now();
  // Never before the delay is over; the timer of the instant is set by its first work.
  const at = Math.ceil(now + delay);
  let instant = instants.get(at);
  if (!instant) {
    instant = { at, actions: new Set(), fired: false };
    instants.set(at, instant);
    instant.timer = setTimeout(fire, at - now, instant);
  }
  instant.actions.add(action);
  return instant;
}

/** Runs every action of an instant, in the order they were scheduled. */
function fire(instant: Instant): void {
  instant.fired = true;
  if (!Number.isNaN(instant.at)) instants.delete(instant.at);
  for (const action of instant.actions) {
    // An action an earlier one of this instant rescheduled (or cancelled) runs when it is due now.
    if (action.closed || action.instant !== instant) continue;
    action.instant = RAN;
    action.work.call(action as unknown as SchedulerAction<unknown>, action.state);
  }
  // An action its caller keeps after it ran must not keep the others of its instant.
  instant.actions.clear();
}

/**
 * The scheduler of live runs: `asyncScheduler`'s clock, with three changes.
 *
 * - Work due now runs on `setImmediate` instead of `setTimeout(0)`, which Node clamps to 1 ms. A timer that
 *   yields between catch-up batches, or resumes once a sink drained, then loses no millisecond per yield, and
 *   I/O callbacks (a drained stream, a socket) still run before it, as they must for backpressure.
 * - Delayed work due at the same millisecond shares one Node timer. Ten thousand entries ticking once a second
 *   from the same start would otherwise set and clear ten thousand timers a second, each an interval, a bound
 *   function and an action that live until the next tick and so outlive young-generation collections.
 * - An action is rescheduled in place, as RxJS's own are ({@link TimedAction}).
 */
export const liveScheduler: SchedulerLike = {
  now: () => asyncScheduler.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    const action = new TimedAction(work, state, undefined as unknown as Instant);
    action.instant = join(action as unknown as TimedAction<unknown>, delay);
    return action;
  },
};
