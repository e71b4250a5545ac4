/** Start times as text, for compile messages and dry-run timing. */
import type { StartTime } from '../language/types.js';
import { formatMs } from '../format.js';

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
