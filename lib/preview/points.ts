/**
 * What the drawers of a preview share beyond its types (the console's browser code reads this module too, so it
 * imports only types).
 */
import type { PreviewMark, PreviewSeries } from './types.js';

/** The name of a traces entry's series of failed spans over all spans, drawn on a 0–1 scale of its own. */
export const ERROR_RATIO = 'error ratio';

/**
 * Whether values of `unit` are a rate (events/s, spans/s), which a chart counts from 0: the steps of a steady rate
 * hold n or n + 1 events, which must not look like a swing.
 */
export function isRate(unit: string): boolean {
  return unit.endsWith('/s');
}

/** The points with a value and none on either side: a line joins no other point to them, so a drawer shows each. */
export function loneIndices(values: ArrayLike<number | null | undefined>): number[] {
  const lone: number[] = [];
  for (let i = 0; i < values.length; i++)
    if (values[i] != null && values[i - 1] == null && values[i + 1] == null) lone.push(i);
  return lone;
}

/**
 * The colours of a chart's lines, in series order, in the SVG of `svc plot` and in the console: one for each of the
 * up to 8 lines a chart has (MAX_LINES label sets, or min, mean and max), so no two lines of a chart share one.
 */
export const SERIES_COLOURS = ['#1f9bcf', '#e0a100', '#c0399a', '#2f9e44', '#3b5bdb', '#e03131', '#8a6d1f', '#495057'];

/**
 * The colour of each kind of mark, in the SVG of `svc plot` and in the console: its line and label, and, tinted, the
 * window it shades (a burst, gap, spike, incident, open `while`).
 */
export const MARK_COLOURS: Readonly<Record<PreviewMark['kind'], string>> = {
  start: '#2e9e5b',
  end: '#868e96',
  after: '#6a5acd',
  while: '#6a5acd',
  burst: '#e0712c',
  gap: '#d33f49',
  spike: '#8f5fd6',
  incident: '#c2255c',
};

/**
 * The legend of a chart's series: the labels every series shares, written once (`{service.name="api"}`, for the
 * title), and each series' name with only the labels that differ. Similar label sets cut to a line's width would
 * otherwise read alike, cut where they differ. Without a label shared by all (or with one series, a name that is
 * not a label set, or a series with only the shared labels) `shared` is undefined and the names are as they are.
 */
export function legendOf(series: readonly PreviewSeries[]): { shared?: string; names: string[] } {
  const names = series.map((s) => s.name);
  const sets = names.map(labelPairs);
  if (sets.length < 2 || sets.some((set) => set === undefined)) return { names };
  const shared = sets[0]!.filter((pair) => sets.every((set) => set!.includes(pair)));
  // A series with no label beyond the shared ones would be named `{}`: the names stay whole instead.
  if (shared.length === 0 || sets.some((set) => set!.length === shared.length)) return { names };
  return {
    shared: `{${shared.join(',')}}`,
    names: sets.map((set) => `{${set!.filter((pair) => !shared.includes(pair)).join(',')}}`),
  };
}

/** The `k="v"` pairs of a label set's name as a preview writes it (`{k="v",k2="v2"}`); undefined for another name. */
function labelPairs(name: string): string[] | undefined {
  if (!name.startsWith('{') || !name.endsWith('}')) return undefined;
  const inner = name.slice(1, -1);
  const pairs = inner.match(/[^=,]+="(?:[^"\\]|\\.)*"/g) ?? [];
  return pairs.join(',') === inner ? pairs : undefined;
}
