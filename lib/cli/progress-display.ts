import cliProgress from 'cli-progress';
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';
import { escapeControls } from './terminal.js';

/**
 * Where the progress of a run goes while its entries run (its final lines are printed after
 * {@link ProgressDisplay.stop}).
 */
export interface ProgressDisplay {
  /** How often {@link show} is due. */
  readonly periodMs: number;
  /** Shows each warning once, then one row per entry (in entry order). */
  show(warnings: readonly string[], rows: readonly string[]): void;
  /** Ends the display: what follows on the stream starts on a line of its own. */
  stop(): void;
}

/** Redrawn rows are due every second; printed lines every 5 s (design.md §3). */
const REDRAW_MS = 1000;
const LINES_MS = 5000;

/**
 * `row` on one line of at most `columns` cells: its control characters escaped (`\n`: a sink's error message may
 * hold them) and cut by the cells its characters take (a CJK character takes two), since a row that moves to another
 * line or wraps leaves a copy behind at every redraw. A row too wide has its entry's id (what follows
 * `[progress] `) shortened in the middle first, so that the figures after it stay in sight.
 */
function oneRow(row: string, id: string, columns: number): string {
  const line = escapeControls(row);
  const shown = escapeControls(id);
  const over = stringWidth(line) - columns;
  if (over <= 0) return line;
  if (!line.startsWith(`${PROGRESS}${shown}`)) return cliTruncate(line, columns);
  const shortId = cliTruncate(shown, Math.max(MIN_ID_CELLS, stringWidth(shown) - over), { position: 'middle' });
  return cliTruncate(`${PROGRESS}${shortId}${line.slice(PROGRESS.length + shown.length)}`, columns);
}

const PROGRESS = '[progress] ';
/** The least of an id a shortened row keeps: enough to tell entries apart, though the figures may then be cut. */
const MIN_ID_CELLS = 8;

/**
 * One row per entry of `ids` (rows in their order, each starting `[progress] <id>`), redrawn in place by cli-progress
 * below the warnings, each cut to the terminal's width (a wrapped row would break the redraw). Only for a terminal that nothing else
 * writes to meanwhile: on a terminal shared with event data, use {@link printedLines}.
 */
export function redrawnRows(stream: NodeJS.WritableStream, ids: readonly string[]): ProgressDisplay {
  const bars = new cliProgress.MultiBar({
    stream,
    // One column spare: a row that fills the last column leaves the cursor waiting to wrap.
    format: (_options, { maxWidth }, { row, id }: { row: string; id: string }) =>
      oneRow(row, id, Math.max(1, maxWidth - 1)),
    // Rows are cut above: leave the terminal's own wrapping on (warnings above the rows wrap as usual).
    linewrap: true,
    // Rows change when show() is called; cli-progress' own timer only repeats the drawing.
    fps: 1,
    clearOnComplete: true,
  });
  const rows = ids.map((id) => bars.create(0, 0, { row: '', id }));
  return {
    periodMs: REDRAW_MS,
    show(warnings, lines) {
      for (const warning of warnings) bars.log(`${warning}\n`);
      for (const [i, bar] of rows.entries()) bar.update({ row: lines[i] ?? '' });
      bars.update();
    },
    stop: () => bars.stop(),
  };
}

/**
 * Warnings and rows as plain lines, every 5 s: for a pipe, a file, or a terminal that event data shares. A row the
 * same as the one last printed for its entry (an ended entry's STOPPED line) is not printed again: a log of a long run
 * would repeat it every 5 s until the last entry ends.
 */
export function printedLines(stream: NodeJS.WritableStream): ProgressDisplay {
  const printed: string[] = [];
  return {
    periodMs: LINES_MS,
    show(warnings, rows) {
      for (const line of warnings) stream.write(`${line}\n`);
      for (const [i, row] of rows.entries()) {
        if (row === printed[i]) continue;
        printed[i] = row;
        stream.write(`${row}\n`);
      }
    },
    stop() {},
  };
}

/** `--quiet`: warnings only. */
export function warningsOnly(stream: NodeJS.WritableStream): ProgressDisplay {
  const lines = printedLines(stream);
  return { ...lines, show: (warnings) => lines.show(warnings, []) };
}
