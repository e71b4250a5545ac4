/**
 * What svc's reads of a URL through Node's `fetch` share (`svc new --from`, `svc test --live`): credentials in the
 * URL sent as Basic auth, which fetch refuses in the URL itself, and a failure said in words.
 */
import { basicCredentials, redactText } from './redact.js';

/** Moves `url`'s userinfo into `headers` as a Basic `authorization`; returns `url` without it. */
export function basicAuthOf(url: URL, headers: Record<string, string>): URL {
  if (!url.username && !url.password) return url;
  headers.authorization = `Basic ${basicCredentials(url)}`;
  const bare = new URL(url);
  bare.username = bare.password = '';
  return bare;
}

/**
 * Why a fetch of `url` failed, in words, its credentials masked: the cause's (`connect ECONNREFUSED 127.0.0.1:9`)
 * rather than `fetch failed`; no answer within `timeoutMs`; or a port fetch will not reach.
 */
export function fetchFailure(error: unknown, url: URL, timeoutMs: number): string {
  const { name, message, cause } = error as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  const why = cause?.message ?? cause?.code ?? message ?? String(error);
  if (why === 'bad port')
    return `fetch refuses port ${url.port} (one of the ports browsers block, such as 6000 and 6665 to 6669): serve it on another port`;
  return redactText(why);
}
