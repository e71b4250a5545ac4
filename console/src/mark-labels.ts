/** Where the labels of a chart's marks go (no DOM here: the browser specs read the same types). */

/** A box on a chart's canvas, in CSS pixels. */
export interface Box {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** A mark's label as drawn: its text, its box and the index of its mark. */
export type LabelBox = Box & { readonly text: string; readonly mark: number };

/** What the marks of a chart drew last: the plot's box, each label drawn, and how many were left out. */
export interface DrawnMarks {
  readonly plot: Box;
  readonly labels: readonly LabelBox[];
  readonly hidden: number;
}

/** Label text size, the height of a row of labels and the space kept between two labels of a row (CSS pixels). */
export const LABEL_FONT = 11;
const LABEL_ROW = 13;
const LABEL_SPACE = 4;

/**
 * The boxes of labels `texts` of `widths` in `plot`, each wanted just right of its line at `xs` (just left of it
 * where it would leave the plot), in the first row from the top where it clears the labels already there, in the
 * order of their marks. A label no row that fits the plot's height has room for is left out: stacked on the others
 * (hundreds of gaps and bursts in a day's preview) no label could be read.
 */
export function labelBoxes(
  texts: readonly string[],
  xs: readonly number[],
  widths: readonly number[],
  plot: Box,
): LabelBox[] {
  const right = plot.left + plot.width;
  const rows = Math.max(1, Math.floor(plot.height / LABEL_ROW));
  const wanted = xs.map((x, i) => {
    const left = x + 3 + widths[i]! <= right ? x + 3 : x - 3 - widths[i]!;
    return Math.min(Math.max(left, plot.left), right - widths[i]!);
  });
  // Left to right: a row is free from where its last label ends.
  const order = wanted.map((_, i) => i).sort((a, b) => wanted[a]! - wanted[b]!);
  const ends: number[] = [];
  const boxes: (LabelBox | undefined)[] = new Array(texts.length);
  for (const i of order) {
    const left = wanted[i]!;
    let row = ends.findIndex((end) => end + LABEL_SPACE <= left);
    if (row < 0) row = ends.length;
    if (row >= rows) continue;
    ends[row] = left + widths[i]!;
    const top = plot.top + 1 + row * LABEL_ROW;
    boxes[i] = { text: texts[i]!, mark: i, left, top, width: widths[i]!, height: LABEL_ROW - 1 };
  }
  return boxes.filter((box) => box !== undefined);
}
