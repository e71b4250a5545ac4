/** uPlot charts of the console, kept by key so the page (and the browser specs) can read what they draw. */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const COLORS = ['#2f6fdf', '#e0712c', '#2e9e5b', '#b8419f', '#8a6d1f', '#1aa0b0', '#d33f49', '#6a5acd'];

/** Every chart on the page, by key (`running:<id>`, `preview:<entry id>`): `svcConsole.charts` reads them. */
export const charts = new Map<string, uPlot>();

/** A vertical mark on a chart: a start, a burst or a gap (a span when `until` is given). */
export interface Mark {
  readonly kind: string;
  /** Epoch ms. */
  readonly at: number;
  readonly until?: number;
  readonly label?: string;
}

export interface ChartSeries {
  readonly label: string;
  /** The scale it is drawn on: `y` (left axis) unless given (`rate`: the right axis). */
  readonly scale?: string;
}

/**
 * A time chart (x in epoch ms) of `series` in `target`, under `key`, replacing the chart that had the key. A
 * second scale (`rate`) gets its own axis on the right.
 */
export function timeChart(
  key: string,
  target: HTMLElement,
  series: readonly ChartSeries[],
  data: uPlot.AlignedData,
  marks: readonly Mark[] = [],
): uPlot {
  dropChart(key);
  const scales = new Set(series.map((s) => s.scale ?? 'y'));
  const options: uPlot.Options = {
    width: Math.max(target.clientWidth, 240),
    height: 160,
    ms: 1,
    legend: { live: false },
    cursor: { drag: { x: false, y: false } },
    series: [
      {},
      ...series.map((s, i) => ({
        label: s.label,
        scale: s.scale ?? 'y',
        stroke: COLORS[i % COLORS.length],
        width: 1.5,
        spanGaps: false,
      })),
    ],
    axes: [
      {},
      ...(scales.has('y') ? [{ scale: 'y', size: 60 }] : []),
      ...(scales.has('rate') ? [{ scale: 'rate', side: 1, size: 60, label: 'events/s', grid: { show: false } }] : []),
    ],
    plugins: marks.length ? [marksPlugin(key, marks)] : [],
  };
  const chart = new uPlot(options, data, target);
  charts.set(key, chart);
  return chart;
}

/** Removes the chart of `key` from the page, if there is one. */
export function dropChart(key: string): void {
  charts.get(key)?.destroy();
  charts.delete(key);
  drawnMarks.delete(key);
}

const MARK_COLORS: Record<string, string> = {
  start: '#2e9e5b',
  end: '#888',
  after: '#6a5acd',
  while: '#6a5acd',
  burst: '#e0712c',
  gap: '#d33f49',
};

/** A box on a chart's canvas, in CSS pixels. */
export interface Box {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** What the marks of a chart drew last: the plot's box, and each label's text and box. */
export interface DrawnMarks {
  readonly plot: Box;
  readonly labels: readonly (Box & { readonly text: string })[];
}

/** The marks of each chart, by key: `svcConsole.marks` reads them (the specs check that labels do not overlap). */
export const drawnMarks = new Map<string, DrawnMarks>();

/** Label text size, the height of a row of labels and the space kept between two labels of a row (CSS pixels). */
const LABEL_FONT = 11;
const LABEL_ROW = 13;
const LABEL_SPACE = 4;

/**
 * Places labels of `widths`, each wanted just right of its line at `xs` (just left of it where it would leave the
 * plot), in the first row from the top where it clears the labels already there; the rows that fit the plot's
 * `height`, the last taking what the others cannot. Returns each label's left edge and row.
 */
function placeLabels(
  xs: readonly number[],
  widths: readonly number[],
  plot: { left: number; right: number; height: number },
): { left: number; row: number }[] {
  const rows = Math.max(1, Math.floor(plot.height / LABEL_ROW));
  const wanted = xs.map((x, i) => {
    const right = x + 3 + widths[i]!;
    const left = right <= plot.right ? x + 3 : x - 3 - widths[i]!;
    return Math.min(Math.max(left, plot.left), plot.right - widths[i]!);
  });
  // Left to right: a row is free from where its last label ends.
  const order = wanted.map((_, i) => i).sort((a, b) => wanted[a]! - wanted[b]!);
  const ends: number[] = [];
  const placed: { left: number; row: number }[] = new Array(xs.length);
  for (const i of order) {
    const left = wanted[i]!;
    let row = ends.findIndex((end) => end + LABEL_SPACE <= left);
    if (row < 0) row = Math.min(ends.length, rows - 1);
    ends[row] = Math.max(ends[row] ?? -Infinity, left + widths[i]!);
    placed[i] = { left, row };
  }
  return placed;
}

/**
 * Draws marks on the plot: a line at `at`, a shaded band up to `until` for spans (bursts, gaps, whiles), and each
 * mark's label on top, in rows so that no label covers another; what it drew is kept under `key`.
 */
function marksPlugin(key: string, marks: readonly Mark[]): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const { ctx } = u;
        const ratio = devicePixelRatio;
        const { top, height, left, width } = u.bbox;
        ctx.save();
        const xs = marks.map((mark) => u.valToPos(mark.at, 'x', true) / ratio);
        for (const [i, mark] of marks.entries()) {
          const color = MARK_COLORS[mark.kind] ?? '#888';
          const x = xs[i]! * ratio;
          if (mark.until !== undefined) {
            ctx.fillStyle = `${color}22`;
            ctx.fillRect(x, top, u.valToPos(mark.until, 'x', true) - x, height);
          }
          ctx.strokeStyle = color;
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
        const texts = marks.map((mark) => mark.label ?? mark.kind);
        const widths = texts.map((text) => ctx.measureText(text).width / ratio);
        const plot = { left: left / ratio, top: top / ratio, width: width / ratio, height: height / ratio };
        const places = placeLabels(xs, widths, { left: plot.left, right: plot.left + plot.width, height: plot.height });
        const labels = places.map(({ left: labelLeft, row }, i) => {
          const box = {
            text: texts[i]!,
            left: labelLeft,
            top: plot.top + 1 + row * LABEL_ROW,
            width: widths[i]!,
            height: LABEL_ROW - 1,
          };
          ctx.fillStyle = MARK_COLORS[marks[i]!.kind] ?? '#888';
          ctx.fillText(box.text, box.left * ratio, box.top * ratio);
          return box;
        });
        drawnMarks.set(key, { plot, labels });
        ctx.restore();
      },
    },
  };
}
