import { of, type Observable } from 'rxjs';
import { RateSchedule } from '../../../operators/model/rate-schedule.js';
import { bursts } from '../../../operators/bursts.js';
import type { Entry } from '../../config/types.js';
import { optional } from './optional.js';

/**
 * The schedule stream of an entry that has started: its rate, with its burst window. The timer
 * starts when the schedule arrives.
 */
export function entrySchedule(entry: Entry): Observable<RateSchedule> {
  return of(RateSchedule.constant(entry.rate)).pipe(optional(entry.bursts && bursts(entry.bursts)));
}
