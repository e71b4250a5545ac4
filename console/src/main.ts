/** The svc console (docs/console.md): running scenarios, the catalog, and a scenario editor with preview. */
import { api, ApiError } from './api.js';
import { charts, drawnAxes, drawnMarks } from './charts.js';
import { showPreview } from './preview.js';
import { deleteAll, pollRunning } from './running.js';
import './style.css';
import type { EditorView } from '@codemirror/view';

/** A row of `GET /catalog`. */
interface CatalogItem {
  readonly name: string;
  readonly kind: string;
  readonly description: string | null;
}

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;

/**
 * For the browser specs and for debugging: the charts on the page (their `data` is what they draw), what their marks
 * and value axes drew, the editor.
 */
const hook: { charts: typeof charts; marks: typeof drawnMarks; axes: typeof drawnAxes; editor?: unknown } = {
  charts,
  marks: drawnMarks,
  axes: drawnAxes,
};
(globalThis as unknown as { svcConsole: typeof hook }).svcConsole = hook;

/** Shows the outcome of an action in `message`, beside the button that did it: an API error's detail, or what happened. */
function tell(message: HTMLElement, text: string, failed = false): void {
  message.textContent = text;
  message.classList.toggle('failed', failed);
}
/** Under the editor's buttons. */
const say = (text: string, failed = false) => tell($('#message'), text, failed);
const describeError = (error: unknown) =>
  error instanceof ApiError
    ? `${error.status} ${error.code}: ${error.detail}`
    : error instanceof Error
      ? error.message
      : String(error);

/**
 * Runs `action` for a click of `button`, and ignores the button's clicks until it is done: on a slow network nothing
 * showed for seconds and a second click started the scenario twice. The button stays focusable (`aria-disabled`, not
 * `disabled`, which would drop the focus of a keyboard user to the page).
 */
async function once(button: HTMLElement, action: () => Promise<unknown>): Promise<void> {
  if (button.getAttribute('aria-disabled') === 'true') return;
  button.setAttribute('aria-disabled', 'true');
  try {
    await action();
  } finally {
    button.removeAttribute('aria-disabled');
  }
}

/** `1 entry`, `2 entries`: `count` and the word for one thing or for more. */
const counted = (count: number, one: string, more: string) => `${count} ${count === 1 ? one : more}`;

/** Shows `text` in `element`, or hides it when there is none. */
function show(element: HTMLElement, text: string | undefined): void {
  element.textContent = text ?? '';
  element.hidden = text === undefined;
}

const banner = $('#banner');
const hidden = $('#running-hidden');
/** A failed Stop or Delete all, under the Running heading (under the editor, a narrow window's other end, unseen). */
const refused = $('#running-message');
pollRunning($('#running'), {
  poll: (text) => show(banner, text),
  stop: (text) => tell(refused, text, true),
  hidden: (text) => show(hidden, text),
});

$('#delete-all').onclick = () =>
  void deleteAll((count) =>
    confirm(`Stop and remove all ${count} scenarios of this server, other people's too?`),
  ).catch((error) => tell(refused, describeError(error), true));

/** Where a catalog Start says how it went: under the editor, a narrow window's other end, a refusal went unseen. */
const outcome = $('#catalog-message');

/** The catalog's runnable scenarios, each with a button that starts it (`POST /scenarios` of `@name`). */
async function listCatalog(): Promise<void> {
  const { items } = await api<{ items: CatalogItem[] }>('GET', '/catalog');
  const list = $('#catalog');
  const runnable = items.filter((item) => item.kind === 'runnable');
  list.replaceChildren(
    ...runnable.map((item) => {
      const row = document.createElement('li');
      const start = document.createElement('button');
      start.type = 'button';
      start.textContent = 'Start';
      start.onclick = () =>
        void once(start, () => {
          tell(outcome, `Starting @${item.name}…`);
          return api('POST', '/scenarios', `@${item.name}`)
            .then(() => tell(outcome, `Started @${item.name}.`))
            .catch((error) => tell(outcome, describeError(error), true));
        });
      const name = document.createElement('strong');
      name.textContent = item.name;
      row.append(start, name, ` ${item.description ?? ''}`);
      return row;
    }),
  );
  list.classList.toggle('empty', runnable.length === 0);
}
void listCatalog().catch((error) => say(describeError(error), true));

// Most of the console's code is the editor's: the running scenarios and the catalog show while it loads, and its
// buttons, which need it, wait for it (on a slow network, for seconds).
const loaded = await import('./editor.js').catch((error: unknown) => {
  tell(
    $('#editor .loading'),
    `Could not load the editor (${describeError(error)}): reload the page to try again.`,
    true,
  );
  return undefined;
});
if (loaded) {
  const editor = loaded.createEditor($('#editor'));
  hook.editor = editor;
  useEditor(editor);
  for (const button of ['#preview', '#start']) $<HTMLButtonElement>(button).disabled = false;
}

/** Gives Start and Preview the editor's text to post. */
function useEditor(editor: EditorView): void {
  const start = $('#start');
  start.onclick = () =>
    void once(start, async () => {
      say('Starting…');
      try {
        const started = await api<{ id?: string; scenarios?: unknown[]; warnings?: string[] }>(
          'POST',
          '/scenarios',
          editor.state.doc.toString(),
        );
        const warnings = started.warnings ? ` ${started.warnings.join(' ')}` : '';
        say(`Started ${counted(started.scenarios?.length ?? 1, 'entry', 'entries')}.${warnings}`);
      } catch (error) {
        say(describeError(error), true);
      }
    });

  /** The preview being computed: a newer one aborts it, so that an older answer, come later, is not drawn. */
  let previewing: AbortController | undefined;

  $('#preview').onclick = async () => {
    const input = $<HTMLInputElement>('#minutes');
    const minutes = input.valueAsNumber;
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 1440) {
      const got = input.value === '' ? 'nothing' : input.value;
      return say(`Preview: Next must be a whole number of minutes from 1 to 1440, got ${got}.`, true);
    }
    previewing?.abort();
    const asked = new AbortController();
    previewing = asked;
    const target = $('#preview-charts');
    target.setAttribute('aria-busy', 'true');
    const span = counted(minutes, 'minute', 'minutes');
    say(`Computing the preview of ${span}…`);
    try {
      const preview = await showPreview(editor.state.doc.toString(), minutes, target, asked.signal);
      say(`Preview of ${span}: ${counted(preview.entries.length, 'entry', 'entries')}.`);
    } catch (error) {
      if (!asked.signal.aborted) say(describeError(error), true);
    } finally {
      if (previewing === asked) {
        previewing = undefined;
        target.removeAttribute('aria-busy');
      }
    }
  };
}
