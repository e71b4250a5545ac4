/** A unit a family name may end with (`_seconds`). */
interface Unit {
  /** Its UCUM code, OTLP's `Metric.unit`; none when the collector's Prometheus translation has no word for it. */
  readonly ucum?: string;
  /** One of Prometheus' base units: OpenMetrics' `# UNIT` and remote write's metadata name it. */
  readonly base?: true;
  /** A time: how many of it make a second. */
  readonly perSecond?: number;
}

/**
 * The units a family name may end with: the words of the OTLP→Prometheus translation's unit table (the collector's,
 * Prometheus' OTLP receiver: prometheus/otlptranslator's `unitMap`, as the OpenTelemetry specification's Prometheus
 * compatibility asks), and Prometheus' base units. A UCUM code is only one that table maps back to the same word, so
 * that it names the metric as svc does, without a second suffix: `kelvin` has none (`K` is not in its table:
 * `room_kelvin` came back as `room_kelvin_K`), nor has `tebibytes` (the table spells `TiBy` `tibibytes`). The times
 * are as OpenTelemetry's Prometheus exporters name them (`ms` becomes `_milliseconds`).
 */
const UNITS: Readonly<Record<string, Unit>> = {
  seconds: { ucum: 's', base: true, perSecond: 1 },
  milliseconds: { ucum: 'ms', perSecond: 1e3 },
  microseconds: { ucum: 'us', perSecond: 1e6 },
  nanoseconds: { ucum: 'ns', perSecond: 1e9 },
  minutes: { ucum: 'min', perSecond: 1 / 60 },
  hours: { ucum: 'h', perSecond: 1 / 3600 },
  days: { ucum: 'd', perSecond: 1 / 86_400 },
  bytes: { ucum: 'By', base: true },
  kibibytes: { ucum: 'KiBy' },
  mebibytes: { ucum: 'MiBy' },
  gibibytes: { ucum: 'GiBy' },
  tibibytes: { ucum: 'TiBy' },
  kilobytes: { ucum: 'KBy' },
  megabytes: { ucum: 'MBy' },
  gigabytes: { ucum: 'GBy' },
  terabytes: { ucum: 'TBy' },
  ratio: { ucum: '1', base: true },
  percent: { ucum: '%' },
  meters: { ucum: 'm', base: true },
  grams: { ucum: 'g', base: true },
  celsius: { ucum: 'Cel', base: true },
  kelvin: { base: true },
  volts: { ucum: 'V', base: true },
  amperes: { ucum: 'A', base: true },
  joules: { ucum: 'J', base: true },
  watts: { ucum: 'W', base: true },
  hertz: { ucum: 'Hz', base: true },
};

/** The unit `family` ends with, if any (`_milliseconds` is not `_seconds`: the word follows an underscore). */
function unitEnding(family: string): Unit | undefined {
  const word = Object.keys(UNITS).find((unit) => family.endsWith(`_${unit}`));
  return word === undefined ? undefined : UNITS[word];
}

/** The metric family of a metric's name: a counter's without `_total` (`requests_total` is of `requests`). */
export function familyName(name: string, metricType?: string): string {
  return metricType === 'counter' ? name.replace(/(?<=.)_total$/, '') : name;
}

/** The base unit `family` ends with (`http_request_duration_seconds`: `seconds`), if any. */
export function unitOf(family: string): string | undefined {
  return Object.keys(UNITS).find((unit) => UNITS[unit]!.base && family.endsWith(`_${unit}`));
}

/**
 * The UCUM unit (OTLP's `Metric.unit`) of the unit a metric's name ends with, before a counter's `_total`
 * (`http_request_duration_seconds`: `s`; `gc_pause_milliseconds`: `ms`; `network_receive_bytes_total`: `By`), if any.
 */
export function ucumUnitOf(name: string, metricType?: string): string | undefined {
  return unitEnding(familyName(name, metricType))?.ucum;
}

/**
 * How many of the time unit `family` ends with make a second (`request_duration_milliseconds`: 1000); 1 for a name
 * without a unit, read as seconds, Prometheus' base unit of time; undefined for a unit that is no time (`_bytes`).
 */
export function timeUnitsPerSecond(family: string): number | undefined {
  const unit = unitEnding(family);
  return unit === undefined ? 1 : unit.perSecond;
}
