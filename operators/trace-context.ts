import { map, type MonoTypeOperatorFunction, type Observable } from 'rxjs';
import { timestampAt, type LogBatch, type RecordSpan } from './model/batch.js';
import { REQUEST_SPAN_KINDS, type SpanBatch } from './model/span.js';
import { spanIdHex, traceIdHex } from './model/ids.js';
import { checkChoice, spanFilter, withSpanPools, type SpanChoice } from './internal/span-pool.js';
import { SplitMix64 } from '../lib/random.js';
import { check, INTEGER, OBJECT, oneOf, PROBABILITY, OBSERVABLE } from './internal/arguments.js';

/** Which records name a span: those of severity error or fatal, every one, or each with a probability. */
export type TraceContextOn = 'error' | 'all' | 'probability';

export interface TraceContextOptions {
  readonly on?: TraceContextOn;
  /** With `on: probability`: the chance that a record names a span. */
  readonly probability?: number;
  /** Seed of `probability`'s draws. */
  readonly seed?: number;
  /** Which spans a record names: default the server and consumer spans of any service. */
  readonly choice?: SpanChoice;
}

/** Severities of the records that name a span that raised an error, whatever `on` says. */
export const FAILING_SEVERITIES: ReadonlySet<string> = new Set(['error', 'fatal']);

/**
 * Writes the span a log record was written in into its `context` (its ids and its trace's W3C
 * flags, sampled or not): an error or fatal record names a span of `spans` that raised an error
 * (one of the choice's service, when it has one), else one in error because a call of it failed (a
 * frontend whose payment calls fail logs its errors in its own spans); another record one of the
 * choice's spans. As an SDK stamps a log with the active span, the span named is running at the
 * record's time (started before it, not ended before) whenever a fitting one does, so a trace-to-logs
 * search over the span's time finds the record: the first to end among those not named yet, else the
 * first to end; only while none runs, the last to end before (see SpanPool). A span whose trace is
 * emitted in the record's own whole-millisecond wake (a trace of 999.5 ms with a record of 1 000 ms)
 * has not started for it, nor has one starting at its very instant, so which of the two streams the
 * scheduler runs first in a wake changes nothing. A failing record thus
 * names a running span that raised an error, else a running one whose call failed, else the last
 * that raised one to end, else the last whose call failed. Every failing record names one; `on` chooses among the others:
 * `error` (default) none, `all` every one, `probability` each with that chance (drawn from `seed`
 * and the tick's slot number). A record gets no context while no fitting span has started, or a
 * failing one while no failure has: an error log names an error span or none.
 *
 * ```
 * spans:    -a--e------|        a: a span running until the end, e: a span that raised an error, ended before E
 * records:  ---i--E----|        i: info, E: error
 *           traceContext(spans, {on: 'all'})
 * records:  ---i'-E'---|        i' names a (running), E' names e (none that raised an error runs)
 * ```
 */
export function traceContext<B extends LogBatch>(
  spans: Observable<SpanBatch>,
  options: TraceContextOptions = {},
): MonoTypeOperatorFunction<B> {
  check('traceContext', 'spans', spans, OBSERVABLE);
  check('traceContext', 'options', options, OBJECT);
  const { on = 'error', probability = 1, seed = 0 } = options;
  check('traceContext', 'on', on, oneOf(['error', 'all', 'probability']));
  check('traceContext', 'probability', probability, PROBABILITY);
  check('traceContext', 'seed', seed, INTEGER);
  if (options.choice !== undefined) checkChoice('traceContext', 'choice', options.choice);
  const choice = options.choice ?? { kinds: REQUEST_SPAN_KINDS };
  const draws = new SplitMix64(seed);
  const failingOnly = on === 'error';
  const filters = [
    spanFilter({ service: choice.service, errors: true }),
    spanFilter({ service: choice.service, failedCalls: true }),
    ...(failingOnly ? [] : [spanFilter(choice)]),
  ];
  return withSpanPools<B, B>('traceContext', spans, filters, 'running', ([raised, seen, any]) =>
    map((batch) => {
      let context: (RecordSpan | undefined)[] | undefined;
      // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
      const { size, anchor, index, offset, severity } = batch;
      for (let i = 0; i < size; i++) {
        const failing = FAILING_SEVERITIES.has(severity[i]!);
        // A failing record names a failed span whatever `on` says; `on` chooses among the others.
        if (!failing && (failingOnly || (on === 'probability' && draws.unit(index[i]!) >= probability))) continue;
        const now = timestampAt(anchor, offset, i);
        const tick = anchor + offset[i]!;
        // A span running at the record's time first, of those that raised an error before those that saw a call fail.
        const span = failing
          ? (raised!.takeRunning(now, tick) ??
            seen!.takeRunning(now, tick) ??
            raised!.takeEndedBefore(now, tick) ??
            seen!.takeEndedBefore(now, tick))
          : (any!.takeRunning(now, tick) ?? any!.takeEndedBefore(now, tick));
        if (!span) continue;
        context ??= new Array<RecordSpan | undefined>(size);
        const { spans: columns, s } = span;
        context[i] = { traceId: traceIdHex(columns, s), spanId: spanIdHex(columns, s), flags: columns.flags[s]! };
      }
      return context ? { ...batch, context } : batch;
    }),
  );
}
