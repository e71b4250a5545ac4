import type * as Grpc from '@grpc/grpc-js';
import { asyncScheduler } from 'rxjs';
import { decodeStatus, otlpMessages } from '../protocols/otlp.js';
import { featurePackage } from '../features.js';
import { batchingSink, type BatchSettings, type Receipt } from './core/batching-sink.js';
import {
  OTLP_BATCH_LIMITS,
  OTLP_DEFAULTS,
  otlpRequests,
  OTLP_SIGNALS,
  exportReceipt,
  tooLargeAdvice,
  type OtlpSignal,
  type ReceiverLimit,
} from './framing/otlp-requests.js';
import type { RecordRequest } from './framing/record-requests.js';
import { DEFAULT_RETRY } from './core/retry.js';
import type { Sink } from '../../operators/deliver.js';
import { hostOf } from '../language/address.js';
import {
  certificateCodeOf,
  firstLine,
  MAX_RETRY_AFTER_SECONDS,
  networkError,
  NO_ANSWER,
  PRIVATE_CA,
  SinkError,
} from './core/errors.js';
import { redactAnswer, sentSecrets } from '../redact.js';
import { USER_AGENT } from './http/endpoint.js';

export interface OtlpGrpcSinkOptions extends BatchSettings {
  /** `host:port` (plaintext), or `http://` / `https://` (TLS) with host and port. */
  readonly endpoint: string;
  /** The service the requests go to; must match the entry's signal. */
  readonly signal: OtlpSignal;
  /** gRPC metadata of every call (credentials, a tenant). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly compression?: 'none' | 'gzip';
  /** Resource attributes over `service.name: svc` and `telemetry.sdk.*` (DEFAULT_RESOURCE). */
  readonly resource?: Readonly<Record<string, string>>;
  /** Deadline of each call, ms; default 10 s. */
  readonly timeout?: number;
}

/** Codes the OTLP specification calls retryable (RESOURCE_EXHAUSTED only with the RetryInfo that says when). */
const RETRYABLE = new Set([
  'CANCELLED',
  'DEADLINE_EXCEEDED',
  'RESOURCE_EXHAUSTED',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNAVAILABLE',
  'DATA_LOSS',
]);
const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * Sink for an OpenTelemetry collector over gRPC: unary `Export` calls to the metrics or logs
 * service of `endpoint`, one per request of at most `batchSize` records (see otlpRequests), on
 * the batching core (buffer age, one call in flight, retries, backpressure, flush on stop).
 * Errors by status: UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED with a RetryInfo (and the other codes
 * OTLP calls retryable) are retried, waiting at least the delay a server's RetryInfo asks; others fail
 * the request with what to fix (INVALID_ARGUMENT: the data or `signal_type`; UNIMPLEMENTED: not
 * an OTLP/gRPC endpoint of that signal). No connection, a failed name lookup and a passed deadline are said as
 * network errors; a failed certificate check too, final as with every sink. A partial success fails the refused records only; one
 * refusing none warns, once (exportReceipt).
 */
export function otlpGrpcSink(options: OtlpGrpcSinkOptions): Sink {
  const grpc = featurePackage<typeof Grpc>('otlp', '@grpc/grpc-js');
  const { signal } = options;
  const { address, secure } = grpcAddress(options.endpoint);
  const path = `/${OTLP_SIGNALS[signal].service}/Export`;
  const timeout = options.timeout ?? OTLP_DEFAULTS.timeout;
  const scheduler = options.scheduler ?? asyncScheduler;
  const { metadata, problem } = metadataOf(grpc, options.headers ?? {});
  const secrets = sentSecrets(options.headers);
  const redact = (answer: string) => redactAnswer(answer, secrets);
  let client: Grpc.Client | undefined;
  const calls = new Set<Grpc.ClientUnaryCall>();
  // Calls made of each request: a refusal after the first came after the wait the last one's RetryInfo asked for.
  const tries = new WeakMap<RecordRequest, number>();

  const failure = (error: Grpc.ServiceError, request: RecordRequest): SinkError => {
    const code = grpc.status[error.code] ?? String(error.code);
    const fullDetails = redact(error.details ?? '');
    const details = firstLine(fullDetails);
    // grpc-js's words for a connection it could not make: the rest came from a peer that took the call. Only they
    // speak of svc's TLS: a collector's status telling its own exporter's certificate failure is a refusal like any other.
    const unconnected = connectionFailed(fullDetails);
    const tls = secure && unconnected && /SSL|TLS|certificate/i.test(fullDetails);
    // A failed certificate check is final and said as every sink says it; grpc-js keeps only its words.
    const certificate = tls ? certificateCodeOf(fullDetails) : undefined;
    if (certificate) {
      // Its words taken from all the details, then cut: a wrong host's words end with the names the certificate holds.
      const cause = new Error(firstLine(lastErrorOf(fullDetails)), { cause: error });
      return networkError('otlp_grpc', address, hostOf(address), cause, {
        code: certificate,
        timeout,
        trust: grpcTrust(),
      });
    }
    // grpc-js makes up its statuses without metadata; a peer's comes with its headers (content-type at least), so a
    // gateway relaying words grpc-js also says (its own failed lookup, its dropped connection) is told by them.
    const own = code === 'UNAVAILABLE' && Object.keys(error.metadata?.getMap() ?? {}).length === 0;
    const lookedUp = own ? UNRESOLVED_TARGET.exec(details)?.[1] : undefined;
    if (lookedUp && lookedUp !== address)
      return new SinkError(
        'otlp_grpc',
        `cannot resolve host "${hostOf(lookedUp)}", which grpc-js looked up to reach ${address} (target dns:${lookedUp}): is it the proxy named in grpc_proxy, https_proxy or http_proxy? Check that host name, or leave ${hostOf(address)} out of the proxy with no_grpc_proxy`,
        { cause: error, retryable: true },
      );
    if (own && DROPPED_CONNECTION.test(details))
      return new SinkError(
        'otlp_grpc',
        `the connection to ${address} dropped under the call: the collector closed it (check its log: did it restart, or refuse the data?), or did not answer grpc-js's keepalive ping in time (is it stuck, or the network down?)`,
        { cause: error, retryable: true },
      );
    const system = tls ? undefined : lookedUp ? 'ENOTFOUND' : systemCodeOf(code, details, unconnected);
    if (system) return networkError('otlp_grpc', address, hostOf(address), error, { code: system, timeout });
    // No connection, for a cause that names no system code: svc's failure still, as nothing took the call.
    if (unconnected && !tls) {
      const why = connectionErrorOf(fullDetails);
      return new SinkError(
        'otlp_grpc',
        `cannot connect to ${address}${why ? ` (${why})` : ''}: is the collector running, and is ${address} its OTLP/gRPC port (usually 4317)?`,
        { cause: error, retryable: true },
      );
    }
    const said = `${address} answered ${code}${details ? `: "${details}"` : ''}`;
    const retryAfter = retryDelayOf(error.metadata);
    // A server out of resources says when to come back (RetryInfo) if it will recover; without one it will not.
    const retryable = RETRYABLE.has(code) && (code !== 'RESOURCE_EXHAUSTED' || retryAfter !== undefined);
    const hint = tls
      ? `; TLS failed (an https:// endpoint): does the collector serve TLS on this port, with a certificate this machine trusts (${grpcTrust()})? Plaintext is host:port`
      : code === 'RESOURCE_EXHAUSTED' && /larger than max/i.test(details)
        ? `; ${tooLargeAdvice(request, signal, GRPC_LIMIT)}`
        : advice(code, signal, address, retryAfter !== undefined, (tries.get(request) ?? 1) > 1);
    return new SinkError('otlp_grpc', `${said}${hint}`, {
      retryable,
      retryAfter: retryable ? retryAfter : undefined,
    });
  };

  const send = (request: RecordRequest) =>
    new Promise<Receipt | undefined>((resolve, reject) => {
      if (problem) return reject(new SinkError('otlp_grpc', `cannot call ${address}: ${problem}; check headers`));
      tries.set(request, (tries.get(request) ?? 0) + 1);
      client ??= new grpc.Client(
        address,
        secure ? grpc.credentials.createSsl() : grpc.credentials.createInsecure(),
        channelOptions(options.compression),
      );
      const call = client.makeUnaryRequest(
        path,
        (body: Uint8Array) => Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        (answer: Buffer) => answer,
        request.body,
        metadata,
        // gRPC takes a wall-clock deadline.
        { deadline: Date.now() + timeout },
        (error, answer) => {
          calls.delete(call);
          if (error) reject(failure(error, request));
          else resolve(exportReceipt('otlp_grpc', signal, answer ?? Buffer.alloc(0), request, redact));
        },
      );
      calls.add(call);
    });

  return batchingSink<RecordRequest>(
    {
      prepare: otlpRequests(options.batchSize ?? OTLP_DEFAULTS.batchSize, options.resource, signal),
      send,
      abort: () => {
        for (const call of calls) call.cancel();
      },
      release: () => client?.close(),
    },
    {
      name: 'otlp_grpc',
      target: `${secure ? 'https://' : ''}${address}`,
      batchSize: options.batchSize ?? OTLP_DEFAULTS.batchSize,
      batchUnit: 'records',
      maxAge: options.maxAge ?? OTLP_DEFAULTS.maxAge,
      ...OTLP_BATCH_LIMITS,
      retry: options.retry ?? DEFAULT_RETRY,
      flushTimeout: options.flushTimeout,
      scheduler,
      random: options.random,
    },
  );
}

/** `host:port` of an endpoint, and whether it asks for TLS (`https://`). */
export function grpcAddress(endpoint: string): { address: string; secure: boolean } {
  if (!/^https?:\/\//.test(endpoint)) return { address: endpoint, secure: false };
  const url = new URL(endpoint);
  return {
    address: `${url.hostname.includes(':') ? `[${url.hostname}]` : url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`,
    secure: url.protocol === 'https:',
  };
}

/**
 * What an endpoint URL holds that gRPC has no use for: a path, a query or a fragment. OpenTelemetry's exporters take
 * a URL for gRPC too (its scheme says TLS or not) and use only its host and port, as svc does; the calls' paths are
 * the services' own (`/opentelemetry.proto.collector.…/Export`). An endpoint such as `http://host:4317/v1/traces`
 * then reaches `host:4317` all the same, but says that its writer expected the path to count: an OTLP/HTTP url
 * (the otlp_http sink's).
 */
export function grpcEndpointWarnings(endpoint: string): string[] {
  if (!/^https?:\/\//.test(endpoint)) return [];
  const { pathname, search, hash } = new URL(endpoint);
  const unused = `${pathname === '/' ? '' : pathname}${search}${hash}`;
  if (!unused) return [];
  const { address, secure } = grpcAddress(endpoint);
  return [
    `otlp_grpc sink: sink.endpoint ${endpoint} has "${unused}" after its host and port, which gRPC does not use: the calls go to ${secure ? 'https://' : ''}${address}, to the path of the OTLP service (a path such as /v1/traces is OTLP/HTTP's: the otlp_http sink's url); write the endpoint without it`,
  ];
}

function channelOptions(compression: OtlpGrpcSinkOptions['compression']): Grpc.ChannelOptions {
  // grpc-js: 2 is gzip. Keep-alive pings keep a long run's channel from going stale unnoticed. The user agent names
  // svc first, as the HTTP sinks do (OTLP exporters SHOULD name themselves; grpc-js adds its own after).
  return {
    ...(compression === 'gzip' ? { 'grpc.default_compression_algorithm': 2 } : {}),
    'grpc.keepalive_time_ms': 60_000,
    'grpc.primary_user_agent': USER_AGENT,
  };
}

/** The headers as gRPC metadata, or why gRPC cannot carry one of them (naming it, never its value). */
function metadataOf(
  grpc: typeof Grpc,
  headers: Readonly<Record<string, string>>,
): { metadata: Grpc.Metadata; problem?: string } {
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(headers)) {
    try {
      metadata.set(name.toLowerCase(), name.toLowerCase().endsWith('-bin') ? Buffer.from(value) : value);
    } catch {
      return { metadata, problem: `the header "${name}" cannot be sent as gRPC metadata` };
    }
  }
  return { metadata };
}

/** The wait a refusal's google.rpc.RetryInfo asks for, in ms, at most {@link MAX_RETRY_AFTER_SECONDS} as a `Retry-After`. */
function retryDelayOf(metadata: Grpc.Metadata | undefined): number | undefined {
  const details = metadata?.get('grpc-status-details-bin')[0];
  if (!Buffer.isBuffer(details)) return undefined;
  try {
    const { type } = otlpMessages();
    const status = decodeStatus(details);
    const info = status.details?.find((detail) => detail.typeUrl === RETRY_INFO);
    if (!info) return undefined;
    const { retryDelay } = type('RetryInfo').toObject(type('RetryInfo').decode(info.value), { longs: Number }) as {
      retryDelay?: { seconds?: number; nanos?: number };
    };
    if (!retryDelay) return undefined;
    return Math.min((retryDelay.seconds ?? 0) * 1000 + (retryDelay.nanos ?? 0) / 1e6, MAX_RETRY_AFTER_SECONDS * 1000);
  } catch {
    return undefined;
  }
}

/**
 * The system error code of a status grpc-js made up itself, not the collector's: no connection (UNAVAILABLE,
 * `connect ECONNREFUSED …` in its words for a connection it could not make: `unconnected`), a connection that broke
 * under the call ({@link BROKEN_CONNECTION}), or the call's deadline passed: before a connection took it
 * (ETIMEDOUT), or after the collector took it (its details name the `remote_addr`). A peer's UNAVAILABLE naming a
 * code otherwise is its own failure (a gateway relaying that the collector behind it refused its connection), not
 * svc's.
 */
function systemCodeOf(code: string, details: string, unconnected: boolean): string | undefined {
  if (code === 'DEADLINE_EXCEEDED') {
    if (!/^Deadline exceeded/i.test(details)) return undefined;
    return /\bremote_addr=/.test(details) ? NO_ANSWER : 'ETIMEDOUT';
  }
  if (code !== 'UNAVAILABLE') return undefined;
  if (unconnected) return /\b(E[A-Z]{3,})\b/.exec(details)?.[1];
  return BROKEN_CONNECTION.exec(details)?.[1];
}

/**
 * grpc-js's resolver's words for a lookup that failed, naming the target: the endpoint's, or the proxy's when one
 * is set in the environment (grpc_proxy, https_proxy, http_proxy), as grpc-js then looks that up instead.
 */
const UNRESOLVED_TARGET = /^Name resolution failed for target dns:(.+)$/;

/** grpc-js's words for its connection failing under a call: Node's error (`read ECONNRESET`), after its own lead. */
const BROKEN_CONNECTION = /^(?:Write error: |Write failed with error )?(?:read|write) (E[A-Z]+)\b/;

/**
 * grpc-js's words for the HTTP/2 session closing under a call: the peer closed it (a collector restarting), or
 * grpc-js did, as the peer did not answer its keepalive ping in time.
 */
const DROPPED_CONNECTION = /^Connection dropped$/;

/**
 * Whether a status's details are grpc-js's own for a connection it could not make (`No connection established. Last
 * error: …`, a load balancer's name before it), not a collector's: only then do they tell of svc's connection.
 */
function connectionFailed(details: string): boolean {
  return /^(?:\w+: )?No connection established\b/.test(details.trimStart());
}

/** The words of the error behind a status grpc-js made up (`No connection established. Last error: Error: <words>.`). */
function lastErrorOf(details: string): string {
  return /Last error: (?:\w*Error(?: \[\w+\])?: )?(.*?)\.?(?: Resolution note:.*)?$/s.exec(details)?.[1] ?? details;
}

/**
 * What grpc-js kept of why it could not connect (`Failed to connect`, `Protocol error` for a port that speaks no
 * HTTP/2), without the time it stamps on it; nothing when it kept nothing (`Last error: null`, as when the call gave
 * up before the first attempt failed).
 */
function connectionErrorOf(details: string): string {
  if (!/Last error: (?!null\b)/.test(details)) return '';
  return firstLine(lastErrorOf(details).replace(/ \(\d{4}-\d\d-\d\dT[\d:.]+Z\)$/, ''));
}

/**
 * Where grpc-js takes the CAs it trusts from: Node's (its own list and NODE_EXTRA_CA_CERTS), unless the environment
 * names a file of them in GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, which then is the only one.
 */
export function grpcTrust(): string {
  const roots = process.env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH;
  return roots
    ? `gRPC trusts only the CAs in ${roots} (GRPC_DEFAULT_SSL_ROOTS_FILE_PATH): add a private CA's PEM there`
    : PRIVATE_CA;
}

/** The collector's gRPC receiver: messages of at most 4 MiB, counted after decompression. */
const GRPC_LIMIT: ReceiverLimit = { bytes: 4 * 1024 * 1024, setting: 'max_recv_msg_size_mib' };

/**
 * What to check after a status that failed the request (`retryInfo`: it came with a RetryInfo, and is retried;
 * `waited`: it answered a call made after such a wait).
 */
function advice(code: string, signal: OtlpSignal, address: string, retryInfo: boolean, waited: boolean): string {
  switch (code) {
    case 'INVALID_ARGUMENT':
      return `; the collector refused the data as invalid: check that the sink's signal_type (${signal}) is what this endpoint expects and that the entry is a ${signal} entry`;
    case 'UNIMPLEMENTED':
      return `; ${address} does not serve OTLP ${signal} over gRPC: is it the collector's OTLP/gRPC port (usually 4317; OTLP/HTTP on 4318 takes the otlp_http sink)?`;
    case 'UNAUTHENTICATED':
    case 'PERMISSION_DENIED':
      return '; set the credentials or the tenant in headers';
    case 'UNAVAILABLE':
      return `; ${address} took the call: the collector is overloaded or shutting down, or a proxy there cannot reach the collector behind it`;
    case 'RESOURCE_EXHAUSTED':
      if (retryInfo)
        return waited
          ? '; the collector stayed out of resources through the waits its RetryInfo asked for: check its limits'
          : '; the collector is out of resources (its RetryInfo asks for a wait before trying again): check its limits';
      return ' without a RetryInfo, which OTLP retries only with (the collector will not recover soon): check its limits';
    default:
      return '';
  }
}
