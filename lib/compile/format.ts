/** Exact figures for compile messages and dry-run timing (lib/cli/format.ts rounds for progress lines). */
import type { StartTime } from '../config/types.js';

/** `250ms`, `1.25s`, `1m30s`, `1h`, `1h2m3.5s`, `333.333ms`: milliseconds to at most three decimals, zero parts left out. */
export function formatMs(ms: number): string {
  const exact = (n: number) => String(Math.round(n * 1000) / 1000);
  if (ms < 1000) return `${exact(ms)}ms`;
  if (ms < 60_000) return `${exact(ms / 1000)}s`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor(ms / 60_000) % 60;
  const seconds = Math.round((ms % 60_000)) / 1000;
  return `${hours ? `${hours}h` : ''}${minutes ? `${minutes}m` : ''}${seconds ? `${exact(seconds)}s` : ''}`;
}

/** `now`, `2024-05-01T12:00:00.000Z`, `-1h`. */
export function formatStartTime(startTime: StartTime): string {
  switch (startTime.kind) {
    case 'now':
      return 'now';
    case 'absolute':
      return new Date(startTime.epochMs).toISOString();
    case 'relative':
      return `${startTime.offsetMs < 0 ? '-' : '+'}${formatMs(Math.abs(startTime.offsetMs))}`;
  }
}
