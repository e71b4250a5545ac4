import { delay, identity, of, type MonoTypeOperatorFunction, type Observable, type SchedulerLike } from 'rxjs';
import { RateSchedule } from '../../operators/rate-schedule.js';
import { bursts } from '../../operators/bursts.js';
import type { Entry } from '../config/types.js';

/**
 * The schedule stream of an entry: its rate (with its burst window) arriving when the entry
 * starts — at once, or after its phase offset. The timer starts when the schedule arrives.
 */
export function entrySchedule(entry: Entry, scheduler: SchedulerLike): Observable<RateSchedule> {
  return of(RateSchedule.constant(entry.rate)).pipe(
    optional(entry.phase_offset !== undefined && delay<RateSchedule>(entry.phase_offset, scheduler)),
    optional(entry.bursts && bursts(entry.bursts)),
  );
}

/** An operator the entry asks for, or the identity when it does not. */
export function optional<T>(operator: MonoTypeOperatorFunction<T> | false | undefined): MonoTypeOperatorFunction<T> {
  return operator || identity;
}
