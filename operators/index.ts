/**
 * svc's public RxJS operators: the chain of one scenario entry,
 *
 *   of(RateSchedule.constant(rate)).pipe(bursts(…), ticks(…), generate(…), jitter(…), gaps(…),
 *     labels(…), encode(…), deliver(…))
 *
 * with `generateLogs` for log records, `generateTraces` for traces (spans), and `observe` then `histogram`, `nativeHistogram` or
 * `summary` (after `labels`) for histograms and summaries; `exemplars` (after them) and `traceContext` (on log records)
 * name the spans of a traces chain, `spanMetrics` counts them.
 *
 * each usable on its own in a test harness. Every operator that reads time takes a scheduler.
 */
export * from './model/batch.js';
// The microsecond grid (microseconds, onMicrosecondGrid, microsecondCycle) is how these reckon, not an API of its own.
export {
  inAnyWindow,
  inHead,
  inHeadOf,
  inTail,
  inTailOf,
  mergedWindows,
  type OneShotWindow,
  type Window,
} from './model/window.js';
export * from './model/rate-schedule.js';
export * from './ticks.js';
export * from './long-timer.js';
export * from './generate.js';
export * from './generate-logs.js';
export * from './model/span.js';
export * from './model/ids.js';
export * from './model/native-histogram.js';
export * from './generate-traces.js';
export * from './observe.js';
export * from './histogram.js';
export * from './native-histogram.js';
export * from './summary.js';
export * from './exemplars.js';
export * from './trace-context.js';
export * from './span-metrics.js';
export type { SpanChoice } from './internal/span-pool.js';
export * from './jitter.js';
export * from './gaps.js';
export * from './gate.js';
export * from './bursts.js';
export * from './labels.js';
export * from './model/series.js';
export * from './encode.js';
export * from './deliver.js';
