import type { SchedulerLike } from 'rxjs';

/** `scheduler`, recording every delay it is asked for (to check that no timer exceeds Node's range). */
export function recordingDelays(scheduler: SchedulerLike): { scheduler: SchedulerLike; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    scheduler: {
      now: () => scheduler.now(),
      schedule(work: any, delay = 0, state?: any) {
        delays.push(delay);
        return scheduler.schedule(work, delay, state);
      },
    } as SchedulerLike,
  };
}
