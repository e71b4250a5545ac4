/**
 * What the terminal and the SVG charts of `svc plot` share: the value range of a chart, how an instant is written on
 * its axes, and where the time axis gets its ticks (a value is written by `formatValue`, which the console shares).
 */
import type { PreviewEntry, PreviewSeries } from '../../preview/index.js';
import { formatMs } from '../../format.js';
import { isRate } from '../../preview/points.js';

/** A chart's value range: every value of its series inside [min, max], never empty. */
export interface Range {
  readonly min: number;
  readonly max: number;
}

/** The range of the lines of `entry`; a flat or empty one is widened so a line sits inside it. A rate counts from 0. */
export function rangeOf(entry: PreviewEntry, series: readonly PreviewSeries[]): Range {
  let min = isRate(entry.unit) ? 0 : Infinity;
  let max = -Infinity;
  for (const { values } of series)
    for (const value of values)
      if (value !== null) {
        min = Math.min(min, value);
        max = Math.max(max, value);
      }
  if (min > max) return { min: 0, max: 1 };
  if (min === max) {
    // A tenth of the value, but never 0 (a tenth of 5e-324 is), and bounds that stay numbers (1.7e308 + a tenth is
    // Infinity): an empty or infinite range draws no line.
    const pad = min === 0 ? 1 : Math.max(Math.abs(min) * 0.1, Number.MIN_VALUE);
    return { min: Math.max(min - pad, -Number.MAX_VALUE), max: Math.min(max + pad, Number.MAX_VALUE) };
  }
  return { min, max };
}

/**
 * Where `value` lies in `range`: 0 at its bottom, 1 at its top. Halved first only for a range wider than the largest
 * number (values from -1.7e308 to 1.7e308), whose `max - min` is Infinity: halving would lose the smallest values
 * (5e-324 / 2 is 0).
 */
export function heightOf(value: number, { min, max }: Range): number {
  const span = max - min;
  if (Number.isFinite(span)) return (value - min) / span;
  return (value / 2 - min / 2) / (max / 2 - min / 2);
}

/** Tick spacings of a time axis, shortest first. */
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200].map(
  (s) => s * 1000,
);

/** Ticks of a time axis `spanMs` long drawn `length` units wide: every tick at least `gap` units apart. */
export function timeTicks(spanMs: number, length: number, gap: number): { at: number; label: string }[] {
  const step = TIME_STEPS.find((ms) => (ms / spanMs) * length >= gap) ?? spanMs;
  const ticks: { at: number; label: string }[] = [];
  for (let ms = 0; ms <= spanMs; ms += step) ticks.push({ at: ms, label: ms === 0 ? '0' : formatMs(ms) });
  return ticks;
}

/** An entry's title: its id, its type and what its values mean. */
export function titleOf(entry: PreviewEntry): string {
  return `${entry.id} · ${entry.type} · ${entry.unit}`;
}

/** How the legend of a chart names a mark, or undefined for a mark it does not name (gaps show as empty). */
export function markLegend(kind: string, label: string | undefined): string | undefined {
  switch (kind) {
    case 'burst':
      return `burst ${label ?? ''}`.trim();
    case 'start':
      return label && `start ${label}`;
    case 'after':
    case 'while':
    case 'spike':
    case 'incident':
      return label;
    case 'end':
      return 'end';
    default:
      return undefined;
  }
}

/**
 * `item` on as few lines as `fits` allows, broken after its commas (between the labels of a label set), each line
 * after the first two spaces in: a legend item too wide for one line is not cut where its label sets differ. A part
 * with no comma to break at may still not fit.
 */
function brokenAtCommas(item: string, fits: (line: string) => boolean): string[] {
  if (fits(item)) return [item];
  const lines: string[] = [];
  let line = '';
  for (const part of item.split(/(?<=,)/)) {
    if (line.trim() && !fits(line + part)) {
      lines.push(line);
      line = '  ';
    }
    line += part;
  }
  return [...lines, line];
}

/** A part of a legend item placed on a line: its text, the index of its item and whether it is the item's first. */
export interface LegendPart {
  readonly item: number;
  readonly text: string;
  readonly first: boolean;
}

/**
 * The lines `items` take, `gap` apart, within `room` as `widthOf` measures them, the first line already `start`
 * used (by a title): an item that does not fit where the line is goes to the next; one wider than `room` gets lines
 * of its own, broken after its commas ({@link brokenAtCommas}), and the next item starts a line. The one layout of
 * the terminal's and the SVG's legends.
 */
export function legendLines(
  items: readonly string[],
  room: number,
  widthOf: (text: string) => number,
  gap: number,
  start = 0,
): LegendPart[][] {
  const lines: LegendPart[][] = [[]];
  let used = start;
  const newLine = () => {
    lines.push([]);
    used = 0;
  };
  items.forEach((whole, item) => {
    const parts = brokenAtCommas(whole, (part) => widthOf(part) <= room);
    if (used > 0 && (parts.length > 1 || used + gap + widthOf(parts[0]!) > room)) newLine();
    parts.forEach((text, k) => {
      if (k > 0) newLine();
      lines.at(-1)!.push({ item, text, first: k === 0 });
      used += (used > 0 ? gap : 0) + widthOf(text);
    });
    // An item broken onto lines of its own ends its last one too.
    if (parts.length > 1) used = Infinity;
  });
  return lines;
}
