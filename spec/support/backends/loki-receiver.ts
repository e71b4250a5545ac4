import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

/** One log line as the receiver stored it. */
export interface ReceivedEntry {
  readonly labels: Readonly<Record<string, string>>;
  /** Unix nanoseconds, as the string that was sent. */
  readonly ts: string;
  readonly line: string;
  readonly tenant: string | undefined;
  /** Structured metadata (Loki 3), when the entry had some. */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** One push request the receiver answered. */
export interface ReceivedPush {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Streams in the request (valid or not). */
  readonly streams: number;
  /** The error text of a refused push. */
  readonly error?: string;
}

export interface LokiReceiverOptions {
  /** Multi-tenant mode: a push without `X-Scope-OrgID` gets 401 "no org id". */
  readonly requireTenant?: boolean;
  /** Clock of the age rules, epoch ms. */
  readonly now?: () => number;
  /** Whether entries may carry structured metadata (Loki 3's `limits_config.allow_structured_metadata`); default true. */
  readonly allowStructuredMetadata?: boolean;
}

export interface LokiReceiver {
  /** Base address, as the logstore sink's `url` takes it. */
  readonly url: string;
  readonly pushes: ReceivedPush[];
  /** Every accepted line, in arrival order. */
  readonly entries: ReceivedEntry[];
  /** Answers the next `count` pushes with `status` (429, 500, …) instead of taking them, saying `text` if given. */
  failNext(status: number, count?: number, text?: string): void;
  stop(): Promise<void>;
}

/** Loki's defaults for the rules this receiver enforces. */
const LIMITS = {
  labelNames: 15,
  labelNameLength: 1024,
  labelValueLength: 2048,
  lineBytes: 256 * 1024,
  oldestMs: 7 * 24 * 3600 * 1000, // reject_old_samples_max_age: 168h
  newestMs: 10 * 60 * 1000, // creation_grace_period: 10m
};
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const NANOS = /^\d{1,19}$/;

/**
 * An HTTP server implementing the push side of the Loki API as Loki's distributor does:
 * `POST /loki/api/v1/push` with a JSON body (optionally gzip-encoded)
 * `{"streams":[{"stream":{labels},"values":[["<unix ns>","<line>"(, {metadata})], …]}]}`,
 * 204 on success, an entry with the timestamp and line of an earlier entry of its stream left out
 * (Loki drops such duplicates without an error); 400 for a body that does not parse, a stream without labels, a label name not
 * matching `[a-zA-Z_][a-zA-Z0-9_]*`, too many or too long labels, a non-string or malformed
 * timestamp, one older than 7 days or more than 10 minutes ahead, a line above 256 KiB, structured metadata
 * where it is not allowed (valid
 * streams of the same push are still taken, as Loki does); 401 without `X-Scope-OrgID` in
 * multi-tenant mode. The protobuf form (`application/x-protobuf`, snappy) is answered 415: this
 * receiver implements the JSON form only.
 */
export async function startLokiReceiver(options: LokiReceiverOptions = {}): Promise<LokiReceiver> {
  const now = options.now ?? Date.now;
  const pushes: ReceivedPush[] = [];
  const entries: ReceivedEntry[] = [];
  let failures: { status: number; count: number; text?: string } | undefined;
  const seen = new Set<string>();

  const answer = (req: IncomingMessage, res: ServerResponse, status: number, streams: number, error?: string): void => {
    pushes.push({ status, headers: req.headers, streams, ...(error ? { error } : {}) });
    res.writeHead(status, error ? { 'Content-Type': 'text/plain; charset=utf-8' } : {});
    res.end(error ? `${error}\n` : undefined);
  };

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/loki/api/v1/push') {
      res.writeHead(404).end('404 page not found\n');
      return;
    }
    const tenant = header(req, 'x-scope-orgid');
    if (options.requireTenant && !tenant) return answer(req, res, 401, 0, 'no org id');
    if (failures && failures.count > 0) {
      failures.count--;
      return answer(
        req,
        res,
        failures.status,
        0,
        failures.text ?? (failures.status === 429 ? 'Ingestion rate limit exceeded' : 'injected failure'),
      );
    }
    const type = (header(req, 'content-type') ?? '').split(';')[0]!.trim();
    if (type !== 'application/json') {
      return answer(
        req,
        res,
        415,
        0,
        `unsupported Content-Type "${type}": this test receiver implements the JSON push form only`,
      );
    }
    let parsed: unknown;
    try {
      const text =
        header(req, 'content-encoding') === 'gzip'
          ? (await promisify(gunzip)(body)).toString('utf8')
          : body.toString('utf8');
      parsed = JSON.parse(text);
    } catch (error) {
      return answer(req, res, 400, 0, `loghttp.PushRequest: cannot parse the body: ${(error as Error).message}`);
    }
    const streams = (parsed as { streams?: unknown }).streams;
    if (!Array.isArray(streams)) return answer(req, res, 400, 0, 'loghttp.PushRequest.Streams: expected an array');
    const errors: string[] = [];
    for (const stream of streams) {
      const problem = validateStream(stream, now(), options.allowStructuredMetadata ?? true);
      if (problem) errors.push(problem);
      else
        for (const [ts, line, metadata] of (stream as Stream).values) {
          // Loki keeps one of two entries of a stream with the same timestamp and line, silently.
          const key = JSON.stringify([tenant, Object.entries((stream as Stream).stream).sort(), ts, line]);
          if (seen.has(key)) continue;
          seen.add(key);
          entries.push({ labels: (stream as Stream).stream, ts, line, tenant, ...(metadata && { metadata }) });
        }
    }
    if (errors.length) return answer(req, res, 400, streams.length, errors.join('\n'));
    answer(req, res, 204, streams.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    pushes,
    entries,
    failNext(status, count = 1, text) {
      failures = { status, count, ...(text !== undefined && { text }) };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Stream {
  readonly stream: Record<string, string>;
  readonly values: [string, string, Record<string, string>?][];
}

/** Loki's validation of one stream: the first problem, or undefined. */
function validateStream(stream: unknown, nowMs: number, allowStructuredMetadata: boolean): string | undefined {
  const { stream: labels, values } = (stream ?? {}) as { stream?: unknown; values?: unknown };
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels))
    return 'stream: expected an object of labels';
  const names = Object.keys(labels);
  const shown = `{${names.map((n) => `${n}=${JSON.stringify((labels as Record<string, unknown>)[n])}`).join(', ')}}`;
  if (names.length === 0) return 'error at least one label pair is required per stream';
  if (names.length > LIMITS.labelNames)
    return `stream '${shown}' has ${names.length} label names; limit ${LIMITS.labelNames}`;
  for (const name of names) {
    const value = (labels as Record<string, unknown>)[name];
    if (!LABEL_NAME.test(name)) return `error parsing labels '${shown}': invalid label name "${name}"`;
    if (name.length > LIMITS.labelNameLength) return `stream '${shown}' has label name too long: "${name}"`;
    if (typeof value !== 'string') return `stream '${shown}': label values must be strings`;
    if (value.length > LIMITS.labelValueLength) return `stream '${shown}' has label value too long`;
  }
  if (!Array.isArray(values)) return `stream '${shown}': values: expected an array`;
  for (const entry of values) {
    if (!Array.isArray(entry) || entry.length < 2 || entry.length > 3)
      return `stream '${shown}': each value must be [timestamp, line(, metadata)]`;
    const [ts, line, metadata] = entry as unknown[];
    if (typeof ts !== 'string' || !NANOS.test(ts))
      return `stream '${shown}': timestamp ${JSON.stringify(ts)} is not a string of unix nanoseconds`;
    if (typeof line !== 'string') return `stream '${shown}': line must be a string`;
    if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null))
      return `stream '${shown}': structured metadata must be an object`;
    if (metadata !== undefined && Object.values(metadata).some((value) => typeof value !== 'string'))
      return `stream '${shown}': structured metadata values must be strings`;
    if (metadata !== undefined && !allowStructuredMetadata)
      return `stream '${shown}' includes structured metadata, but this feature is disallowed. Please see \`limits_config.allow_structured_metadata\` or contact your Loki administrator to enable it.`;
    const ms = Number(ts) / 1e6;
    if (ms < nowMs - LIMITS.oldestMs)
      return `entry for stream '${shown}' has timestamp too old: ${new Date(ms).toISOString()}`;
    if (ms > nowMs + LIMITS.newestMs)
      return `entry for stream '${shown}' has timestamp too new: ${new Date(ms).toISOString()}`;
    if (Buffer.byteLength(line) > LIMITS.lineBytes)
      return `Max entry size '${LIMITS.lineBytes}' bytes exceeded for stream '${shown}' while adding an entry with length '${Buffer.byteLength(line)}' bytes`;
  }
  return undefined;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}
