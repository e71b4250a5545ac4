/**
 * `svc plot --svg`: the charts of a Preview as one SVG document, a panel per entry: its lines (a histogram's band
 * filled between p50 and p99), its strips (logs per severity, the error ratio of traces), burst, gap and `while`
 * windows shaded, starts and ends as dashed rules, the value range and the time axis. Plain SVG text: our own
 * output format, with no script and no external reference.
 */
import type { Preview, PreviewEntry, PreviewMark, PreviewSeries } from '../../preview/index.js';
import { heightOf, legendLines, markLegend, rangeOf, timeTicks, titleOf } from './scale.js';
import { formatValue } from '../../format.js';
import { ERROR_RATIO, legendOf, loneIndices, MARK_COLOURS, SERIES_COLOURS } from '../../preview/points.js';
import { escapeControls } from '../terminal.js';

const WIDTH = 960;
const LEFT = 70;
const RIGHT = 44;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const TITLE = 26;
/** Height of each legend line past the title's. */
const LEGEND_LINE = 16;
/** Width of a legend item's text (an estimate: about 7 pixels a character), its colour swatch and the gap after. */
const textWidth = (text: string) => text.length * 7;
const SWATCH = 30;
const LINES_HEIGHT = 110;
const STRIP_HEIGHT = 22;
const AXIS = 34;
const FONT = 'DejaVu Sans, Verdana, sans-serif';

const SEVERITY_COLOURS: Record<string, string> = {
  trace: '#868e96',
  debug: '#3b5bdb',
  info: '#2f9e44',
  warn: '#e0a100',
  error: '#e03131',
  fatal: '#c0399a',
};

/** The SVG document of every entry's panel, stacked. */
export function previewSvg(preview: Preview, caption: string): string {
  let y = 30;
  const panels = preview.entries.map((entry) => {
    const panel = entryPanel(preview, entry, y);
    y += panel.height + 16;
    return panel.svg;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y}" viewBox="0 0 ${WIDTH} ${y}" font-family="${FONT}" font-size="12">`,
    `<rect width="${WIDTH}" height="${y}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="18" font-size="13" fill="#495057">${escapeXml(caption)}</text>`,
    ...panels,
    '</svg>',
    '',
  ].join('\n');
}

function entryPanel(preview: Preview, entry: PreviewEntry, top: number): { svg: string; height: number } {
  const strips = entry.series.filter((series) => entry.type === 'logs' || series.name === ERROR_RATIO);
  const lines = entry.series.filter((series) => !strips.includes(series));
  const colourOf = (series: PreviewSeries, i: number) =>
    series.name === ERROR_RATIO
      ? '#e03131'
      : (SEVERITY_COLOURS[series.name] ?? SERIES_COLOURS[i % SERIES_COLOURS.length]!);
  const { svg: legend, lines: legendLines } = legendSvg(entry, top, colourOf);
  const plotTop = top + TITLE + (legendLines - 1) * LEGEND_LINE;
  const linesHeight = lines.length > 0 ? LINES_HEIGHT : 0;
  const plotHeight = linesHeight + strips.length * STRIP_HEIGHT;
  const x = (i: number) => LEFT + (i / preview.points) * PLOT_WIDTH;
  const atX = (at: number) => LEFT + ((at - preview.from) / (preview.step * preview.points)) * PLOT_WIDTH;
  const out: string[] = [...legend];
  out.push(...windowShades(entry.marks, atX, plotTop, plotHeight));
  out.push(
    `<rect x="${LEFT}" y="${plotTop}" width="${PLOT_WIDTH}" height="${plotHeight}" fill="none" stroke="#dee2e6"/>`,
  );
  if (lines.length > 0) {
    const range = rangeOf(entry, lines);
    const y = (value: number) => plotTop + (1 - heightOf(value, range)) * linesHeight;
    out.push(
      `<text x="${LEFT - 6}" y="${plotTop + 10}" text-anchor="end" fill="#495057">${formatValue(range.max)}</text>`,
      `<text x="${LEFT - 6}" y="${plotTop + linesHeight}" text-anchor="end" fill="#495057">${formatValue(range.min)}</text>`,
    );
    if (entry.type === 'histogram' || entry.type === 'summary') out.push(band(lines, x, y));
    for (const [i, series] of lines.entries()) {
      const colour = colourOf(series, i);
      out.push(`<path d="${pathOf(series.values, x, y)}" fill="none" stroke="${colour}" stroke-width="1.5"/>`);
      // A value with no value beside it makes no line (a series sparser than the points): a dot shows it.
      for (const at of loneIndices(series.values))
        out.push(`<circle cx="${xOf(at, x)}" cy="${y(series.values[at]!).toFixed(1)}" r="2" fill="${colour}"/>`);
    }
  }
  for (const [i, series] of strips.entries()) {
    const stripTop = plotTop + linesHeight + i * STRIP_HEIGHT;
    const max = series.name === ERROR_RATIO ? 1 : Math.max(0, ...series.values.map((v) => v ?? 0));
    const colour = colourOf(series, lines.length + i);
    const y = (value: number) => stripTop + STRIP_HEIGHT - 2 - (max > 0 ? (value / max) * (STRIP_HEIGHT - 4) : 0);
    out.push(
      `<text x="${LEFT - 6}" y="${stripTop + 15}" text-anchor="end" fill="${colour}">${escapeXml(series.name)}</text>`,
      `<path d="${areaOf(series.values, x, y, stripTop + STRIP_HEIGHT - 2)}" fill="${colour}" fill-opacity="0.6"/>`,
      `<text x="${LEFT + PLOT_WIDTH + 2}" y="${stripTop + 10}" font-size="9" fill="#868e96">${formatValue(max)}</text>`,
    );
  }
  out.push(...moments(entry.marks, atX, plotTop, plotHeight));
  const span = preview.step * preview.points;
  for (const tick of timeTicks(span, PLOT_WIDTH, 70)) {
    const tx = LEFT + (tick.at / span) * PLOT_WIDTH;
    out.push(
      `<line x1="${tx.toFixed(1)}" y1="${plotTop + plotHeight}" x2="${tx.toFixed(1)}" y2="${plotTop + plotHeight + 4}" stroke="#868e96"/>`,
      `<text x="${tx.toFixed(1)}" y="${plotTop + plotHeight + 16}" text-anchor="middle" fill="#495057">${tick.label}</text>`,
    );
  }
  const legends = [...new Set(entry.marks.flatMap((mark) => markLegend(mark.kind, mark.label) ?? []))].join('   ');
  if (legends)
    out.push(
      `<text x="${LEFT}" y="${plotTop + plotHeight + 30}" font-size="11" fill="#868e96">${escapeXml(legends)}</text>`,
    );
  return { svg: `<g>\n${out.join('\n')}\n</g>`, height: plotTop - top + plotHeight + AXIS };
}

/**
 * The title of an entry's panel, the labels its series share and a swatch and name for each series, on as many lines
 * as the panel's width takes (a name too wide for one is broken after its commas).
 */
function legendSvg(
  entry: PreviewEntry,
  top: number,
  colourOf: (series: PreviewSeries, i: number) => string,
): { svg: string[]; lines: number } {
  // Escaped before they are measured: an escape is wider than the character it shows (ESC as \u001b).
  const title = escapeControls(titleOf(entry));
  const out = [`<text x="${LEFT}" y="${top + 16}" font-weight="bold" fill="#212529">${escapeXml(title)}</text>`];
  const titleWidth = 12 + title.length * 7.2;
  const legend = legendOf(entry.series);
  // The shared labels come first, without a swatch; then each series' name.
  const shared = legend.shared === undefined ? [] : [legend.shared];
  const items = [...shared, ...legend.names].map(escapeControls);
  const lines = legendLines(items, WIDTH - RIGHT - LEFT, (part) => SWATCH + textWidth(part), 0, titleWidth);
  lines.forEach((parts, line) => {
    const y = top + line * LEGEND_LINE;
    let x = LEFT + (line === 0 ? titleWidth : 0);
    for (const { item, text, first } of parts) {
      const series = item - shared.length;
      if (series >= 0 && first) {
        const swatch = colourOf(entry.series[series]!, series);
        out.push(`<rect x="${x.toFixed(1)}" y="${y + 8}" width="14" height="4" fill="${swatch}"/>`);
      }
      out.push(`<text x="${(x + 18).toFixed(1)}" y="${y + 15}" fill="#495057">${escapeXml(text)}</text>`);
      x += SWATCH + textWidth(text);
    }
  });
  return { svg: out, lines: lines.length };
}

/** Burst, gap, spike, incident and open `while` windows, shaded behind the lines. */
function windowShades(marks: readonly PreviewMark[], atX: (at: number) => number, top: number, height: number) {
  return marks
    .filter((mark) => mark.until !== undefined)
    .map((mark) => {
      const x = atX(mark.at);
      const width = Math.max(1, atX(mark.until!) - x);
      return `<rect x="${x.toFixed(1)}" y="${top}" width="${width.toFixed(1)}" height="${height}" fill="${MARK_COLOURS[mark.kind]}" fill-opacity="0.2"><title>${escapeXml(markLegend(mark.kind, mark.label) ?? mark.kind)}</title></rect>`;
    });
}

/** Starts (late ones) and ends: dashed rules across the panel. */
function moments(marks: readonly PreviewMark[], atX: (at: number) => number, top: number, height: number) {
  return marks
    .filter((mark) => mark.kind === 'end' || ((mark.kind === 'start' || mark.kind === 'after') && mark.label))
    .map((mark) => {
      const x = atX(mark.at).toFixed(1);
      return `<line x1="${x}" y1="${top}" x2="${x}" y2="${top + height}" stroke="${MARK_COLOURS[mark.kind]}" stroke-dasharray="4 3"><title>${escapeXml(markLegend(mark.kind, mark.label) ?? mark.kind)}</title></line>`;
    });
}

/** A line through the non-null points; a null breaks it. */
function pathOf(values: readonly (number | null)[], x: (i: number) => number, y: (v: number) => number): string {
  let d = '';
  let drawing = false;
  for (const [i, value] of values.entries()) {
    if (value === null) drawing = false;
    else {
      d += `${drawing ? 'L' : 'M'}${xOf(i, x)} ${y(value).toFixed(1)}`;
      drawing = true;
    }
  }
  return d || 'M0 0';
}

/** The middle of point `i`'s step. */
function xOf(i: number, x: (i: number) => number): string {
  return (x(i) + 0.5 * (x(1) - x(0))).toFixed(1);
}

/** A filled strip: a bar per point down to `base`; none where the value is null or 0. */
function areaOf(values: readonly (number | null)[], x: (i: number) => number, y: (v: number) => number, base: number) {
  const width = (x(1) - x(0)).toFixed(2);
  let d = '';
  values.forEach((value, i) => {
    if (value === null || value <= 0) return;
    d += `M${x(i).toFixed(1)} ${base}V${y(value).toFixed(1)}h${width}V${base}Z`;
  });
  return d || 'M0 0';
}

/** A histogram's band: filled between its first and last quantile (p50, p99) wherever both have values. */
function band(lines: readonly PreviewSeries[], x: (i: number) => number, y: (v: number) => number): string {
  const low = lines[0]!.values;
  const high = lines[lines.length - 1]!.values;
  const half = 0.5 * (x(1) - x(0));
  let d = '';
  let run: number[] = [];
  const close = () => {
    if (run.length > 0) {
      const top = run.map((i) => `${(x(i) + half).toFixed(1)} ${y(high[i]!).toFixed(1)}`);
      const bottom = run.reverse().map((i) => `${(x(i) + half).toFixed(1)} ${y(low[i]!).toFixed(1)}`);
      d += `M${top.join('L')}L${bottom.join('L')}Z`;
    }
    run = [];
  };
  for (const [i, value] of low.entries()) {
    if (value === null || high[i] === null) close();
    else run.push(i);
  }
  close();
  return `<path d="${d || 'M0 0'}" fill="${SERIES_COLOURS[0]}" fill-opacity="0.15"/>`;
}

/** `text` as XML character data: its control characters escaped too, as XML 1.0 allows none but tab and line breaks. */
function escapeXml(text: string): string {
  return escapeControls(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
