/** uPlot charts of the console, kept by key so the page (and the browser specs) can read what they draw. */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatValue } from '../../lib/format.js';
import { type DrawnMarks, LABEL_FONT, labelBoxes } from './mark-labels.js';
import { ERROR_RATIO, loneIndices, MARK_COLOURS, SERIES_COLOURS } from '../../lib/preview/points.js';
import type { PreviewMark } from '../../lib/preview/types.js';

/** Every chart on the page, by key (`running:<id>`, `preview:<entry id>`): `svcConsole.charts` reads them. */
export const charts = new Map<string, uPlot>();

/** Narrower than this, a chart keeps this width (its axes and a few points still fit). */
const MIN_WIDTH = 240;
/** What keeps each chart as wide as its box, by key. */
const resizers = new Map<string, ResizeObserver>();

/** A vertical mark on a chart: a start, a burst or a gap (a span when `until` is given). */
export interface Mark {
  readonly kind: PreviewMark['kind'];
  /** Epoch ms. */
  readonly at: number;
  readonly until?: number;
  readonly label?: string;
}

export interface ChartSeries {
  readonly label: string;
  /** The scale it is drawn on: `y` (left axis) unless given (one of {@link RIGHT_SCALES}: an axis on the right). */
  readonly scale?: string;
  /** A rate (events/s): its scale counts from 0, as `svc plot`'s does (see `isRate`). */
  readonly rate?: boolean;
}

/**
 * The scales with an axis on the right, each with its axis label: the events/s of a live chart, and a traces
 * preview's error ratio, from 0 to 1 (on the spans/s axis, tens of spans a second, it was a flat line at 0).
 */
const RIGHT_SCALES: Record<string, { readonly label: string; readonly range?: uPlot.Range.MinMax }> = {
  rate: { label: 'events/s' },
  ratio: { label: ERROR_RATIO, range: [0, 1] },
};

/**
 * A time chart (x in epoch ms) of `series` in `target`, under `key`, replacing the chart that had the key. The
 * {@link RIGHT_SCALES} get their own axis on the right.
 */
export function timeChart(
  key: string,
  target: HTMLElement,
  series: readonly ChartSeries[],
  data: ChartData,
  marks: readonly Mark[] = [],
): uPlot {
  dropChart(key);
  const scales = new Set(series.map((s) => s.scale ?? 'y'));
  scalesOf.set(key, [undefined, ...series.map((s) => s.scale ?? 'y')]);
  const options: uPlot.Options = {
    width: Math.max(target.clientWidth, MIN_WIDTH),
    height: 160,
    ms: 1,
    legend: { live: false },
    cursor: { drag: { x: false, y: false } },
    series: [
      {},
      ...series.map((s, i) => ({
        label: s.label,
        scale: s.scale ?? 'y',
        stroke: SERIES_COLOURS[i % SERIES_COLOURS.length],
        width: 1.5,
        spanGaps: false,
        points: { filter: lonePoints },
      })),
    ],
    scales: Object.fromEntries(
      [...scales].map((scale) => {
        const fromZero = series.some((s) => s.rate && (s.scale ?? 'y') === scale);
        const range: uPlot.Scale.Range =
          RIGHT_SCALES[scale]?.range ??
          ((u, min, max) => valueRange(u, fromZero && min !== null ? Math.min(min, 0) : min, max));
        return [scale, { range }];
      }),
    ),
    axes: [
      {},
      ...(scales.has('y') ? [valueAxis(key, { scale: 'y' })] : []),
      ...Object.entries(RIGHT_SCALES).flatMap(([scale, { label }]) =>
        scales.has(scale) ? [valueAxis(key, { scale, side: 1, label, grid: { show: false } })] : [],
      ),
    ],
    padding: [null, null, null, leftPadding],
    hooks: { init: [spaceTimeLabels], draw: [(u) => recordAxes(key, u)] },
    plugins: marks.length ? [marksPlugin(key, marks)] : [],
  };
  const chart = new uPlot(options, inPowersOfTen(key, data), target);
  charts.set(key, chart);
  // The chart follows its box's width: a window made narrower (a phone turned) must not leave it wider than the page.
  const resizer = new ResizeObserver(() => {
    const width = Math.max(target.clientWidth, MIN_WIDTH);
    if (width !== chart.width) chart.setSize({ width, height: chart.height });
  });
  resizer.observe(target);
  resizers.set(key, resizer);
  return chart;
}

/** A chart's data: the times (epoch ms), then each series' values (null where it has none). */
export type ChartData = readonly [readonly number[], ...(readonly (number | null)[])[]];

/**
 * The range of a scale without a fixed one: uPlot's own (its ends rounded, 0 in view when near), unless that does not
 * hold the values: uPlot rounds away what follows six zeros after the point, so values from 1.00000001 to 1.00000002
 * got the range 1 to 1, whose ticks filled the memory (a page error, and no chart).
 */
function valueRange(_u: uPlot, min: number | null, max: number | null): uPlot.Range.MinMax {
  if (min === null || max === null) return [min, max];
  const [low, high] = uPlot.rangeNum(min, max, 0.1, true);
  if (low !== null && high !== null && low <= min && high >= max && low < high) return [low, high];
  const pad = (max - min) / 10 || Math.abs(max) / 10 || 1;
  return [min - pad, max + pad];
}

/** More ticks than a value axis ever has room for: a bound on the loop of {@link valueSplits}. */
const MOST_TICKS = 100;

/**
 * A value axis' ticks: every multiple of uPlot's `increment` from `min` to `max`. uPlot's own rounded the first one
 * away after six zeros past the point: for values from 1.00000001 to 1.00000002 its ticks started at 1 and
 * 1.000000005, below the plot, their labels written over the time axis.
 */
function valueSplits(_u: uPlot, _axis: number, min: number, max: number, increment: number): number[] {
  const splits: number[] = [];
  if (!(increment > 0)) return splits;
  for (let i = Math.ceil(min / increment); i * increment <= max && splits.length < MOST_TICKS; i++)
    splits.push(i * increment);
  return splits;
}

/**
 * Gives the chart of `key` new data (a poll's), drawn in the powers of ten its values need. uPlot writes an axis'
 * labels anew only when a scale's range changed: values going from 5e15 to 5e16 are drawn from 1 to 10 both times,
 * so where a power of ten changed the axes are written anew (else they follow only because a live chart's times move).
 */
export function setChartData(key: string, data: ChartData): void {
  const chart = charts.get(key);
  if (!chart) return;
  const before = exponents.get(key);
  chart.setData(inPowersOfTen(key, data));
  const after = exponents.get(key)!;
  const changed = [...new Set([...(before?.keys() ?? []), ...after.keys()])].some(
    (scale) => before?.get(scale) !== after.get(scale),
  );
  // Not the paths (false): setData has them drawn anew, and its own x range is not to be replaced by the last.
  if (changed) chart.redraw(false, true);
}

/** The scale of each column of a chart's data, by key (the times' column has none). */
const scalesOf = new Map<string, readonly (string | undefined)[]>();
/** The power of ten each scale of a chart draws its values in, by key then scale: none is 0. */
const exponents = new Map<string, Map<string, number>>();

/**
 * The magnitudes uPlot ticks well, which `formatValue` writes without an exponent. Past them uPlot's range and tick
 * math broke down: values up to ±1.7e308 (or a flat line at 1e40) drew no axis and no line, its range being
 * Infinity; values of 1e-31 were labelled 0, 50 and 100, and those of 1e-18 or 5e-324 got no label at all.
 */
const PLAIN_MAGNITUDES = { min: 1e-3, max: 1e15 } as const;

/**
 * `data` as the chart of `key` draws it: the values of each scale without a fixed range whose largest magnitude lies
 * outside {@link PLAIN_MAGNITUDES} divided by that magnitude's power of ten (kept in {@link exponents}, which the
 * axis labels add back), so uPlot sees values from 1 to 10. A value no axis can place (NaN, ±Infinity) is a gap: one
 * made the largest magnitude NaN, which left its whole scale undivided, and uPlot takes a first NaN as its range.
 */
function inPowersOfTen(key: string, data: ChartData): uPlot.AlignedData {
  const columns = scalesOf.get(key) ?? [];
  const largest = new Map<string, number>();
  columns.forEach((scale, i) => {
    if (scale === undefined || RIGHT_SCALES[scale]?.range) return;
    for (const value of data[i]!)
      if (Number.isFinite(value)) largest.set(scale, Math.max(largest.get(scale) ?? 0, Math.abs(value!)));
  });
  const powers = new Map<string, number>();
  for (const [scale, magnitude] of largest)
    if (magnitude > 0 && (magnitude < PLAIN_MAGNITUDES.min || magnitude >= PLAIN_MAGNITUDES.max))
      powers.set(scale, Math.floor(Math.log10(magnitude)));
  exponents.set(key, powers);
  return data.map((column, i) => {
    if (i === 0) return column;
    const exponent = powers.get(columns[i] ?? '') ?? 0;
    return column.map((v) => (v === null || !Number.isFinite(v) ? null : timesTenTo(v, -exponent)));
  }) as uPlot.AlignedData;
}

/**
 * `value` × 10^`exponent`, in two steps: 10^324, which takes 5e-324 to 4.9, is no number (Infinity), nor is 10^-324
 * (0), but their halves are.
 */
function timesTenTo(value: number, exponent: number): number {
  const half = Math.trunc(exponent / 2);
  return value * 10 ** half * 10 ** (exponent - half);
}

/**
 * The points of series `index` to draw as dots where uPlot draws none (too many for dots): the values with a null on
 * each side. A line needs two values in a row, so a series written less often than the chart's steps (span metrics
 * every 15 s, in a preview of 7.5 s steps) drew nothing at all.
 */
function lonePoints(u: uPlot, index: number, show: boolean): number[] | null {
  if (show) return null;
  const lone = loneIndices(u.data[index]!);
  return lone.length ? lone : null;
}

/** Removes the chart of `key` from the page, if there is one. */
export function dropChart(key: string): void {
  resizers.get(key)?.disconnect();
  resizers.delete(key);
  charts.get(key)?.destroy();
  charts.delete(key);
  drawnMarks.delete(key);
  drawnAxes.delete(key);
  scalesOf.delete(key);
  exponents.delete(key);
}

/** A line of a time axis label as drawn: its text, which line of its label it is, and its left and right edges. */
export interface LabelLine {
  readonly text: string;
  readonly line: number;
  readonly left: number;
  readonly right: number;
}

/**
 * What an axis drew last (CSS pixels): the power of ten of its values, its labels, the width of the widest and the width it had for them; for the
 * time axis (`x`), how far its first label reaches left of its tick, how far that tick is from the canvas's edge,
 * and each line of each label (from the canvas's left edge).
 */
export interface DrawnAxis {
  /** The power of ten a value axis draws its values in: the chart's `data` holds them divided by 10^exponent. */
  readonly exponent?: number;
  readonly labels: readonly string[];
  readonly widest: number;
  readonly room: number;
  readonly lines?: readonly LabelLine[];
}

/** The axes of each chart, by key, then scale: `svcConsole.axes` reads them (the specs check none is cut). */
export const drawnAxes = new Map<string, Map<string, DrawnAxis>>();

/** An axis as uPlot keeps it once drawn: its font (as drawn, in canvas pixels), side, ticks, labels and width. */
interface AxisState {
  readonly scale?: string;
  readonly side: number;
  readonly font: readonly [string];
  readonly ticks: { readonly size: number };
  readonly gap: number;
  readonly _show: boolean;
  readonly _splits?: readonly number[];
  readonly _values?: readonly string[];
  readonly _size: number;
}

/** uPlot's own padding of a side with no axis: half its default axis size. */
const EDGE_PADDING = 25;

/**
 * The time axis' first tick and how far its label reaches left of it (CSS pixels): uPlot centres a label under its
 * tick, the first one with the date on a second line ("11/29/26 2:24am").
 */
function firstTimeLabel(u: uPlot): { readonly at: number; readonly reach: number } | undefined {
  const { _splits, _values } = u.axes[0] as unknown as AxisState;
  if (_splits?.[0] === undefined || _values?.[0] === undefined) return undefined;
  return { at: _splits[0], reach: widestLabel(u, 0, _values[0].split('\n')) / 2 };
}

/**
 * The chart's left padding: uPlot's own, or what the time axis' first label needs so as not to start left of the
 * canvas, where it was cut ("/29/26 2:24am"), were its tick at the plot's left edge. Not where the tick is: room made
 * for it moved the ticks (a narrower plot, other steps), whose first label then needed other room, and uPlot applies
 * only two of its three layout passes: a live chart's date was cut until the next poll, or for good once it ended.
 */
function leftPadding(u: uPlot, _side: number, sidesWithAxes: uPlot.SidesWithAxes, cycle: number): number {
  const own = sidesWithAxes[3] ? 0 : EDGE_PADDING;
  const first = cycle > 0 ? firstTimeLabel(u) : undefined;
  if (!first) return own;
  const axes = (u.axes as unknown as AxisState[]).filter((axis) => axis.side === 3 && axis._show);
  const left = axes.reduce((width, axis) => width + axis._size, 0);
  return Math.max(own, Math.ceil(first.reach - left));
}

/** The least room between two lines of the time axis' labels side by side (CSS pixels). */
const LABEL_GAP = 4;

/**
 * Wraps uPlot's own time labels (set by then: `init` runs once the axes are) so that none of their second lines
 * reaches the one before: with ticks a second apart and a minute starting at the second tick, the first tick's date
 * ("11/29/26 2:25pm") was printed over "2:26pm". Such a later line is left out; the first label keeps its date.
 */
function spaceTimeLabels(u: uPlot): void {
  const axis = u.axes[0]!;
  const own = axis.values as uPlot.Axis.DynamicValues;
  axis.values = (self, splits, ...rest) => {
    let reached = Number.NEGATIVE_INFINITY;
    return own(self, splits, ...rest).map((label, i) => {
      const [first, second] = String(label).split('\n');
      if (second === undefined) return label;
      const at = self.valToPos(splits[i]!, 'x');
      const half = widestLabel(self, 0, [second]) / 2;
      if (at - half < reached + LABEL_GAP) return first!;
      reached = at + half;
      return label;
    });
  };
}

/** Each line of each label the time axis drew, where uPlot draws it: centred under its tick. */
function timeLabelLines(u: uPlot): LabelLine[] {
  const { _splits = [], _values = [] } = u.axes[0] as unknown as AxisState;
  const left = u.bbox.left / devicePixelRatio;
  return _values.flatMap((label, i) =>
    label.split('\n').map((text, line) => {
      const at = left + u.valToPos(_splits[i]!, 'x');
      const half = widestLabel(u, 0, [text]) / 2;
      return { text, line, left: at - half, right: at + half };
    }),
  );
}

/** The width of the widest of `labels` in the font of axis `index` (CSS pixels). */
function widestLabel(u: uPlot, index: number, labels: readonly string[]): number {
  u.ctx.save();
  u.ctx.font = (u.axes[index] as unknown as AxisState).font[0];
  const widest = Math.max(0, ...labels.map((label) => u.ctx.measureText(label).width / devicePixelRatio));
  u.ctx.restore();
  return widest;
}

/** The least positive double with all its digits: below it (subnormals) 2.5e-324 is 4.9e-324, and 1e-324 is 0. */
const LEAST_NORMAL = 2 ** -1022;

/**
 * Ticks' labels as `svc plot` writes values, with more digits where fewer would write two ticks alike. Ticks drawn
 * in a power of ten (`exponent`) are written in real units: by `formatValue` where a double holds the real value
 * (0 to 1.2e15 is `0`, `500T`, `1.0e15`, not `5.0e14`), else with the exponent added to the mantissa's as text:
 * the padding past ±1.8e308 is Infinity as a number, a subnormal tick has lost its digits.
 */
function tickLabels(splits: readonly number[], exponent: number): string[] {
  const label = (split: number, digits: number) => {
    if (exponent === 0) return formatValue(split, digits);
    if (split === 0) return '0';
    const real = timesTenTo(split, exponent);
    if (Number.isFinite(real) && Math.abs(real) >= LEAST_NORMAL) return formatValue(real, digits);
    const [mantissa, power] = split.toExponential(digits - 2).split('e');
    return `${mantissa}e${Number(power) + exponent}`;
  };
  let labels: string[] = [];
  for (let digits = 3; digits <= 15; digits++) {
    labels = splits.map((split) => label(split, digits));
    if (new Set(labels).size === labels.length) break;
  }
  return labels;
}

/**
 * A value axis of the chart of `key`: its ticks written as `svc plot` writes values (`301M`, `7.0e-5`), in real
 * units, and as wide as its widest label (a fixed width cut the leading digits of large values).
 */
function valueAxis(key: string, axis: uPlot.Axis): uPlot.Axis {
  return {
    ...axis,
    splits: valueSplits,
    values: (_, splits) => tickLabels(splits, exponents.get(key)?.get(axis.scale!) ?? 0),
    size: (u, labels, index) => {
      const { ticks, gap } = u.axes[index] as unknown as AxisState;
      return Math.ceil(widestLabel(u, index, labels ?? [])) + ticks.size + gap;
    },
  };
}

/** Keeps what the axes of the chart under `key` drew. */
function recordAxes(key: string, u: uPlot): void {
  const axes = new Map<string, DrawnAxis>();
  const first = firstTimeLabel(u);
  if (first) {
    const room = u.bbox.left / devicePixelRatio + u.valToPos(first.at, 'x');
    const labels = (u.axes[0] as unknown as AxisState)._values!;
    axes.set('x', { labels, widest: first.reach, room, lines: timeLabelLines(u) });
  }
  for (const [index, axis] of (u.axes as unknown as AxisState[]).entries()) {
    if (index === 0 || !axis._values) continue;
    axes.set(axis.scale!, {
      exponent: exponents.get(key)?.get(axis.scale!) ?? 0,
      labels: axis._values,
      widest: widestLabel(u, index, axis._values),
      room: axis._size - axis.ticks.size - axis.gap,
    });
  }
  drawnAxes.set(key, axes);
}

/** The marks of each chart, by key: `svcConsole.marks` reads them (the specs check that labels do not overlap). */
export const drawnMarks = new Map<string, DrawnMarks>();

/**
 * Draws marks on the plot: a line at `at`, a shaded band up to `until` for spans (bursts, gaps, whiles), and each
 * mark's label on top, in rows so that no label covers another (one with no room left out); what it drew is kept
 * under `key`.
 */
function marksPlugin(key: string, marks: readonly Mark[]): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const { ctx } = u;
        const ratio = devicePixelRatio;
        const { top, height, left, width } = u.bbox;
        ctx.save();
        const colors = marks.map((mark) => MARK_COLOURS[mark.kind]);
        const xs = marks.map((mark) => u.valToPos(mark.at, 'x', true));
        for (const [i, mark] of marks.entries()) {
          const x = xs[i]!;
          if (mark.until !== undefined) {
            ctx.fillStyle = `${colors[i]}22`;
            ctx.fillRect(x, top, u.valToPos(mark.until, 'x', true) - x, height);
          }
          ctx.strokeStyle = colors[i]!;
          ctx.lineWidth = 1;
          ctx.setLineDash([4, 3]);
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, top + height);
          ctx.stroke();
        }
        // uPlot leaves the alignment of its last axis labels on the context: set what the labels need.
        ctx.font = `${LABEL_FONT * ratio}px sans-serif`;
        ctx.textAlign = 'left';
        ctx.textBaseline = 'top';
        // Laid out in CSS pixels, drawn in the canvas's.
        const texts = marks.map((mark) => mark.label ?? mark.kind);
        const widths = texts.map((text) => ctx.measureText(text).width / ratio);
        const plot = { left: left / ratio, top: top / ratio, width: width / ratio, height: height / ratio };
        const labels = labelBoxes(
          texts,
          xs.map((x) => x / ratio),
          widths,
          plot,
        );
        for (const label of labels) {
          ctx.fillStyle = colors[label.mark]!;
          ctx.fillText(label.text, label.left * ratio, label.top * ratio);
        }
        drawnMarks.set(key, { plot, labels, hidden: marks.length - labels.length });
        ctx.restore();
      },
    },
  };
}
