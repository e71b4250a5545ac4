import {
  Agent as HttpAgent,
  type IncomingHttpHeaders,
  request as httpRequest,
  STATUS_CODES,
  validateHeaderName,
  validateHeaderValue,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { firstLine, MAX_RETRY_AFTER_SECONDS, networkError, NO_ANSWER, SinkError } from '../core/errors.js';
import { redactAnswer, sentSecrets } from '../../redact.js';
import { VERSION } from '../../version.js';

export interface HttpEndpointOptions {
  /** Sink name for messages. */
  readonly sink: string;
  readonly url: URL;
  /** Request headers, `Content-Type` included. */
  readonly headers: Readonly<Record<string, string>>;
  /** No answer within this many ms is a (retryable) failure. */
  readonly timeout: number;
  /**
   * What to tell the user when the destination refuses a request with `status` for good (one not
   * `retryable`); `body` is the head of its answer.
   */
  readonly hint?: (status: number, body: string) => string | undefined;
  /** Which refusals are worth trying again (`body` is the head of the answer); default {@link retryableStatus}. */
  readonly retryable?: (status: number, body: string) => boolean;
  /** The text of a refusal's body (the head of it), by its `Content-Type`; default the body as UTF-8. */
  readonly refusalText?: (body: Buffer, contentType: string | undefined) => string;
  /**
   * How much of a 2xx answer's body to keep, by its `Content-Type` (a format that cannot be read from its head
   * needs more); default {@link MAX_ANSWER_BYTES}.
   */
  readonly answerBytes?: (contentType: string | undefined) => number;
}

/** A 2xx answer: its headers, and its body (its head, as much as `answerBytes` keeps). */
export interface HttpAnswer {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One destination URL that takes POST requests over a kept-alive connection. */
export interface HttpEndpoint {
  /** The URL as messages show it: no credentials, no query. */
  readonly address: string;
  /**
   * Resolves on a 2xx answer, with its headers and body (protocols that answer with a message,
   * such as OTLP's partial success, or with headers, such as remote write 2.0's written counts);
   * rejects with a {@link SinkError} saying what went wrong. `headers` are sent instead of the
   * endpoint's own where they have the same name.
   */
  post(body: string | Uint8Array, headers?: Readonly<Record<string, string>>): Promise<HttpAnswer>;
  /** What the destination answered, fit for a message: the credentials sent to it masked, should it repeat them. */
  redact(answer: string): string;
  /** Cuts the requests in flight; later posts open a new connection. */
  abort(): void;
  /** Closes the kept-alive connections. */
  release(): void;
}

/**
 * Sent with every request unless `headers` name another: remote write (1.0 and 2.0) requires the sender's name and
 * version, and receivers' logs and limits tell clients apart by it.
 */
export const USER_AGENT = `svc/${VERSION}`;

/** How much of an error answer's body goes into the message. */
const EXCERPT_CHARS = 200;
/** How much of a 2xx answer's body is kept for the caller unless it says otherwise; the rest is drained. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** The refusals worth trying again unless a protocol knows better: 408, 429 and 5xx. */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * POSTs to one URL with Node's own http/https client: no dependency, error codes such as
 * ECONNREFUSED available as they are for precise messages, a per-request timeout, and an agent
 * whose sockets `release` destroys so the process can exit at once.
 *
 * Outcomes: 2xx resolves; 408, 429 and 5xx (or what `retryable` says) reject with a retryable {@link SinkError}; other
 * statuses reject with a final one; both carry the status, an excerpt of the body and the hint (a retryable one's
 * shows when the retries give up);
 * network errors and timeouts are retryable. Messages show the URL without credentials.
 */
export function httpEndpoint({
  sink,
  url,
  headers,
  timeout,
  hint,
  retryable: worthRetrying = retryableStatus,
  refusalText = (body) => body.toString('utf8'),
  answerBytes = () => MAX_ANSWER_BYTES,
}: HttpEndpointOptions): HttpEndpoint {
  const secure = url.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const request = secure ? httpsRequest : httpRequest;
  const shown = `${url.origin}${url.pathname}`;
  const networkFailure = (error: unknown, how?: { code: string; timeout: number }): SinkError =>
    networkError(sink, url.host, url.hostname, error, how);
  const unsendable = headerProblem(headers);
  const secrets = sentSecrets(headers, url);
  const redact = (answer: string) => redactAnswer(answer, secrets);

  const refused = (response: IncomingMessage, answer: string): SinkError => {
    const body = redact(answer);
    const status = response.statusCode ?? 0;
    const retryable = worthRetrying(status, body);
    const target = redirectTarget(response, url);
    // A redirect's body only repeats where it points, which the message says.
    const said = target ? ` to ${redact(target)}` : excerpt(body);
    const advice = target ? NOT_FOLLOWED : hint?.(status, body);
    const message = `${`POST ${shown} answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd()}${said}${advice ? `; ${advice}` : ''}`;
    return new SinkError(sink, message, {
      retryable,
      retryAfter: retryable ? retryAfterOf(response.headers['retry-after']) : undefined,
      status,
    });
  };

  return {
    address: shown,
    redact,
    post(body, extra) {
      // Node would throw for such a header: a refusal of every request, not worth retrying.
      if (unsendable)
        return Promise.reject(new SinkError(sink, `cannot send to ${shown}: ${unsendable}; check headers`));
      const payload = typeof body === 'string' ? Buffer.from(body) : body;
      return new Promise<HttpAnswer>((resolve, reject) => {
        const req = request(url, {
          method: 'POST',
          agent,
          headers: { 'User-Agent': USER_AGENT, ...headers, ...extra, 'Content-Length': String(payload.byteLength) },
          // As an option, not req.setTimeout(): that one starts once connected, so a host that drops the SYNs (a
          // firewall, a host gone) kept the request for the kernel's connect retries, not `timeout`.
          timeout,
        });
        req.on('timeout', () => {
          // A connected peer that keeps silent is no firewall or wrong host: say that it took the connection.
          const code = req.socket?.connecting === false ? NO_ANSWER : 'ETIMEDOUT';
          req.destroy(networkFailure(new Error(`no answer within ${timeout} ms`), { code, timeout }));
        });
        req.on('error', (error) => reject(error instanceof SinkError ? error : networkFailure(error)));
        req.on('response', (response) => {
          const ok = response.statusCode !== undefined && response.statusCode >= 200 && response.statusCode < 300;
          const parts: Buffer[] = [];
          let kept = 0;
          // Keep only the head of the body; drain the rest so the connection can be reused.
          const keep = ok ? answerBytes(response.headers['content-type']) : EXCERPT_CHARS * 4;
          response.on('data', (part: Buffer) => {
            if (kept >= keep) return;
            parts.push(part);
            kept += part.length;
          });
          response.on('end', () => {
            const answer = Buffer.concat(parts).subarray(0, keep);
            if (ok) resolve({ headers: response.headers, body: answer });
            else reject(refused(response, refusalText(answer, response.headers['content-type'])));
          });
          response.on('error', (error) => reject(networkFailure(error)));
        });
        req.end(payload);
      });
    },
    abort() {
      agent.destroy();
    },
    release() {
      agent.destroy();
    },
  };
}

/** Why Node would refuse to send `headers`, naming the header but never its value (it may be a secret). */
function headerProblem(headers: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    try {
      validateHeaderName(name);
    } catch {
      return `the header name "${name}" is not a valid HTTP token`;
    }
    try {
      validateHeaderValue(name, value);
    } catch {
      return `the value of header "${name}" has characters HTTP headers cannot carry`;
    }
  }
  return undefined;
}

/** Following a redirect would take the data, and the credentials sent, where the user never said. */
const NOT_FOLLOWED =
  'svc does not follow redirects (they would take the data, and the credentials of the sink, to another address): set url to the address the data should go to';

/** Where a 3xx answer points (its `Location`, resolved against the request's URL); undefined for other answers. */
function redirectTarget(response: IncomingMessage, url: URL): string | undefined {
  const status = response.statusCode ?? 0;
  const location = response.headers.location;
  if (status < 300 || status >= 400 || !location) return undefined;
  return URL.canParse(location, url.href) ? new URL(location, url).href : location;
}

/** `: "<first line of the body>"`, or nothing for an empty body. */
function excerpt(body: string): string {
  const text = firstLine(body, EXCERPT_CHARS);
  return text ? `: "${text}"` : '';
}

const DAY_NAME = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** RFC 9110's HTTP-date (§5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient reads too. */
const HTTP_DATE = new RegExp(
  `^(?:${DAY_NAME}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT` +
    `|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT` +
    `|${DAY_NAME} ${MONTH} [ \\d]\\d ${TIME} \\d{4})$`,
);

/**
 * A `Retry-After` header in ms, as RFC 9110 writes it (§10.2.3): delay-seconds, digits only, or an HTTP-date (the
 * time until then; none for one past); undefined when absent or anything else (`1e3`, `0x10`, `1.5`, `-1`,
 * `Infinity`), which is ignored as the RFC says, the backoff applying: Number() and Date.parse() read all of those,
 * and any text with a number in it as a date (`soon 5` is 2001-05-01). At most {@link MAX_RETRY_AFTER_SECONDS}.
 */
export function retryAfterOf(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  // Node's parser strips the whitespace around a field's value (RFC 9110's OWS).
  if (/^\d+$/.test(header)) return Math.min(Number(header), MAX_RETRY_AFTER_SECONDS) * 1000;
  if (!HTTP_DATE.test(header)) return undefined;
  // asctime names no zone, and is GMT; Date.parse would read it in the local one.
  const at = Date.parse(header.endsWith('GMT') ? header : `${header} GMT`);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_SECONDS * 1000);
}
