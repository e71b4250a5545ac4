import { isIP } from 'node:net';
import type { Middleware } from 'koa';
import { HttpError } from '../http-error.js';
import { isLoopback } from '../loopback.js';

/** Whether a server bound to `bind`, with or without an API key, takes only local names ({@link loopbackHosts}). */
export function servesLocalNamesOnly(bind: string, apiKey: string | undefined): boolean {
  return !apiKey && isLoopback(bind);
}

/**
 * On a server that listens on a loopback address without an API key, refuses a request that names the server by a
 * DNS name other than `localhost`: a web page whose own name was made to resolve to 127.0.0.1 (DNS rebinding) is of
 * the same origin as its requests, so the origin check lets it through, and nothing else stands in its way. A
 * browser on this machine names the server by an IP address or `localhost`; clients that send no `Host` are not
 * browsers.
 */
export function loopbackHosts(): Middleware {
  return (ctx, next) => {
    const host = ctx.get('Host');
    if (!host || isLocalName(hostnameOf(host))) return next();
    throw new HttpError(
      403,
      'host_not_allowed',
      `requests naming the host ${JSON.stringify(host)} are refused: without an API key, a server on a loopback address answers only requests to an IP address or localhost, so that no web page can reach it through a name made to resolve here (DNS rebinding); set --api-key to serve other host names`,
    );
  };
}

/** The name of a `Host` header without its port (`[::1]:8080` is `::1`). */
function hostnameOf(host: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(host);
  if (bracketed) return bracketed[1]!;
  const colon = host.lastIndexOf(':');
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
}

function isLocalName(name: string): boolean {
  return isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost');
}
