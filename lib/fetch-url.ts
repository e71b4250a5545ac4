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
 * rather than `fetch failed`; no answer within `timeoutMs`; a port fetch will not reach; or https to a server of plain HTTP.
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
  // OpenSSL's own text (`…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:…`) says nothing to a user.
  if (cause?.code === 'ERR_SSL_WRONG_VERSION_NUMBER')
    return `the server at ${url.host} does not answer in TLS: is it an http:// URL?`;
  return redactText(why);
}
