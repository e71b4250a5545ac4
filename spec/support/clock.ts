import { VirtualTimeScheduler } from 'rxjs';

/** Lets pending promise callbacks and I/O callbacks run. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A virtual-time scheduler stepped by hand, for code that mixes timers with promises: each
 * step runs the due timers, lets promise callbacks run, and repeats until nothing more is due.
 */
export class ManualScheduler extends VirtualTimeScheduler {
  constructor(start = 0) {
    super();
    this.frame = start;
  }

  /** Moves virtual time forward by `ms`, running everything that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.frame + ms;
    this.maxFrames = target;
    await settle();
    while (this.actions.length > 0 && this.actions[0]!.delay <= target) {
      this.flush();
      await settle();
    }
    this.frame = target;
  }
}
