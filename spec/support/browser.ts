import { accessSync, constants } from 'node:fs';
import type { Browser, Page } from 'puppeteer-core';
import { startServerProcess, type ServerProcess } from './server-process.js';
import type { DrawnMarks } from '../../console/src/mark-labels.js';

/** Where Debian's `chromium` package puts the browser (.ci/run installs it), or `CHROMIUM_PATH`. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The Chromium binary the browser specs drive; undefined when this machine has none. */
export function chromiumPath(): string | undefined {
  return [process.env.CHROMIUM_PATH, ...CANDIDATES].find((path) => {
    if (!path) return false;
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * A headless Chromium for one spec file, or a skip of the whole `describe` (with the reason on stderr) when there
 * is no binary: CI installs it, so there the specs run. Call in `before`.
 */
export async function launchOrSkip(context: Mocha.Context): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) {
    console.warn('    browser specs skipped: no chromium binary (apt-get install chromium, or set CHROMIUM_PATH)');
    context.skip();
  }
  const { launch } = await import('puppeteer-core');
  // --no-sandbox: CI and this machine run as root, where Chromium's sandbox cannot start.
  return launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}

/**
 * A Chromium and a `bin/svc-server` process started with `args`, for the specs of one `describe` (call it there):
 * started before them, closed after. `server` may be replaced (a spec that restarts the server).
 */
export function consoleFixture(args: readonly string[] = []): { browser: Browser; server: ServerProcess } {
  const fixture = {} as { browser: Browser; server: ServerProcess };
  before(async function () {
    fixture.browser = await launchOrSkip(this);
    fixture.server = await startServerProcess({ args: [...args], quiet: true });
  });
  after(async () => {
    await fixture.browser?.close();
    fixture.server?.kill();
  });
  return fixture;
}

/**
 * Page errors and console errors (CSP violations among them) the page reported. Chromium logs every API answer of
 * an error status as a failed resource: those of `expected` statuses (the 401 the login dialog answers, a refusal
 * a spec provokes) are left out.
 */
export function problemsOf(page: Page, expected: readonly number[] = [401]): string[] {
  const problems: string[] = [];
  const failed = /^Failed to load resource: the server responded with a status of (\d+)/;
  page.on('pageerror', (error) => problems.push(`page error: ${(error as Error).message}`));
  page.on('console', (message) => {
    const status = failed.exec(message.text())?.[1];
    if (message.type() === 'error' && !expected.includes(Number(status)))
      problems.push(`${message.text()} (${message.location().url ?? 'no address'})`);
  });
  return problems;
}

/**
 * `problems` but Chromium's logs of the 404 a poll of a scenario's stats or series gets when the scenario was
 * removed (by the page, or by a spec's clean-up through the API) while the poll was out: the console takes the
 * scenario as gone, but Chromium logs the answer all the same (more often the slower the machine).
 */
export function withoutGonePolls(problems: readonly string[]): string[] {
  const gone = /status of 404 .*\(http:[^ ]*\/scenarios\/[^/ ]+\/(stats|series)[?)]/;
  return problems.filter((problem) => !gone.test(problem));
}

/**
 * The browser globals the specs' page functions read, typed here since the Node build has no DOM types (a page
 * function is sent to the browser as text: `globalThis as unknown as PageGlobals` there is the window).
 */
export interface PageGlobals {
  readonly document: {
    querySelector(selector: string): { readonly textContent: string | null } | null;
    querySelectorAll(selector: string): { readonly length: number };
    readonly documentElement: { readonly scrollWidth: number; readonly clientWidth: number };
  };
  readonly sessionStorage: {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
    removeItem(key: string): void;
  };
  /**
   * The console's hook (console/src/main.ts): each chart by key, its `data` what it draws (and `scales` their ranges); what each chart's marks
   * drew (its plot's box and each label's text and box, in CSS pixels); what each chart's axes drew, by
   * scale (their labels, the widest one's width and the width they had; the time axis' also each line of each
   * label, with its left and right edges).
   */
  readonly svcConsole: {
    readonly charts: Map<
      string,
      {
        readonly data: (number | null)[][];
        readonly scales: Readonly<Record<string, { readonly min?: number | null; readonly max?: number | null }>>;
      }
    >;
    readonly marks: Map<string, DrawnMarks>;
    readonly axes: Map<
      string,
      Map<
        string,
        {
          readonly exponent?: number;
          readonly labels: readonly string[];
          readonly widest: number;
          readonly room: number;
          readonly lines?: readonly { text: string; line: number; left: number; right: number }[];
        }
      >
    >;
  };
}

/** The console's editor, as a page function sees it (a CodeMirror EditorView). */
interface EditorGlobals {
  readonly svcConsole: {
    readonly editor: {
      readonly state: { readonly doc: { readonly length: number; toString(): string } };
      focus(): void;
      dispatch(spec: { changes: { from: number; to: number; insert: string }; selection?: { anchor: number } }): void;
    };
  };
}

/** Waits until the console's editor has loaded (its script comes after the running view's). */
export async function waitForEditor(page: Page): Promise<void> {
  await page.waitForFunction(() => Boolean((globalThis as unknown as Partial<EditorGlobals>).svcConsole?.editor));
}

/** Replaces the text of the console's editor with `text`, the cursor at its end. */
export async function setEditorText(page: Page, text: string): Promise<void> {
  await page.evaluate((t) => {
    const { editor } = (globalThis as unknown as EditorGlobals).svcConsole;
    editor.focus();
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: t }, selection: { anchor: t.length } });
  }, text);
}

/** Waits until the console's editor holds exactly `text`. */
export async function waitForEditorText(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (t) => (globalThis as unknown as EditorGlobals).svcConsole.editor.state.doc.toString() === t,
    {},
    text,
  );
}

/** Waits until the text of the element `selector` (puppeteer's selectors: `>>>` enters shadow roots) matches `pattern`. */
export async function waitForText(page: Page, selector: string, pattern: RegExp): Promise<void> {
  const element = await page.waitForSelector(selector);
  await page.waitForFunction((e, source) => new RegExp(source).test(e.textContent ?? ''), {}, element, pattern.source);
}
