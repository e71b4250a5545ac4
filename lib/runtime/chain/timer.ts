import { of, type Observable, type OperatorFunction, type SchedulerLike } from 'rxjs';
import { labels, rotationPeriod, type Shard } from '../../../operators/labels.js';
import type { TickBatch } from '../../../operators/model/batch.js';
import type { RateSchedule } from '../../../operators/model/rate-schedule.js';
import { ticks, type SlotPattern } from '../../../operators/ticks.js';
import type { Entry } from '../../config/types.js';
import { rowsPerEvent } from '../../config/entry.js';
import { labelOptions } from './labels.js';
import type { Anchor } from './start.js';

/** Samples (or spans) and observations one batch of ticks may carry (a tick more than that goes alone). */
const BATCH_COST = 4096;

/**
 * Longest cycle of label sets a shard's slot pattern is worked out for: the pattern holds up to one number
 * per slot of the cycle.
 */
const MAX_SHARD_PERIOD = 1 << 16;

export interface TimerOptions {
  readonly scheduler: SchedulerLike;
  /** When the entry started: the anchor of its timestamps. */
  readonly anchor: Anchor;
  /** Pauses the timer while `true` (the sink holds it back). */
  readonly paused: Observable<boolean>;
  /** How far ahead of the clock the timer may emit slots (ms; `ticks`' `ahead`): on virtual time only. */
  readonly ahead?: number;
  /** The slots the timer emits when they are only a shard's ({@link shardSlots}). */
  readonly slots?: SlotPattern;
}

/** The timer of an entry: its due ticks, in batches, from the schedule's rate until its duration ends. */
export function entryTicks(entry: Entry, options: TimerOptions): OperatorFunction<RateSchedule, TickBatch> {
  return ticks({
    scheduler: options.scheduler,
    duration: entry.duration,
    anchor: options.anchor,
    paused: options.paused,
    maxBatch: ticksPerBatch(entry),
    ahead: options.ahead,
    slots: options.slots,
  });
}

/**
 * Ticks per batch: what one batch costs (observations drawn, samples written) stays bounded, so
 * a catch-up after backpressure allocates and blocks no more than a batch of plain metrics.
 */
function ticksPerBatch(entry: Entry): number {
  return Math.max(1, Math.floor(BATCH_COST / (rowsPerEvent(entry) + (entry.observations_per_tick ?? 0))));
}

/**
 * The slots whose ticks a sharded entry's timer emits, so that a shard walks only its own ticks:
 * undefined (every slot) for an entry not sharded (`shard` absent), or whose values something
 * watches (`watched`: every shard makes every value), or with cardinality spikes (their labels
 * follow time, not the slot number), or whose label sets repeat only after more than
 * {@link MAX_SHARD_PERIOD} slots.
 *
 * A rotating label's value on tick n is a function of n modulo its cardinality, so the label sets
 * repeat every `period` slots (the least common multiple of the cardinalities) and so does the
 * set of ticks the labels keep for the shard (series numbered in the order they first appear, or
 * hashed, either way the same in every cycle). The labels operator itself, given the ticks of one
 * cycle, says which they are.
 */
export function shardSlots(entry: Entry, shard: Shard | undefined, watched: boolean): SlotPattern | undefined {
  if (shard === undefined || watched || entry.cardinality_spikes.length > 0) return undefined;
  const period = rotationPeriod(entry.dynamic_labels);
  if (period > MAX_SHARD_PERIOD) return undefined;
  const cycle: TickBatch = {
    size: period,
    anchor: 0,
    index: Float64Array.from({ length: period }, (_, n) => n),
    offset: new Float64Array(period),
  };
  let residues: readonly number[] = [];
  of(cycle)
    .pipe(labels(labelOptions(entry, shard)))
    .subscribe((kept) => (residues = Array.from(kept.index)));
  return { period, residues };
}
