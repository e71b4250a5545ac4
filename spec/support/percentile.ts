/** The value at or below which `share` (0 to 1) of `values` lie (nearest rank); NaN for none. */
export function percentile(values: readonly number[], share: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!;
}
