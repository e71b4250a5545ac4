import { Writable } from 'node:stream';
import * as xterm from '@xterm/headless';
import { settle } from './clock.js';

/** A writable that says it is a terminal, as process.stdout and process.stderr do on a TTY. */
export type TtyStream = Writable & { readonly isTTY: true; readonly columns: number; readonly rows: number };

/** A physical row on screen, and whether it is the continuation of a wrapped line. */
export interface Row {
  readonly text: string;
  readonly wrapped: boolean;
}

export interface FakeTerminal {
  /** Write here what the program would write to the terminal. */
  readonly stream: TtyStream;
  /** Everything written, escape sequences included. */
  raw(): string;
  /** The rows on screen (scrollback included) once what was written before the call is drawn, each as one logical line: a row the terminal wrapped is joined to the one before. */
  screen(): Promise<string[]>;
  /** The physical rows on screen (scrollback included) once what was written before the call is drawn. */
  rows(): Promise<Row[]>;
  /**
   * Keeps from now on the physical rows on screen at the end of each turn of the event loop that wrote to the
   * terminal: a program redraws within one turn, so each is a whole redraw, however slowly the terminal draws. The
   * function returned resolves with them, once what was written before its call is drawn.
   */
  recordFrames(): () => Promise<Row[][]>;
}

/**
 * A fake terminal `columns` wide: what is written is drawn by a headless xterm, so specs can read what a
 * person would see after cursor movements and line erasures. `\n` moves to the start of the next row
 * (the tty driver's onlcr).
 */
export function fakeTerminal(columns = 80, rows = 40): FakeTerminal {
  const term = new xterm.Terminal({
    cols: columns,
    rows,
    scrollback: 10_000,
    convertEol: true,
    allowProposedApi: true,
  });
  const physical = () => {
    const buffer = term.buffer.active;
    const lines: Row[] = [];
    for (let i = 0; i < buffer.length; i++) {
      const line = buffer.getLine(i)!;
      lines.push({ text: line.translateToString(true), wrapped: line.isWrapped });
    }
    while (lines.length && lines.at(-1)!.text === '') lines.pop();
    return lines;
  };
  // The terminal parses what is written in order, later, and goes on in the same turn with what was written after
  // (it yields every 12 ms): the rows are read in the callback of an empty write queued now, when all before it and
  // nothing after it is drawn. Read when a promise resolved, they could show half of a later redraw.
  const drawn = () => new Promise<Row[]>((resolve) => term.write('', () => resolve(physical())));
  let frames: Row[][] | undefined;
  let frameDue = false;
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      decodeStrings: false,
      write(chunk: string | Buffer, _encoding, done) {
        const text = chunk.toString();
        chunks.push(text);
        term.write(text);
        if (frames && !frameDue) {
          frameDue = true;
          setImmediate(() => {
            frameDue = false;
            void drawn().then((frame) => frames!.push(frame));
          });
        }
        done();
      },
    }),
    { isTTY: true as const, columns, rows },
  );
  return {
    stream,
    raw: () => chunks.join(''),
    rows: drawn,
    async screen() {
      const logical: string[] = [];
      for (const { text, wrapped } of await drawn()) {
        if (wrapped && logical.length) logical[logical.length - 1] += text;
        else logical.push(text);
      }
      return logical;
    },
    recordFrames() {
      const kept: Row[][] = [];
      frames = kept;
      return async () => {
        // A frame due at the end of this turn is taken first.
        await settle();
        await drawn();
        return kept;
      };
    },
  };
}
