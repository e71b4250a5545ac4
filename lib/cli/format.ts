/** Human-readable figures for progress lines and dry-run output. */

/** `850ms`, `1.5s`, `2m05s`, `1h02m03s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const totalSeconds = ms / 1000;
  if (totalSeconds < 60) return `${trim(totalSeconds.toFixed(1))}s`;
  const seconds = Math.floor(totalSeconds % 60);
  const minutes = Math.floor(totalSeconds / 60) % 60;
  const hours = Math.floor(totalSeconds / 3600);
  const mmss = `${String(minutes).padStart(hours ? 2 : 1, '0')}m${String(seconds).padStart(2, '0')}s`;
  return hours ? `${hours}h${mmss}` : mmss;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** `512 B`, `1.5 KiB`, `12.3 MiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${trim(value.toFixed(1))} ${UNITS[unit]}`;
}

/** Events per second with at most one decimal: `10/s`, `0.5/s`, `1234.5/s`. */
export function formatRate(perSecond: number): string {
  return `${trim(perSecond.toFixed(1))}/s`;
}

function trim(fixed: string): string {
  return fixed.endsWith('.0') ? fixed.slice(0, -2) : fixed;
}
