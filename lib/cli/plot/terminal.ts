/**
 * `svc plot` in the terminal: one small chart per entry of a Preview, in Unicode braille (lines: 2 × 4 dots a
 * character cell, one point of the grid per dot column) and block characters (strips: a row per logs severity, the
 * error ratio of traces), with the value range on the left, a row of marks and the time axis below.
 *
 * ```
 * cpu · gauge · value   ━ {host="web-1"}
 *     79.9 ⢀⡠⠔⠊⠉⠉⠑⠢⢄⡀        ⢀⡠⠔⠒⠊⠉
 *     20.1            ⠈⠑⠒⠤⣀⡠⠔
 *          ^^^^             ^^^^
 *          0         5m         10m
 *          ^ burst ×5
 * ```
 */
import type { Preview, PreviewEntry, PreviewMark, PreviewSeries } from '../../preview/index.js';
import { heightOf, legendLines, markLegend, rangeOf, timeTicks, titleOf } from './scale.js';
import { formatValue } from '../../format.js';
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';
import { ERROR_RATIO, legendOf } from '../../preview/points.js';
import { escapeControls } from '../terminal.js';

/** Character cells left of a chart: its value labels. */
export const GUTTER = 12;
/** Rows of braille a line chart is high (4 dots each). */
const LINE_ROWS = 5;
/** Fewest and most character cells of a whole chart line, the gutter included. */
export const MIN_WIDTH = 40;
export const MAX_WIDTH = 500;

/** ANSI colours of the lines, in series order; severities and the error ratio have their own. */
const PALETTE = [36, 33, 35, 32, 34, 31];
const SEVERITY_COLOURS: Record<string, number> = { trace: 90, debug: 34, info: 32, warn: 33, error: 31, fatal: 35 };
const ERROR_COLOUR = 31;
const MARK_COLOUR = 90;

/** The plot area's character cells for a chart line `width` cells wide: a point per dot column, two per cell. */
export function plotColumns(width: number): number {
  return width - GUTTER;
}

export interface TerminalOptions {
  /** Whether to colour the lines (ANSI escapes); never under NO_COLOR. */
  readonly colour: boolean;
}

/** Every entry's chart, one after the other, each followed by an empty line. */
export function drawPreview(preview: Preview, options: TerminalOptions): string {
  return preview.entries.map((entry) => `${drawEntry(preview, entry, options)}\n`).join('\n');
}

function drawEntry(preview: Preview, entry: PreviewEntry, { colour }: TerminalOptions): string {
  const paint = (code: number, text: string) => (colour && text.trim() ? `\u001b[${code}m${text}\u001b[0m` : text);
  const columns = Math.ceil(preview.points / 2);
  const lines = entry.series.filter((series) => !isStrip(entry, series));
  const strips = entry.series.filter((series) => isStrip(entry, series));
  const colourOf = (series: PreviewSeries, i: number) =>
    series.name === ERROR_RATIO ? ERROR_COLOUR : (SEVERITY_COLOURS[series.name] ?? PALETTE[i % PALETTE.length]!);
  const width = GUTTER + columns;
  const legend = legendOf(entry.series);
  const title = legend.shared === undefined ? [titleOf(entry)] : [titleOf(entry), legend.shared];
  const out = wrapped([...title, ...legend.names.map((name) => `━ ${name}`)], width, (item, i) =>
    i < title.length ? item : paint(colourOf(entry.series[i - title.length]!, i - title.length), item),
  );
  if (lines.length > 0) {
    const range = rangeOf(entry, lines);
    const cells = brailleChart(lines, columns, range);
    cells.forEach((row, r) => {
      const label = r === 0 ? formatValue(range.max) : r === cells.length - 1 ? formatValue(range.min) : '';
      out.push(
        gutter(label) +
          row.map(({ char, series }) => (series < 0 ? char : paint(colourOf(lines[series]!, series), char))).join(''),
      );
    });
  }
  for (const [i, series] of strips.entries()) {
    const top = series.name === ERROR_RATIO ? 1 : Math.max(0, ...series.values.map((v) => v ?? 0));
    // The error ratio's scale is always 0 to 1.
    const label = series.name === ERROR_RATIO ? series.name : `${series.name} ${formatValue(top)}`;
    out.push(gutter(label) + paint(colourOf(series, lines.length + i), blockStrip(series.values, columns, top)));
  }
  out.push(gutter('') + paint(MARK_COLOUR, marksRow(entry.marks, preview, columns)));
  out.push(gutter('') + timeAxis(preview, columns));
  const named = markLegends(entry.marks);
  out.push(...wrapped(named, width - GUTTER, (item) => paint(MARK_COLOUR, item)).map((line) => gutter('') + line));
  return out.map((line) => line.trimEnd()).join('\n');
}

/**
 * `items` `separator` apart (two spaces), their control characters escaped, on as many lines as it takes to stay within
 * `width` terminal cells (a wide character counts two); an item longer than that gets lines of its own, broken after its commas, and a part
 * still too long is cut. Each item is painted by `paint` once placed.
 */
function wrapped(
  items: readonly string[],
  width: number,
  paint: (item: string, i: number) => string,
  separator = '  ',
): string[] {
  return legendLines(items.map(escapeControls), width, stringWidth, separator.length).map((line) =>
    line.map(({ item, text }) => paint(cliTruncate(text, width), item)).join(separator),
  );
}

/** `text` on lines of at most `width` terminal cells, broken at its spaces (a word too long is cut). */
export function fitLines(text: string, width: number): string {
  return wrapped(text.split(' '), width, (word) => word, ' ').join('\n');
}

/** Logs draw a strip per severity; traces their error ratio: a share, on a scale of its own. */
function isStrip(entry: PreviewEntry, series: PreviewSeries): boolean {
  return entry.type === 'logs' || series.name === ERROR_RATIO;
}

function gutter(label: string): string {
  const text = cliTruncate(escapeControls(label), GUTTER - 1);
  return `${' '.repeat(GUTTER - 1 - stringWidth(text))}${text} `;
}

/** The dots of one braille cell: column 0 is dots 1, 2, 3, 7 top to bottom; column 1 is 4, 5, 6, 8. */
const DOT = [
  [0x01, 0x02, 0x04, 0x40],
  [0x08, 0x10, 0x20, 0x80],
];

/**
 * The line chart: point i of each series is a dot in dot column i, joined to the point before by a vertical run of
 * dots when both have values; a null leaves its column empty. A cell takes the colour of the first series with a
 * dot in it (`series` -1: none).
 */
function brailleChart(
  series: readonly PreviewSeries[],
  columns: number,
  range: { min: number; max: number },
): { char: string; series: number }[][] {
  const height = LINE_ROWS * 4;
  const bits = Array.from({ length: LINE_ROWS }, () => new Uint8Array(columns));
  const owner = Array.from({ length: LINE_ROWS }, () => new Int16Array(columns).fill(-1));
  const set = (x: number, y: number, s: number) => {
    const row = Math.floor(y / 4);
    const cell = Math.floor(x / 2);
    if (cell >= columns) return;
    bits[row]![cell]! |= DOT[x % 2]![y % 4]!;
    if (owner[row]![cell] === -1) owner[row]![cell] = s;
  };
  const dotY = (value: number) => Math.round((1 - heightOf(value, range)) * (height - 1));
  series.forEach(({ values }, s) => {
    let previous: number | undefined;
    for (const [x, value] of values.entries()) {
      if (value === null) {
        previous = undefined;
        continue;
      }
      const y = dotY(value);
      const from = previous ?? y;
      for (let dy = Math.min(from, y); dy <= Math.max(from, y); dy++) set(x, dy, s);
      previous = y;
    }
  });
  return bits.map((row, r) =>
    Array.from(row, (b, c) => ({ char: b === 0 ? ' ' : String.fromCharCode(0x2800 + b), series: owner[r]![c]! })),
  );
}

const BLOCKS = ' ▁▂▃▄▅▆▇█';

/** A strip: a block per cell, as high as the larger of its two points against `top`; empty where both are null or 0. */
function blockStrip(values: readonly (number | null)[], columns: number, top: number): string {
  let text = '';
  for (let c = 0; c < columns; c++) {
    const value = Math.max(values[2 * c] ?? 0, values[2 * c + 1] ?? 0);
    text += value <= 0 || top <= 0 ? ' ' : BLOCKS[Math.max(1, Math.round((value / top) * 8))];
  }
  return text;
}

/** The sign of each kind of mark in the marks row; a gap has none (its columns of the chart are empty). */
const MARK_SIGNS: Readonly<Record<PreviewMark['kind'], string>> = {
  burst: '^',
  spike: '*',
  incident: '!',
  while: '=',
  after: '>',
  start: '>',
  end: '|',
  gap: ' ',
};

/**
 * The marks under a chart: `^` under a burst, `*` under a cardinality spike, `!` under an incident, `=` while the
 * `while` gate is open, `>` where the entry started late (a phase offset, `after`), `|` where it ended. Gaps are the
 * empty columns of the chart itself.
 */
function marksRow(marks: readonly PreviewMark[], preview: Preview, columns: number): string {
  const row = new Array<string>(columns).fill(' ');
  const cellOf = (at: number) => Math.floor((at - preview.from) / preview.step / 2);
  const fill = (mark: PreviewMark, char: string) => {
    const last = Math.min(columns - 1, Math.ceil((mark.until! - preview.from) / preview.step / 2) - 1);
    for (let c = Math.max(0, cellOf(mark.at)); c <= last; c++) row[c] = char;
  };
  // Later kinds are drawn over earlier ones: a burst shows inside an open `while`.
  for (const kind of ['while', 'spike', 'incident', 'burst'] as const)
    for (const mark of marks) if (mark.kind === kind) fill(mark, MARK_SIGNS[kind]);
  for (const mark of marks) {
    const cell = cellOf(mark.at);
    if (cell < 0 || cell >= columns) continue;
    if (mark.kind === 'end' || ((mark.kind === 'start' || mark.kind === 'after') && mark.at > preview.from))
      row[cell] = MARK_SIGNS[mark.kind];
  }
  return row.join('');
}

/** The time since the file's start under the chart, at ticks at least 10 cells apart. */
function timeAxis(preview: Preview, columns: number): string {
  const span = preview.step * preview.points;
  let text = '';
  for (const { at, label } of timeTicks(span, columns, 10)) {
    // A label that would run past the chart ends at its edge instead (the last one, as a rule).
    const cell = Math.min(Math.round((at / span) * columns), columns - label.length);
    if (cell < text.length + (text ? 1 : 0)) continue;
    text = text.padEnd(cell) + label;
  }
  return text;
}

/** What the marks row's signs stand for, each mark once: `^ burst ×5`, `> after cpu > 75 + 1m`, `= while cpu > 70`. */
function markLegends(marks: readonly PreviewMark[]): string[] {
  const named = new Set<string>();
  for (const mark of marks) {
    if ((mark.kind === 'start' || mark.kind === 'after') && mark.label === undefined) continue;
    const text = markLegend(mark.kind, mark.label);
    if (text) named.add(`${MARK_SIGNS[mark.kind]} ${text}`);
  }
  return [...named];
}
