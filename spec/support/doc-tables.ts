import { readFileSync } from 'node:fs';
import { PACKAGE_ROOT } from './package-root.js';

/** Where to look in a page of docs/ and which rows to keep. */
export interface DocTableQuery {
  /** The heading of the section whose tables are read, as written (`## Sinks`); the whole page without it. */
  heading?: string;
  /** Keeps the rows it accepts (all by default), given the cells of their table's header: a section may hold tables
   * the check is not about. */
  keep?: (cells: string[], header: string[]) => boolean;
}

/**
 * The body rows of the Markdown tables of a page of docs/ (`scenario-fields.md`), each cut into trimmed cells.
 * A cell may hold a pipe written `\|`. A row whose cell count is not its header's throws, naming the row: a check
 * comparing a column must not read a shifted cell of a malformed row as its own.
 */
export function docTable(page: string, { heading, keep = () => true }: DocTableQuery = {}): string[][] {
  // A line feed before the page: its title is a heading too.
  const text = `\n${readFileSync(`${PACKAGE_ROOT}/docs/${page}`, 'utf8')}`;
  const section = heading === undefined ? text : text.split(`\n${heading}\n`)[1]?.split('\n#')[0];
  if (section === undefined) throw new Error(`docs/${page} has no heading "${heading}"`);
  const rows: string[][] = [];
  let header: string[] = [];
  let previous: string[] | undefined;
  for (const line of section.split('\n')) {
    if (!line.startsWith('|')) {
      previous = undefined;
      header = [];
      continue;
    }
    const cells = cellsOf(line);
    if (header.length === 0) {
      // The line after a table's header is its separator row, `|---|---|`.
      if (previous && cells.every((cell) => /^:?-+:?$/.test(cell))) header = previous;
      previous = cells;
      continue;
    }
    if (cells.length !== header.length) {
      throw new Error(`docs/${page}: a row of ${cells.length} cells in a table of ${header.length}: ${line}`);
    }
    if (keep(cells, header)) rows.push(cells);
  }
  return rows;
}

/** The cells of a table row: cut at each `|` not written `\|`, which stays a pipe in its cell. */
const cellsOf = (line: string): string[] =>
  line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((cell) => cell.trim().replaceAll('\\|', '|'));

/** The text of the first code span of a cell (`` `csv_replay` with `file` `` → `csv_replay`), or '' without one. */
export const codeSpan = (cell: string): string => cell.match(/`([^`]*)`/)?.[1] ?? '';

/** The texts of every code span of a cell. */
export const codeSpans = (cell: string): string[] => [...cell.matchAll(/`([^`]*)`/g)].map(([, text]) => text!);
