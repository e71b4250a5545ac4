export { loadScenario, loadScenarioFile, type LoadOptions } from './load.js';
export {
  ConfigError,
  formatPath,
  issuesOf,
  problemAt,
  type ConfigErrorKind,
  type Issue,
  type Place,
  type Problem,
  type ProblemCode,
} from '../language/problems.js';
export { ADDRESS_FIELDS, applyOverrides, type CliOverrides } from './overrides.js';
export { parseDuration } from '../language/duration.js';
export { parseStartTime } from '../language/start-time.js';
export type { Format } from './parse.js';
export { DEFAULT_BUCKETS, DEFAULT_OBSERVATIONS_PER_TICK, DEFAULT_QUANTILES } from './entry.js';
export type * from './types.js';
export { decodePack, isPackDocument, loadPack, loadPackFile, type LoadPackOptions } from './pack.js';
