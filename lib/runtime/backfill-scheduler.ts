import { VirtualAction, VirtualTimeScheduler, type Observable, type SchedulerAction, type Subscription } from 'rxjs';
import { setImmediate as nextMacrotask } from 'node:timers/promises';

/** Longest stretch of real time the driver runs actions before it lets I/O, signals and timers in. */
const YIELD_EVERY_MS = 10;

/**
 * Virtual time for a backfill: `now()` starts at `start` (an epoch instant) and jumps from one
 * scheduled action to the next, so a chain built on it produces the events of hours in seconds,
 * with the timestamps, windows and starts real time would give.
 *
 * Unlike `VirtualTimeScheduler.flush`, {@link run} is asynchronous: it lets the event loop run
 * every few milliseconds (a sink's writes reach the OS, signals and progress get their turn), and
 * it never moves the clock past the present instant while a chain is held back by its sink
 * ({@link holdWhile}). In real time a timer held back loses the slots its duration cuts off; here
 * time waits for the destination instead, so every event of the duration is produced, and no more
 * are in memory than the sinks' own buffers allow.
 */
export class BackfillScheduler extends VirtualTimeScheduler {
  /** Chains held back by their sink now: the clock stays at the present instant while any is. */
  private held = 0;
  /** Resolves the driver's wait for something to do. */
  private nudge: (() => void) | undefined;

  constructor(start: number) {
    super(VirtualAction, Infinity);
    this.frame = start;
  }

  override schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
    const subscription = super.schedule(work, delay, state);
    // Work scheduled from outside the driver (a sink's callback, a stop signal) wakes it.
    this.wake();
    return subscription;
  }

  /** Keeps the clock from moving on while `held`'s latest value is true (a sink making its chain wait). */
  holdWhile(held: Observable<boolean>): Subscription {
    let holding = false;
    return held.subscribe((value) => {
      if (value === holding) return;
      holding = value;
      this.held += value ? 1 : -1;
      if (!value) this.wake();
    });
  }

  /**
   * Runs the scheduled actions in time order until `until` settles: every action due at the
   * present instant, then the clock moves to the next one once no chain is held back. Waits
   * (in real time) while nothing is due or a sink holds the clock; rejects when an action throws
   * (after cancelling the rest), as `flush` does.
   */
  async run(until: Promise<unknown>): Promise<void> {
    let over = false;
    void until.finally(() => {
      over = true;
      this.wake();
    });
    let ranSince = performance.now();
    while (!over) {
      const action = this.actions[0];
      if (!action || (this.held > 0 && action.delay > this.frame)) {
        await new Promise<void>((resolve) => (this.nudge = resolve));
        // What a released write sets off (the timer catching up) is queued in microtasks: let them in first.
        await nextMacrotask();
        ranSince = performance.now();
        continue;
      }
      this.actions.shift();
      this.frame = action.delay;
      const error: unknown = action.execute(action.state, action.delay);
      if (error) {
        for (const rest of this.actions.splice(0)) rest.unsubscribe();
        throw error;
      }
      if (performance.now() - ranSince >= YIELD_EVERY_MS) {
        await nextMacrotask();
        ranSince = performance.now();
      }
    }
  }

  private wake(): void {
    const nudge = this.nudge;
    this.nudge = undefined;
    nudge?.();
  }
}
