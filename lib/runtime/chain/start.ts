import { defer, map, of, type Observable, type SchedulerLike } from 'rxjs';
import { longTimer } from '../../../operators/long-timer.js';
import type { Entry } from '../../config/types.js';
import { anchorOf, type Anchor } from '../../language/start-time.js';

/**
 * An entry starting: the instant it was due to start (scheduler time), which its slots and duration count from
 * however late the wake-up that started it came, and the anchor of its timestamps.
 */
export interface EntryStart {
  readonly at: number;
  readonly anchor: Anchor;
}

/**
 * When a lone entry starts: at once, or after its phase offset, with its timestamps anchored by
 * its own `start_time`. Entries run together start from their clock group's stream instead, or
 * from their `after` trigger (file-run.ts). The stream emits once, when the entry starts.
 */
export function entryStart(entry: Entry, scheduler: SchedulerLike): Observable<EntryStart> {
  const anchor = anchorOf(entry.start_time);
  return defer(() => dueAt(scheduler.now() + (entry.phase_offset ?? 0), scheduler)).pipe(map((at) => ({ at, anchor })));
}

/**
 * Emits `at` (scheduler time) once it is due: at once when it is not in the future, else on a timer of any length
 * (phase offsets may exceed Node's timer range).
 */
export function dueAt(at: number, scheduler: SchedulerLike): Observable<number> {
  return defer(() => {
    const wait = at - scheduler.now();
    return wait > 0 ? longTimer(wait, scheduler).pipe(map(() => at)) : of(at);
  });
}
