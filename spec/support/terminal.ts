import { Writable } from 'node:stream';
import * as xterm from '@xterm/headless';

/** A writable that says it is a terminal, as process.stdout and process.stderr do on a TTY. */
export type TtyStream = Writable & { readonly isTTY: true; readonly columns: number; readonly rows: number };

export interface FakeTerminal {
  /** Write here what the program would write to the terminal. */
  readonly stream: TtyStream;
  /** Everything written, escape sequences included. */
  raw(): string;
  /** The rows on screen (scrollback included), each as one logical line: a row the terminal wrapped is joined to the one before. */
  screen(): Promise<string[]>;
  /** The physical rows on screen (scrollback included), and whether each is the continuation of a wrapped line. */
  rows(): Promise<{ text: string; wrapped: boolean }[]>;
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
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      decodeStrings: false,
      write(chunk: string | Buffer, _encoding, done) {
        const text = chunk.toString();
        chunks.push(text);
        // The terminal parses in order, later: screen() waits for it.
        term.write(text);
        done();
      },
    }),
    { isTTY: true as const, columns, rows },
  );
  // Every write so far has been drawn once the terminal parsed an empty write queued after them.
  const drawn = () => new Promise<void>((resolve) => term.write('', resolve));
  const physical = () => {
    const buffer = term.buffer.active;
    const lines: { text: string; wrapped: boolean }[] = [];
    for (let i = 0; i < buffer.length; i++) {
      const line = buffer.getLine(i)!;
      lines.push({ text: line.translateToString(true), wrapped: line.isWrapped });
    }
    while (lines.length && lines.at(-1)!.text === '') lines.pop();
    return lines;
  };
  return {
    stream,
    raw: () => chunks.join(''),
    async rows() {
      await drawn();
      return physical();
    },
    async screen() {
      await drawn();
      const logical: string[] = [];
      for (const { text, wrapped } of physical()) {
        if (wrapped && logical.length) logical[logical.length - 1] += text;
        else logical.push(text);
      }
      return logical;
    },
  };
}
