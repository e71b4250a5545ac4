import { existsSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { getSystemErrorMap } from 'node:util';

/** A delivery failure, named after the sink that failed. */
export class SinkError extends Error {
  /** Whether trying again may succeed (network errors, 429, 5xx), as opposed to a refusal. */
  readonly retryable: boolean;
  /** How long (ms) the destination asked to wait before trying again (Retry-After, gRPC RetryInfo). */
  readonly retryAfter: number | undefined;
  /** The HTTP status the destination refused with, when it answered one: a protocol may act on it (415). */
  readonly status: number | undefined;
  /**
   * The sink can take nothing more (its file or stream broke: a full disk): the entry stops with this error,
   * whatever `on_sink_error` says, as going on could only count drops.
   */
  readonly lasting: boolean;

  constructor(
    readonly sink: string,
    /** What went wrong, without the `<sink> sink: ` prefix of the message. */
    readonly detail: string,
    options?: {
      cause?: unknown;
      retryable?: boolean;
      retryAfter?: number;
      status?: number;
      lasting?: boolean;
    },
  ) {
    super(`${sink} sink: ${detail}`, options);
    this.name = 'SinkError';
    this.retryable = options?.retryable ?? false;
    this.retryAfter = options?.retryAfter;
    this.status = options?.status;
    this.lasting = options?.lasting ?? false;
    // Until its stack is read, V8 keeps an error's call sites, and with them the closures it was made in: a sink
    // keeps its last error (and a give-up its cause), so each kept the body of the request that failed, 1 MiB,
    // and the requests before it. Written out now, the stack is text and holds nothing. So are its causes' (a
    // client's error wrapped as a cause's cause: otlp_grpc's certificate failures), as deep as anyone wraps them;
    // bounded, as a chain may loop.
    void this.stack;
    let cause = options?.cause;
    for (let depth = 0; cause instanceof Error && depth < CAUSES_WRITTEN; depth++) {
      void cause.stack;
      cause = cause.cause;
    }
  }
}

/**
 * Seconds read of a wait a destination asks for (HTTP `Retry-After`, gRPC `RetryInfo`), at most: RFC 9111's 2^31
 * for an HTTP cache's delta-seconds (§1.2.2). A wait past svc's longest backoff is cut to it where the next attempt
 * is scheduled (sink-core.ts), not here: the stall message says the wait asked for; this bound keeps it a number a
 * person can read (400 digits of `Retry-After` read as Infinity, a RetryInfo's 2^62 s as 10^15 hours).
 */
export const MAX_RETRY_AFTER_SECONDS = 2 ** 31;

/** How many causes deep a {@link SinkError} writes out their stacks: more than any sink wraps. */
const CAUSES_WRITTEN = 8;

/**
 * The words of an error for a person: a system error's description ("no such file or
 * directory") without its code and system call, the message of any other error.
 */
export function describeError(cause: unknown): string {
  const error = cause as NodeJS.ErrnoException | undefined;
  const system = typeof error?.errno === 'number' ? getSystemErrorMap().get(error.errno) : undefined;
  return system?.[1] ?? error?.message ?? String(cause);
}

/**
 * The first non-blank line of what a receiver answered, whitespace collapsed and cut at `max` characters (…):
 * the line where receivers put the reason (the rest is often a stack or a page), fit for one log line.
 */
export function firstLine(text: string, max = 200): string {
  const line = (text.split('\n').find((part) => part.trim() !== '') ?? '').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * The code {@link networkError} takes for a request the peer took (over a connection it accepted) and did not
 * answer within the request's timeout: no system error has a name for that.
 */
export const NO_ANSWER = 'SVC_NO_ANSWER';

/**
 * How svc (Node) comes to trust a certificate its own CA list does not hold: the advice of every TLS failure
 * of that kind, whatever the sink.
 */
export const PRIVATE_CA = 'for a private CA, name its PEM file in the environment variable NODE_EXTRA_CA_CERTS';

/**
 * Node's (OpenSSL's) words for each failed certificate check, by its code: what a client that keeps only the words
 * (grpc-js: `… Last error: Error: self-signed certificate …`) reports.
 */
const CERTIFICATE_WORDS: readonly (readonly [RegExp, string])[] = [
  [/self[- ]signed certificate in certificate chain/i, 'SELF_SIGNED_CERT_IN_CHAIN'],
  [/self[- ]signed certificate/i, 'DEPTH_ZERO_SELF_SIGNED_CERT'],
  [/unable to get local issuer certificate/i, 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY'],
  [/unable to verify the first certificate/i, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
  [/certificate has expired/i, 'CERT_HAS_EXPIRED'],
  [/certificate is not yet valid/i, 'CERT_NOT_YET_VALID'],
  [/Hostname\/IP does not match certificate's altnames/i, 'ERR_TLS_CERT_ALTNAME_INVALID'],
];

/** The code of the failed certificate check that `words` tell, or undefined (not one: another TLS failure). */
export function certificateCodeOf(words: string): string | undefined {
  return CERTIFICATE_WORDS.find(([pattern]) => pattern.test(words))?.[1];
}

/**
 * What a failed certificate check means (an untrusted, expired or not yet valid certificate, or one of another
 * host), and what to do (`trust`: how this client comes to trust a private CA); undefined for any other code.
 * Trying again meets the same certificate: such a failure is final.
 */
function explainCertificate(
  code: string | undefined,
  target: string,
  host: string,
  cause: unknown,
  trust: string,
): string | undefined {
  switch (code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return `the TLS certificate of ${target} is not signed by a CA this machine trusts: ${trust}`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
      return `the TLS certificate of ${target} is not signed by a CA this machine trusts, or the server does not send its intermediate certificates: ${trust}`;
    case 'CERT_HAS_EXPIRED':
      return `the TLS certificate of ${target} has expired: renew it on the server (or check this machine's clock)`;
    case 'CERT_NOT_YET_VALID':
      return `the TLS certificate of ${target} is not valid yet: check this machine's clock, or the certificate's dates`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `the TLS certificate of ${target} is not made out to "${host}" (${describeError(cause)}): address the server by a name its certificate holds`;
    default:
      return undefined;
  }
}

/** What a network error code means for the user, and what to check. */
function explainNetwork(code: string | undefined, target: string, host: string, cause: unknown): string | undefined {
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${target}: is the backend running, and is ${target} the right port?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return `cannot resolve host "${host}": check the host name in the address`;
    case 'ETIMEDOUT':
      return `no answer from ${target} in time: is the address reachable (firewall, wrong host)?`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${target} is unreachable from this machine: check the host and the network`;
    case 'ECONNRESET':
      return `the connection to ${target} was reset: ${RESTART_OR_REFUSAL}`;
    case 'EPIPE':
      return `${target} closed the connection: ${RESTART_OR_REFUSAL}`;
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_VERSION':
      // Node's HTTP parser (llhttp) found no "HTTP/" at the start of the answer: the port speaks something else.
      return `${target} did not answer in HTTP/1.1: is it the right port? A gRPC port (such as OTLP/gRPC's 4317) speaks HTTP/2 only`;
    default:
      // Any other parser error is an HTTP answer the parser could not take (a header too large, a bad chunk).
      return code?.startsWith('HPE_') ? `${target} answered malformed HTTP: ${describeError(cause)}` : undefined;
  }
}

const RESTART_OR_REFUSAL = "check the backend's log (did it restart, or refuse the data?)";

/**
 * A network failure of `sink` reaching `target` (`host:port` or a URL origin) as a retryable
 * {@link SinkError} whose message says what to check, e.g. for connection refused: "is the
 * backend running, and is <host:port> the right port?"; a failed certificate check is final. `target` must not carry
 * credentials.
 * `how`: the system error code, when the cause only names it in its words (gRPC's), or {@link NO_ANSWER}; with the
 * request's `timeout` (ms), which a peer that did not answer is told with, and how the client comes to trust a
 * private CA when not as Node does ({@link PRIVATE_CA}).
 */
export function networkError(
  sink: string,
  target: string,
  host: string,
  cause: unknown,
  how?: { readonly code: string; readonly timeout: number; readonly trust?: string },
): SinkError {
  const code = how?.code ?? (cause as NodeJS.ErrnoException | undefined)?.code;
  const certificate = explainCertificate(code, target, host, cause, how?.trust ?? PRIVATE_CA);
  const detail =
    how?.code === NO_ANSWER
      ? `${target} accepted the connection but did not answer within ${how.timeout / 1000} s: is the endpoint overloaded or stuck?`
      : (certificate ?? explainNetwork(code, target, host, cause) ?? `cannot reach ${target}: ${describeError(cause)}`);
  return new SinkError(sink, detail, { cause, retryable: certificate === undefined });
}

/** `why` an open fails, said of a path that is a symbolic link to `created`, where the open makes the file. */
export function throughLink(created: string, why: string): string {
  return `it is a symbolic link to ${created}: ${why}`;
}

/** What a file system error code means for a writer of the file at `path` (a file sink, `svc -o`), in words. */
export function explainFile(code: string | undefined, path: string): string | undefined {
  switch (code) {
    case 'ENOENT': {
      // A symbolic link to nowhere is opened as its target, which the open creates: what fails is there.
      const created = createdAt(path);
      if (created !== undefined && created !== path) return throughLink(created, explainFile(code, created)!);
      return existsSync(dirname(path))
        ? `${dirname(path)} takes no new file (no such file or directory): is it a file system such as /proc or /sys?`
        : `the directory ${dirname(path)} does not exist`;
    }
    case 'ENOTDIR':
      return `a part of ${dirname(path)} is a file, not a directory`;
    case 'EISDIR':
      // The system opens `out/` as a directory, whether one exists there or not.
      return `${path.endsWith('/') ? 'it ends with /, which names a directory' : 'it is a directory'}; path must name a file`;
    case 'EACCES':
    case 'EPERM':
      return 'permission denied: check that this user may write there';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is used up';
    case 'EFBIG':
      return 'the file reached the largest size this process may write (its file size limit, ulimit -f)';
    case 'ENXIO':
      return isNamedPipe(path) ? 'it is a named pipe that no process reads: start its reader first' : undefined;
    case 'ERR_INVALID_ARG_VALUE':
      return 'the path contains a NUL byte, which no file name can hold';
    default:
      return undefined;
  }
}

/** Whether `path` is a named pipe (FIFO); false when it cannot be looked at. */
function isNamedPipe(path: string): boolean {
  try {
    return statSync(path).isFIFO();
  } catch {
    return false;
  }
}

/** The most symbolic links the system follows in one path (Linux's MAXSYMLINKS): past it, ELOOP. */
const MAX_LINKS = 40;

/**
 * Where opening `path` to write, with O_CREAT, makes the file when none is there: `path` itself, or the place the
 * symbolic links at `path` lead to (a link to nowhere creates its target, relative to the link's directory: where
 * that directory really is, as the system takes a `..` in the target from there). Undefined for links that lead on past {@link MAX_LINKS} (a loop), which the open refuses (ELOOP).
 */
export function createdAt(path: string): string | undefined {
  let at = path;
  for (let links = 0; links <= MAX_LINKS; links++) {
    let target: string;
    try {
      target = readlinkSync(at);
    } catch {
      // Not a link (EINVAL), or nothing there (ENOENT): the file is made here.
      return at;
    }
    at = isAbsolute(target) ? target : resolve(realDirectory(dirname(at)), target);
  }
  return undefined;
}

/** Where directory `dir` (a link's, which exists) really is; `dir` itself if that cannot be found. */
function realDirectory(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * A failure to open or write the file at `path`, in words:
 * `cannot open <path>: the directory <dir> does not exist`.
 */
export function fileError(path: string, cause: unknown): SinkError {
  const error = cause as NodeJS.ErrnoException | undefined;
  // A chunk larger than one write may hold is refused by the write itself, without a system call.
  const action = error?.syscall === 'write' || error?.code === 'ERR_OUT_OF_RANGE' ? 'write' : 'open';
  return new SinkError('file', `cannot ${action} ${path}: ${explainFile(error?.code, path) ?? describeError(cause)}`, {
    cause,
  });
}
