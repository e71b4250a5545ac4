/**
 * The dominant period of a sampled series, for fitting a sine (fit.ts): the series is resampled
 * onto an even grid, its mean removed, zero-padded to a power of two and its power spectrum taken
 * by a radix-2 FFT. O(N log N) with N at most {@link MAX_GRID_POINTS}, whatever the row count.
 */

/** Points of the even grid: past this, the grid spacing grows instead (2^16, so the padded FFT has 2^17). */
export const MAX_GRID_POINTS = 1 << 16;

/**
 * `values` (at `timesMs`, increasing) on an even grid from the first time, `spacingMs` apart (wider
 * when the span needs more than {@link MAX_GRID_POINTS}): each grid point takes the row in force at
 * its time, as csv_replay holds a row until the next. One pass over the rows.
 */
export function evenGrid(
  timesMs: readonly number[],
  values: readonly number[],
  spacingMs: number,
): { spacingMs: number; values: Float64Array } {
  const first = timesMs[0]!;
  const span = timesMs[timesMs.length - 1]! - first;
  const spacing = Math.max(spacingMs, span / (MAX_GRID_POINTS - 1));
  const count = Math.min(MAX_GRID_POINTS, Math.floor(span / spacing) + 1);
  const grid = new Float64Array(count);
  let row = 0;
  for (let k = 0; k < count; k++) {
    const at = first + k * spacing;
    while (row + 1 < timesMs.length && timesMs[row + 1]! <= at) row++;
    grid[k] = values[row]!;
  }
  return { spacingMs: spacing, values: grid };
}

/**
 * The period in ms of the strongest frequency of the series, among those that repeat at least
 * `minCycles` times within it; undefined when the series is too short or flat. Its precision is
 * one frequency bin of the padded grid: fit.ts refines it.
 */
export function dominantPeriodMs(
  timesMs: readonly number[],
  values: readonly number[],
  spacingMs: number,
  minCycles: number,
): number | undefined {
  const grid = evenGrid(timesMs, values, spacingMs);
  const count = grid.values.length;
  const mean = grid.values.reduce((sum, v) => sum + v, 0) / count;
  // Padding to at least twice the length halves the bin width: a finer first guess.
  let size = 1;
  while (size < 2 * count) size *= 2;
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  for (let k = 0; k < count; k++) re[k] = grid.values[k]! - mean;
  fft(re, im);
  // Bin b has period size·spacing / b; the least bin that fits minCycles periods in the data.
  const least = Math.max(1, Math.ceil((minCycles * size) / count));
  let best = -1;
  let bestPower = 0;
  for (let b = least; b <= size / 2; b++) {
    const power = re[b]! * re[b]! + im[b]! * im[b]!;
    if (power > bestPower) [best, bestPower] = [b, power];
  }
  return best < 0 ? undefined : (size * grid.spacingMs) / best;
}

/** In-place iterative radix-2 FFT; `re.length` is a power of two. */
function fft(re: Float64Array, im: Float64Array): void {
  const size = re.length;
  for (let i = 1, j = 0; i < size; i++) {
    let bit = size >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let length = 2; length <= size; length *= 2) {
    const angle = (-2 * Math.PI) / length;
    const [stepRe, stepIm] = [Math.cos(angle), Math.sin(angle)];
    for (let start = 0; start < size; start += length) {
      let [wRe, wIm] = [1, 0];
      for (let k = 0; k < length / 2; k++) {
        const [a, b] = [start + k, start + k + length / 2];
        const tRe = re[b]! * wRe - im[b]! * wIm;
        const tIm = re[b]! * wIm + im[b]! * wRe;
        re[b] = re[a]! - tRe;
        im[b] = im[a]! - tIm;
        re[a] = re[a]! + tRe;
        im[a] = im[a]! + tIm;
        [wRe, wIm] = [wRe * stepRe - wIm * stepIm, wRe * stepIm + wIm * stepRe];
      }
    }
  }
}
