/**
 * svc as a library: load scenario files, run entries, and the encoders, sinks and value, log and
 * trace generators the entry chains are built from. The RxJS operators are in `svc/operators`.
 */
export { loadScenario, loadScenarioFile, ConfigError, parseDuration, parseStartTime } from './config/index.js';
export type * from './config/types.js';
export type * from './language/types.js';
export type {
  After,
  BurstWindow,
  CardinalitySpike,
  DistributionConfig,
  RetryConfig,
  Window,
} from './language/fields.js';
export type {
  TraceGeneratorConfig,
  RootSpanConfig,
  CallConfig,
  ServiceConfig,
  SpanDuration,
  TraceAttribute,
} from './language/traces.js';
export { valueGenerator } from './generators/value.js';
export { logGenerator, type LogRecord } from './generators/log.js';
export { traceGenerator } from './generators/trace.js';
export { createMetricEncoder, metricsText, jsonLines, type MetricEncoder } from './encoders/index.js';
export { createLogEncoder, type LogEncoder } from './encoders/index.js';
export {
  createTraceEncoder,
  jsonLinesTraces,
  zipkinJson,
  zipkinBody,
  zipkinBodyOfRuns,
  type TraceEncoder,
} from './encoders/index.js';
export {
  createSink,
  stdoutSink,
  fileSink,
  tcpSink,
  udpSink,
  httpPushSink,
  logstoreSink,
  SinkError,
  type SinkReport,
} from './sinks/index.js';
export { loadPack, loadPackFile } from './config/pack.js';
export {
  compileScenario,
  type ScenarioPlan,
  type EntryPlan,
  type PredictedStart,
  type ClockGroup,
} from './compile/index.js';
export { planScenario, type PlanOptions, type PlannedScenario } from './compile/plan.js';
export { Catalog, type CatalogItem } from './catalog/index.js';
export { runEntry, type EntryRun, type EntryOutcome, type RunEntryOptions } from './runtime/run-entry.js';
export { startEntries, type FileRun, type FileRunOptions } from './runtime/file-run.js';
export { entryChain } from './runtime/chain/index.js';
export { anchorOf } from './language/start-time.js';
export { EntryStats, type StatsRecord } from './runtime/stats.js';
export { SplitMix64 } from './random.js';
