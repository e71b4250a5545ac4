/**
 * Calls to the svc HTTP API from the console. With an API key on the server the first 401 opens the login
 * dialog; the key typed there is kept for this tab (sessionStorage) and sent as `Authorization: Bearer <key>`.
 */

const KEY_ITEM = 'svc-api-key';

/** An answer of the API that is not a success: its status and the `{error, detail}` envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** One login dialog for every call that got a 401 at the same time. */
let asking: Promise<void> | undefined;

/**
 * `fetch` of an API path: JSON back, or {@link ApiError}; a 401 asks for the key and tries again. `signal` aborts
 * the call (the promise rejects with its reason).
 */
export async function api<T>(
  method: string,
  path: string,
  body?: string,
  { type = 'application/yaml', signal }: { readonly type?: string; readonly signal?: AbortSignal } = {},
): Promise<T> {
  for (;;) {
    const key = sessionStorage.getItem(KEY_ITEM);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (key) headers.Authorization = `Bearer ${key}`;
    if (body !== undefined) headers['Content-Type'] = type;
    const res = await send(path, { method, headers, body, signal });
    if (res.status === 401) {
      // A refusal of a key replaced while the call was out (calls come back in any order) asks nothing: go again.
      if (sessionStorage.getItem(KEY_ITEM) !== key) continue;
      asking ??= askKey(key !== null).finally(() => (asking = undefined));
      await asking;
      continue;
    }
    if (res.status === 204) return undefined as T;
    const answer = await res.json().catch(() => ({}));
    if (!res.ok) throw new ApiError(res.status, answer.error ?? 'http_error', answer.detail ?? res.statusText);
    return answer as T;
  }
}

/**
 * `fetch`, whose network failure (the server down or restarting, the network gone) says so: the browser's own
 * error, a TypeError "Failed to fetch", told a person nothing. An abort stays an abort. The request is built first:
 * a header it cannot carry is a mistake of the call, not the server's absence.
 */
async function send(path: string, init: RequestInit): Promise<Response> {
  const request = new Request(path, init);
  try {
    return await fetch(request);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new Error('svc-server did not answer (is it running?)');
  }
}

const UNSENDABLE_KEY =
  'A browser cannot send this key: it holds a character beyond ISO-8859-1 (such as € or an emoji), which an Authorization header cannot carry. Check the key.';

/** Shows the login dialog until a key is given; `wrong`: a key was sent and refused. */
function askKey(wrong: boolean): Promise<void> {
  const dialog = document.querySelector<HTMLDialogElement>('#login')!;
  const form = dialog.querySelector('form')!;
  const input = dialog.querySelector<HTMLInputElement>('input[name=key]')!;
  dialog.querySelector('.login-error')!.textContent = wrong ? 'The server refused this key.' : '';
  input.value = '';
  dialog.showModal();
  return new Promise((resolve) => {
    form.onsubmit = (event) => {
      event.preventDefault();
      if (!input.value) return;
      // fetch refuses such a header value outright: the key would fail every call without reaching the server.
      if (/[^\u0000-\u00ff]/.test(input.value)) {
        dialog.querySelector('.login-error')!.textContent = UNSENDABLE_KEY;
        return;
      }
      sessionStorage.setItem(KEY_ITEM, input.value);
      dialog.close();
      resolve();
    };
    // Escape would close the dialog and leave the console without a key: keep it open.
    dialog.oncancel = (event) => event.preventDefault();
  });
}
