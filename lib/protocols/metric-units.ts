/** Base units a family name may end with (`_seconds`): OpenMetrics' `# UNIT`, remote write's metadata unit. */
const UNITS = [
  'seconds',
  'bytes',
  'ratio',
  'meters',
  'grams',
  'celsius',
  'kelvin',
  'volts',
  'amperes',
  'joules',
  'watts',
  'hertz',
];

/** The metric family of a metric's name: a counter's without `_total` (`requests_total` is of `requests`). */
export function familyName(name: string, metricType?: string): string {
  return metricType === 'counter' ? name.replace(/(?<=.)_total$/, '') : name;
}

/** The base unit `family` ends with (`http_request_duration_seconds`: `seconds`), if any. */
export function unitOf(family: string): string | undefined {
  return UNITS.find((unit) => family.endsWith(`_${unit}`));
}

/**
 * Time units a family name may end with, as OpenTelemetry's Prometheus exporters name them (`ms` becomes
 * `_milliseconds`), and how many of each make a second.
 */
const TIME_UNITS: readonly (readonly [string, number])[] = [
  ['nanoseconds', 1e9],
  ['microseconds', 1e6],
  ['milliseconds', 1e3],
  ['seconds', 1],
  ['minutes', 1 / 60],
  ['hours', 1 / 3600],
  ['days', 1 / 86_400],
];

/**
 * How many of the time unit `family` ends with make a second (`request_duration_milliseconds`: 1000); 1 for a name
 * without a time unit, read as seconds, Prometheus' base unit of time.
 */
export function timeUnitsPerSecond(family: string): number {
  return TIME_UNITS.find(([unit]) => family.endsWith(`_${unit}`))?.[1] ?? 1;
}
