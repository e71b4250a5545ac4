import { valueGenerator } from '../../lib/generators/value.js';
import type { GeneratorConfig } from '../../lib/language/types.js';
import { SplitMix64 } from '../../lib/random.js';

/** A recorded series: ms from its first row, and the values. */
export interface Recorded {
  readonly times: number[];
  readonly values: number[];
}

export interface SampleOptions {
  /** Uniform noise ±jitter, as svc's entry jitter adds it (seed 7). */
  readonly jitter?: number;
  /** The data starts this many ms into the generator's time: its phase at the first row. */
  readonly shiftMs?: number;
}

/** `count` rows `spacingMs` apart of what svc's generator computes, tick n at n·spacing. */
export function sampled(
  generator: GeneratorConfig,
  count: number,
  spacingMs: number,
  options: SampleOptions = {},
): Recorded {
  const value = valueGenerator(generator);
  const random = new SplitMix64(7);
  const times = Array.from({ length: count }, (_, n) => n * spacingMs);
  const values = times.map(
    (at, n) => value(n, at + (options.shiftMs ?? 0)) + (options.jitter ? (2 * random.unit(n) - 1) * options.jitter : 0),
  );
  return { times, values };
}

/** A random walk: no shape svc has. */
export function randomWalk(count: number, spacingMs: number, seed = 3): Recorded {
  const random = new SplitMix64(seed);
  let level = 0;
  const values = Array.from({ length: count }, (_, n) => (level += random.unit(n) - 0.5));
  return { times: values.map((_, n) => n * spacingMs), values };
}

const EPOCH_MS = 1_714_557_600_000;

/** A Grafana "series joined by time" export: epoch-ms times, a quoted `{__name__="…", …}` header per series. */
export function grafanaCsv(
  times: readonly number[],
  columns: readonly {
    readonly name: string;
    readonly labels?: Record<string, string>;
    readonly values: readonly number[];
  }[],
): string {
  const quote = (text: string) => `"${text.replace(/"/g, '""')}"`;
  const header = columns.map(({ name, labels = {} }) =>
    quote(`{${[`__name__="${name}"`, ...Object.entries(labels).map(([k, v]) => `${k}="${v}"`)].join(', ')}}`),
  );
  const rows = times.map((at, i) => [EPOCH_MS + at, ...columns.map((c) => c.values[i])].join(','));
  return [['"Time"', ...header].join(','), ...rows].join('\n');
}

/** Plain `time,value` columns: Unix seconds, a metric name as header. */
export function plainCsv(recorded: Recorded, header = 'value'): string {
  return [`time,${header}`, ...recorded.times.map((at, i) => `${(EPOCH_MS + at) / 1000},${recorded.values[i]}`)].join(
    '\n',
  );
}
