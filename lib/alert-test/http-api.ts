/**
 * GET requests with a JSON answer to a backend's HTTP API (Prometheus, Alertmanager) at the base
 * URL given on the command line. Credentials in that URL (`https://user:pass@host`) go into a
 * Basic `Authorization` header (fetch refuses them in the URL) and never into a message: every
 * message names the URL as {@link redactText} shows it, and masks them where an answer it quotes repeats them.
 */
import { basicAuthOf, fetchFailure } from '../fetch-url.js';
import { redactAnswer, redactText, sentSecrets } from '../redact.js';

/** A request that takes longer is abandoned: an API answering a query slower than this is not usable for polling. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Largest answer read: a poll's answer is a few hundred bytes, a range query's at most some 10 000 points. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export interface HttpApi {
  /** What the backend is called in messages: `Prometheus at http://***@host:9090`. */
  readonly name: string;
  /**
   * The parsed JSON answer of GET `path` (relative to the base URL) with these query parameters (a list value
   * repeats the parameter).
   */
  get(path: string, params: Record<string, string | readonly string[]>): Promise<unknown>;
}

/**
 * The API of `what` (`Prometheus`) at `url`, given by the command line's `flag` (`--prometheus`). Throws a message
 * naming the problem when `url` is not an http(s) URL; `fetchImpl` is for specs.
 */
export function httpApi(what: string, url: string, flag: string, fetchImpl: typeof fetch = fetch): HttpApi {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new Error(`expected an http(s) URL, got "${redactText(url)}"`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new Error(`expected an http(s) URL, got "${redactText(url)}"`);
  const headers: Record<string, string> = { accept: 'application/json' };
  // An answer may quote the credentials it got (a proxy echoing the request's Authorization, or the password).
  const secrets = sentSecrets({}, base);
  const redact = (answer: string) => redactAnswer(answer, secrets);
  base = basicAuthOf(base, headers);
  const name = `${what} at ${redactText(url)}`;
  // Paths are taken below the base URL's own path (a Prometheus behind `/prometheus/`); its query (a proxy's
  // `?api_key=`) goes with every request.
  const root = new URL(base);
  root.search = root.hash = '';
  if (!root.pathname.endsWith('/')) root.pathname += '/';

  return {
    name,
    async get(path, params) {
      const target = new URL(path.replace(/^\//, ''), root);
      target.search = base.search;
      for (const [key, value] of Object.entries(params))
        for (const one of typeof value === 'string' ? [value] : value) target.searchParams.append(key, one);
      const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
      let res: Response;
      try {
        res = await fetchImpl(target, { headers, signal, redirect: 'error' });
      } catch (error) {
        throw new Error(`cannot reach ${name}: ${fetchFailure(error, target, REQUEST_TIMEOUT_MS)}`);
      }
      const text = await readCapped(res, name).catch((error: Error) => {
        throw signal.aborted ? new Error(`${name}: no complete answer within ${REQUEST_TIMEOUT_MS / 1000}s`) : error;
      });
      // A path not found, with JSON or not: another server's API (an Alertmanager given as Prometheus) or a base URL
      // without its path prefix.
      const hint = res.status === 404 ? `: is ${flag} the base URL of ${what}'s HTTP API?` : '';
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        const said = redact(text.slice(0, 200).trim());
        throw new Error(
          `${name} answered ${res.status} ${res.statusText} with no JSON to GET ${path}${said ? `: ${said}` : ''}${hint}`,
        );
      }
      if (!res.ok) {
        const said = (body as { error?: unknown }).error;
        throw new Error(
          `${name} answered ${res.status} ${res.statusText} to GET ${path}${typeof said === 'string' ? `: ${redact(said)}` : ''}${hint}`,
        );
      }
      return body;
    },
  };
}

/** The answer's text, refused past {@link MAX_ANSWER_BYTES}. */
async function readCapped(res: Response, name: string): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) throw new Error(`${name} answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
