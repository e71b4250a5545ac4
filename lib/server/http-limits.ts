import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * How long and how much one client may hold svc-server (docs/reliability.md): a client that sends its
 * headers or its body slowly is cut off, idle keep-alive connections are closed, and connections past the
 * cap are refused, so slow or greedy clients cannot starve the others.
 */
export interface HttpLimits {
  /** The whole header section must arrive within this many ms of the connection's request start (then 408). */
  readonly headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this many ms (then 408). */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this many ms. */
  readonly keepAliveTimeoutMs: number;
  /** A keep-alive connection is closed after this many requests (0: no limit). */
  readonly maxRequestsPerSocket: number;
  /** Connections past this many at once are closed as they arrive. */
  readonly maxConnections: number;
}

/** The defaults: tighter than node's own (60 s of headers, 300 s per request, no cap on connections). */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxRequestsPerSocket: 1_000,
  maxConnections: 1_024,
};

/** Each limit's flag, environment variable and bounds, as svc-server declares and checks them. */
export const HTTP_LIMIT_FLAGS: readonly {
  readonly key: keyof HttpLimits;
  readonly flag: string;
  readonly env: string;
  readonly min: number;
  readonly max: number;
  readonly description: string;
}[] = [
  {
    key: 'headersTimeoutMs',
    flag: '--headers-timeout',
    env: 'SVC_HEADERS_TIMEOUT',
    min: 1,
    max: 3_600_000,
    description: 'ms a client has to send its request headers (then 408)',
  },
  {
    key: 'requestTimeoutMs',
    flag: '--request-timeout',
    env: 'SVC_REQUEST_TIMEOUT',
    min: 1,
    max: 3_600_000,
    description: 'ms a client has to send its whole request, body included (then 408)',
  },
  {
    key: 'keepAliveTimeoutMs',
    flag: '--keep-alive-timeout',
    env: 'SVC_KEEP_ALIVE_TIMEOUT',
    min: 1,
    max: 3_600_000,
    description: 'ms an idle keep-alive connection stays open',
  },
  {
    key: 'maxRequestsPerSocket',
    flag: '--max-requests-per-socket',
    env: 'SVC_MAX_REQUESTS_PER_SOCKET',
    min: 0,
    max: 1_000_000_000,
    description: 'requests a keep-alive connection serves before it is closed (0: no limit)',
  },
  {
    key: 'maxConnections',
    flag: '--max-connections',
    env: 'SVC_MAX_CONNECTIONS',
    min: 1,
    max: 1_000_000,
    description: 'connections at once; more are closed as they arrive',
  },
];

/** How often node checks the header and request timeouts: its default (30 s) would let a slow client stay that long. */
const CHECK_EVERY_MS = 1_000;

/** An HTTP server of `handler` that enforces `limits` (not listening yet). */
export function limitedServer(handler: RequestListener, limits: HttpLimits): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(CHECK_EVERY_MS, limits.headersTimeoutMs),
    },
    handler,
  );
  server.on('clientError', answerClientError);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  server.maxConnections = limits.maxConnections;
  return server;
}

/** What node's HTTP parser refuses before any route sees the request, as the API's error envelope says it. */
const CLIENT_ERRORS: Readonly<Record<string, readonly [number, string, string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'the request line and headers are over 16 KiB'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request did not arrive in time'],
};

/**
 * Answers a request node's parser refused (a URL or headers too large, a request too slow, not HTTP) with the
 * status node would give and the API's `{error, detail}` body, then closes the connection; node's own answer has
 * no body.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || (socket as Duplex & { bytesWritten?: number }).bytesWritten) return void socket.destroy();
  const [status, code, detail] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'bad_request', 'not an HTTP request'];
  const body = JSON.stringify({ error: code, detail });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
