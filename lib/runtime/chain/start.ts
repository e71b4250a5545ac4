import { delayWhen, of, type MonoTypeOperatorFunction, type Observable, type SchedulerLike } from 'rxjs';
import { longTimer } from '../../../operators/long-timer.js';
import type { Entry } from '../../config/types.js';
import type { StartTime } from '../../language/types.js';
import { optional } from './optional.js';

/** The timestamp written on tick 0, given the entry's start as read from its scheduler. */
export type Anchor = (start: number) => number;

/**
 * When a lone entry starts: at once, or after its phase offset, with its timestamps anchored by
 * its own `start_time`. Entries run together start from their clock group's stream instead, or
 * from their `after` trigger (file-run.ts). The stream emits once, when the entry starts.
 */
export function entryStart(entry: Entry, scheduler: SchedulerLike): Observable<Anchor> {
  return of(anchorOf(entry.start_time)).pipe(
    optional(entry.phase_offset !== undefined && delayed<Anchor>(entry.phase_offset, scheduler)),
  );
}

/** RxJS `delay` for waits of any length (phase offsets may exceed Node's timer range). */
export function delayed<T>(ms: number, scheduler: SchedulerLike): MonoTypeOperatorFunction<T> {
  return delayWhen<T>(() => longTimer(ms, scheduler));
}

/** The anchor of an entry's own `start_time`: its start for `now`, the instant, or its start plus the offset. */
export function anchorOf(startTime: StartTime): Anchor {
  switch (startTime.kind) {
    case 'now':
      return (start) => start;
    case 'absolute':
      return () => startTime.epochMs;
    case 'relative':
      return (start) => start + startTime.offsetMs;
  }
}
