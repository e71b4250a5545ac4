/** A recurring window measured from the entry start: a cycle of `every` ms, `for` ms long. */
export interface Window {
  readonly every: number;
  readonly for: number;
}

/** True when `offset` (ms since the entry start) lies in the head `[0, for)` of its cycle. */
export function inHead(window: Window, offset: number): boolean {
  return offset % window.every < window.for;
}

/** True when `offset` (ms since the entry start) lies in the tail `[every - for, every)` of its cycle. */
export function inTail(window: Window, offset: number): boolean {
  return offset % window.every >= window.every - window.for;
}
