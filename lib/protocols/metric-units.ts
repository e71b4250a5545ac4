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
