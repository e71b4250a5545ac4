/**
 * The moments a preview marks on an entry's chart: its start (at once, after its phase offset, or on its `after`
 * trigger), its end, the spans its `while` gate was open, its burst, gap and cardinality spike windows, and the
 * incident windows of its spans.
 */
import type { Entry } from '../config/types.js';
import { formatCondition, formatMs } from '../format.js';
import { mergedWindows, type Window } from '../../operators/model/window.js';
import { incidentsOf, incidentWindow } from '../generators/trace.js';
import type { PreviewMark } from './types.js';

/** Windows of one kind (bursts, gaps, spikes, open gates) an entry's preview marks at most; later ones are left out. */
export const MAX_WINDOW_MARKS = 500;

/** Where the preview's time axis starts (epoch ms) and ends, and where the entry started and ended on it. */
export interface Span {
  readonly from: number;
  readonly to: number;
  readonly started: number;
  readonly ended: number;
}

/**
 * The marks of an entry that started at `span.started` and ran until `span.ended`, and its gate's open spans (one still
 * open: until Infinity).
 */
export function entryMarks(entry: Entry, span: Span, gateOpen: readonly (readonly [number, number])[]): PreviewMark[] {
  const marks: PreviewMark[] = [startMark(entry, span.started)];
  if (span.ended < span.to) marks.push({ kind: 'end', at: span.ended });
  const gate = entry.while;
  if (gate) {
    const label = `while ${formatCondition(gate)}`;
    // A gate still open where the entry ended or the axis ends is drawn open until there.
    const end = Math.min(span.ended, span.to);
    for (const [at, until] of gateOpen.filter(([at]) => at < end).slice(0, MAX_WINDOW_MARKS))
      marks.push({ kind: 'while', at, until: Math.min(until, end), label });
  }
  if (entry.bursts) {
    const label = `×${entry.bursts.multiplier}`;
    for (const [at, until] of windows(entry.bursts, 0, span)) marks.push({ kind: 'burst', at, until, label });
  }
  if (entry.gaps) {
    const { every, for: length } = entry.gaps;
    for (const [at, until] of windows(entry.gaps, every - length, span)) marks.push({ kind: 'gap', at, until });
  }
  // The spans the run silences, as it merges them: overlapping or touching windows are one gap.
  for (const [at, until] of oneShots(mergedWindows(entry.gap_windows ?? []).slice(0, MAX_WINDOW_MARKS), span))
    marks.push({ kind: 'gap', at, until });
  for (const spike of entry.cardinality_spikes) {
    const label = `spike ${spike.label}: ${spike.cardinality} values`;
    for (const [at, until] of windows(spike, 0, span)) marks.push({ kind: 'spike', at, until, label });
  }
  if (entry.trace_generator)
    for (const { operation, incident } of incidentsOf(entry.trace_generator)) {
      const { from, until } = incidentWindow(incident);
      for (const [at, to] of oneShots([[from, until]], span))
        marks.push({ kind: 'incident', at, until: to, label: `incident ${operation}` });
    }
  return marks;
}

/** The windows `[from, to)` counted from the entry's start that overlap where it ran and the axis, cut to them. */
function oneShots(spans: readonly (readonly [number, number])[], span: Span): [number, number][] {
  const end = Math.min(span.ended, span.to);
  return spans.flatMap(([from, to]) => {
    const [at, until] = [span.started + from, span.started + to];
    return at < end && until > span.from ? [[Math.max(at, span.from), Math.min(until, end)] as [number, number]] : [];
  });
}

function startMark(entry: Entry, at: number): PreviewMark {
  if (entry.after) {
    const { delay } = entry.after;
    return { kind: 'after', at, label: `after ${formatCondition(entry.after)}${delay ? ` + ${formatMs(delay)}` : ''}` };
  }
  return entry.phase_offset === undefined
    ? { kind: 'start', at }
    : { kind: 'start', at, label: `phase_offset ${formatMs(entry.phase_offset)}` };
}

/**
 * The recurring windows `[k·every + shift, k·every + shift + for)` counted from the entry's start, cut to where it
 * ran and to the axis.
 */
function windows(window: Window, shift: number, span: Span): [number, number][] {
  const found: [number, number][] = [];
  const end = Math.min(span.ended, span.to);
  for (let at = span.started + shift; at < end && found.length < MAX_WINDOW_MARKS; at += window.every) {
    found.push([Math.max(at, span.from), Math.min(at + window.for, end)]);
  }
  return found;
}
