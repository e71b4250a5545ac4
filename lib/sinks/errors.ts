import { SinkError } from './sink.js';

/** What a network error code means for the user, and what to check. */
function explain(code: string | undefined, target: string, host: string): string | undefined {
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${target}: is the backend running, and is ${target} the right port?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve host "${host}": check the host name in the address`;
    case 'ETIMEDOUT':
      return `no answer from ${target} in time: is the address reachable (firewall, wrong host)?`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${target} is unreachable from this machine: check the host and the network`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `${target} closed the connection (${code})`;
    default:
      return undefined;
  }
}

/**
 * A network failure of `sink` reaching `target` (`host:port` or a URL origin) as a retryable
 * {@link SinkError} whose message says what to check, e.g. for connection refused: "is the
 * backend running, and is <host:port> the right port?".
 */
export function networkError(sink: string, target: string, host: string, cause: unknown): SinkError {
  const error = cause as NodeJS.ErrnoException;
  const code = typeof error?.code === 'string' ? error.code : undefined;
  const message = explain(code, target, host) ?? `cannot reach ${target}: ${error?.message ?? String(cause)}`;
  return new SinkError(sink, message, { cause, retryable: true });
}
