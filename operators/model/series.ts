import type { Series } from './batch.js';

/**
 * Builds the {@link Series} of a label set: labels sorted by key, and the canonical `key`
 * `k1="v1",k2="v2"` with values escaped as the text exposition format requires (`\`, `"`
 * and line feed). The result is a fresh object: interning (one object per label set) is the
 * caller's job. `suffix` is appended to the metric name of this series (`_bucket`, `_sum`).
 */
export function seriesOf(labels: Readonly<Record<string, string>>, suffix?: string): Series {
  const sorted: Record<string, string> = {};
  const pairs: string[] = [];
  for (const name of Object.keys(labels).sort()) {
    const value = labels[name]!;
    sorted[name] = value;
    pairs.push(`${name}="${escapeLabelValue(value)}"`);
  }
  const series = { labels: Object.freeze(sorted), key: pairs.join(',') };
  return Object.freeze(suffix ? { ...series, suffix } : series);
}

/** Escapes a label value for the text exposition format. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, escapeChar);
}

function escapeChar(c: string): string {
  return c === '\n' ? '\\n' : `\\${c}`;
}
