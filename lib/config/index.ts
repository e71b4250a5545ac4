export { loadScenario, loadScenarioFile, type LoadOptions } from './load.js';
export { ConfigError, formatPath, issuesOf, problemAt, type ConfigErrorKind, type Issue, type Place, type Problem } from './problems.js';
export { ADDRESS_FIELDS, applyOverrides, type CliOverrides } from './overrides.js';
export { parseDuration } from './duration.js';
export { parseStartTime } from './start-time.js';
export { MAX_ALIAS_COUNT, type Format } from './parse.js';
export { DEFAULT_BUCKETS, DEFAULT_OBSERVATIONS_PER_TICK, DEFAULT_QUANTILES } from './entry.js';
export * as codecs from './codecs.js';
export type * from './types.js';
