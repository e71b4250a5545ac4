/**
 * Base units a family name may end with (`_seconds`): OpenMetrics' `# UNIT`, remote write's metadata unit; and each
 * one's UCUM code, OTLP's `Metric.unit` (the codes the collector's Prometheus translation maps to these words and
 * back, so a collector or Prometheus reading OTLP names the metric as svc does, without a second suffix).
 */
const UNITS: Readonly<Record<string, string>> = {
  seconds: 's',
  bytes: 'By',
  ratio: '1',
  meters: 'm',
  grams: 'g',
  celsius: 'Cel',
  kelvin: 'K',
  volts: 'V',
  amperes: 'A',
  joules: 'J',
  watts: 'W',
  hertz: 'Hz',
};

/** The metric family of a metric's name: a counter's without `_total` (`requests_total` is of `requests`). */
export function familyName(name: string, metricType?: string): string {
  return metricType === 'counter' ? name.replace(/(?<=.)_total$/, '') : name;
}

/** The base unit `family` ends with (`http_request_duration_seconds`: `seconds`), if any. */
export function unitOf(family: string): string | undefined {
  return Object.keys(UNITS).find((unit) => family.endsWith(`_${unit}`));
}

/**
 * The UCUM unit (OTLP's `Metric.unit`) of the base unit a metric's name ends with, before a counter's `_total`
 * (`http_request_duration_seconds`: `s`; `network_receive_bytes_total`: `By`), if any.
 */
export function ucumUnitOf(name: string, metricType?: string): string | undefined {
  const unit = unitOf(familyName(name, metricType));
  return unit === undefined ? undefined : UNITS[unit];
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
