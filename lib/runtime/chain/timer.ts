import { of, type Observable, type OperatorFunction, type SchedulerLike } from 'rxjs';
import { labels, rotationPeriod, type Shard } from '../../../operators/labels.js';
import type { TickBatch } from '../../../operators/model/batch.js';
import type { RateSchedule } from '../../../operators/model/rate-schedule.js';
import { ticks, type SlotPattern } from '../../../operators/ticks.js';
import type { Entry } from '../../config/types.js';
import { rowsPerEvent } from '../../config/entry.js';
import { maxTraceBytes } from '../../language/traces.js';
import { labelOptions } from './labels.js';
import type { Anchor } from '../../language/start-time.js';

/** Samples (or spans) and observations one batch of ticks may carry (a tick more than that goes alone). */
const BATCH_COST = 4096;

/**
 * Bytes of the text the events of one batch may repeat (names, labels, messages): an event of large labels or
 * messages makes smaller batches, so no encoded chunk grows past what one write can take (2 GiB) nor takes memory
 * by the gigabyte. Entries of ordinary text (under 2 KiB an event) keep their 4096 ticks.
 */
const BATCH_TEXT_BYTES = 8 * 1024 * 1024;

/**
 * Longest cycle of label sets a shard's slot pattern is worked out for: the pattern holds up to one number
 * per slot of the cycle.
 */
const MAX_SHARD_PERIOD = 1 << 16;

export interface TimerOptions {
  readonly scheduler: SchedulerLike;
  /** When the entry was due to start (scheduler time): its slots count from it. */
  readonly start: number;
  /** The anchor of its timestamps, given that instant. */
  readonly anchor: Anchor;
  /** Pauses the timer while `true` (the sink holds it back). */
  readonly paused: Observable<boolean>;
  /** How far ahead of the clock the timer may emit slots (ms; `ticks`' `ahead`): on virtual time only. */
  readonly ahead?: number;
  /** The slots the timer emits when they are only a shard's ({@link shardSlots}). */
  readonly slots?: SlotPattern;
  /** Told the events due before the duration that the timer never emitted (`ticks`' `onShortfall`). */
  readonly onShortfall?: (events: number) => void;
}

/** The timer of an entry: its due ticks, in batches, from the schedule's rate until its duration ends. */
export function entryTicks(entry: Entry, options: TimerOptions): OperatorFunction<RateSchedule, TickBatch> {
  return ticks({
    scheduler: options.scheduler,
    duration: entry.duration,
    start: options.start,
    anchor: options.anchor,
    paused: options.paused,
    maxBatch: ticksPerBatch(entry),
    ahead: options.ahead,
    slots: options.slots,
    onShortfall: options.onShortfall,
  });
}

/**
 * Ticks per batch: what one batch costs (observations drawn, samples written) stays bounded, so
 * a catch-up after backpressure allocates and blocks no more than a batch of plain metrics.
 */
function ticksPerBatch(entry: Entry): number {
  const rows = rowsPerEvent(entry);
  const byCost = BATCH_COST / (rows + (entry.observations_per_tick ?? 0));
  return Math.max(1, Math.floor(Math.min(byCost, BATCH_TEXT_BYTES / textPerEvent(entry, rows))));
}

const bytes = (text: string): number => Buffer.byteLength(text);

/** The longest of each list measured: entries given one list by `defaults` share it, and it may hold 100,000 values. */
const longestOf = new WeakMap<readonly string[], number>();

function longest(texts: readonly string[]): number {
  let most = longestOf.get(texts);
  if (most === undefined) {
    most = texts.reduce((longer, text) => Math.max(longer, bytes(text)), 0);
    longestOf.set(texts, most);
  }
  return most;
}

/**
 * The most text an event of `entry` (of `rows` rows) repeats, about: each row's name and labels (a rotating
 * label's longest value), a log record's longest message with its fields' longest values, a replayed log
 * file's longest line, a replayed CSV's largest record (message and fields), or a trace's attributes.
 */
function textPerEvent(entry: Entry, rows: number): number {
  let row = bytes(entry.name ?? '') + 32;
  for (const [key, value] of Object.entries(entry.labels)) row += bytes(key) + bytes(value) + 4;
  for (const label of entry.dynamic_labels)
    row += bytes(label.key) + 4 + (label.form === 'list' ? longest(label.values) : bytes(label.prefix) + 20);
  return (
    rows * row + messageText(entry.log_generator) + (entry.trace_generator ? maxTraceBytes(entry.trace_generator) : 0)
  );
}

/** The most text a log record of `logs` carries: its message and fields at their longest. */
function messageText(logs: Entry['log_generator']): number {
  switch (logs?.type) {
    case 'template':
      return (
        longest(logs.templates.map((template) => template.message)) +
        [logs.field_pools, ...logs.templates.map((template) => template.field_pools ?? {})]
          .flatMap((pools) => Object.values(pools))
          .reduce((sum, pool) => sum + longest(pool), 0)
      );
    case 'replay':
      return longest(logs.lines?.lines ?? []);
    case 'csv_replay': {
      let most = 0;
      for (const { message, fields } of logs.table?.records ?? []) {
        let size = bytes(message);
        for (const key in fields) size += bytes(key) + bytes(fields[key]!) + 4;
        most = Math.max(most, size);
      }
      return most;
    }
    default:
      return 0;
  }
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
