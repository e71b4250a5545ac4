import type { Series } from './batch.js';

/**
 * Builds the {@link Series} of a label set: labels sorted by key, and the canonical `key`
 * `k1="v1",k2="v2"` with values escaped as the text exposition format requires (`\`, `"`
 * and line feed). The result is a fresh object: interning (one object per label set) is the
 * caller's job. `suffix` is appended to the metric name of this series (`_bucket`, `_sum`).
 */
export function seriesOf(labels: Readonly<Record<string, string>>, suffix?: string): Series {
  const names = Object.keys(labels).sort();
  const series = seriesOfSorted(
    names,
    names.map((name) => labels[name]),
  );
  return suffix ? Object.freeze({ ...series, suffix }) : series;
}

/**
 * {@link seriesOf} of a label set whose names are already sorted: `values[i]` is the value of
 * `names[i]`, or `undefined` where the set lacks that name. For building many sets over one
 * list of names (an entry's static and rotating labels) without sorting it again each time.
 * `transient`: the set is built for one tick (see {@link Series.transient}).
 */
export function seriesOfSorted(names: readonly string[], values: readonly (string | undefined)[], transient = false): Series {
  const labels: Record<string, string> = {};
  let key = '';
  for (let i = 0; i < names.length; i++) {
    const value = values[i];
    if (value === undefined) continue;
    labels[names[i]!] = value;
    key += `${key === '' ? '' : ','}${names[i]}="${escapeLabelValue(value)}"`;
  }
  return Object.freeze(transient ? { labels: Object.freeze(labels), key, transient } : { labels: Object.freeze(labels), key });
}

const NEEDS_ESCAPE = /[\\"\n]/;

/** Escapes a label value for the text exposition format. */
export function escapeLabelValue(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/[\\"\n]/g, escapeChar) : value;
}

function escapeChar(c: string): string {
  return c === '\n' ? '\\n' : `\\${c}`;
}
