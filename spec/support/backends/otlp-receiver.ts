import * as grpc from '@grpc/grpc-js';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { otlpMessages } from '../../../lib/protocols/otlp.js';

/**
 * A stand-in for an OpenTelemetry collector (none installs here): OTLP/gRPC `Export` of the
 * metrics, logs and trace services, and OTLP/HTTP `POST /v1/metrics`, `/v1/logs`, `/v1/traces`
 * with protobuf or JSON bodies (optionally gzip). Requests are decoded with the official
 * opentelemetry-proto files (shipped by @opentelemetry/otlp-grpc-exporter-base@0.38, the
 * `otlp-protos` dev dependency), not with svc's own declaration of the messages, so what it reads
 * is what a collector would read. Its answers (partial success, RetryInfo) are encoded with svc's
 * declaration: those 0.38 protos predate partial success. spec/sinks/otlp-receiver.spec.ts proves
 * it with the official exporters.
 */

const PROTOS = join(dirname(createRequire(import.meta.url).resolve('otlp-protos/package.json')), 'build', 'protos');

/**
 * Per signal: the opentelemetry-proto package (`trace` is singular there), the collector service,
 * its request, the name of the partial-success count in the JSON response, and the path from a
 * request to its records (metrics, log records, spans) through the resource and scope lists.
 */
const SIGNALS = {
  metrics: {
    proto: 'metrics',
    service: 'MetricsService',
    request: 'ExportMetricsServiceRequest',
    rejected: 'rejectedDataPoints',
    records: ['resource_metrics', 'scope_metrics', 'metrics'],
  },
  logs: {
    proto: 'logs',
    service: 'LogsService',
    request: 'ExportLogsServiceRequest',
    rejected: 'rejectedLogRecords',
    records: ['resource_logs', 'scope_logs', 'log_records'],
  },
  traces: {
    proto: 'trace',
    service: 'TraceService',
    request: 'ExportTraceServiceRequest',
    rejected: 'rejectedSpans',
    records: ['resource_spans', 'scope_spans', 'spans'],
  },
} as const;

const official = new protobuf.Root();
official.resolvePath = (_origin, target) => join(PROTOS, target);
official.loadSync(
  Object.values(SIGNALS).map(({ proto }) => `opentelemetry/proto/collector/${proto}/v1/${proto}_service.proto`),
  { keepCase: true },
);
const packageOf = (signal: Signal) => `opentelemetry.proto.collector.${SIGNALS[signal].proto}.v1`;
const requestType = (signal: Signal) => official.lookupType(`${packageOf(signal)}.${SIGNALS[signal].request}`);

export type Signal = keyof typeof SIGNALS;

/** The Export method of `signal`'s OTLP/gRPC service, its request and answer bytes left undecoded. */
export function rawExportService(signal: Signal) {
  return {
    Export: {
      path: `/${packageOf(signal)}.${SIGNALS[signal].service}/Export`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (value: Buffer) => value,
      requestDeserialize: (bytes: Buffer) => bytes,
      responseSerialize: (value: Buffer) => value,
      responseDeserialize: (bytes: Buffer) => bytes,
    },
  };
}

/**
 * A decoded request as plain JSON: proto field names, 64-bit numbers as strings, enums by name,
 * defaults filled in, trace and span ids as lowercase hex (as OTLP/JSON writes them; '' when unset).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ExportRequest = Record<string, any>;

/** How to answer the next request: accept (optionally refusing some records), or fail with a gRPC status / HTTP status. */
export type OtlpAnswer =
  | { readonly accept: true; readonly rejected?: number; readonly message?: string }
  | { readonly grpc: grpc.status; readonly details?: string; readonly retryAfterMs?: number; readonly http?: number };

export interface OtlpReceiver {
  /** `127.0.0.1:<port>` of the gRPC server. */
  readonly grpcAddress: string;
  /** `http://127.0.0.1:<port>` of the HTTP server. */
  readonly httpUrl: string;
  /** Accepted requests of each signal, decoded, with the metadata or headers they came with. */
  readonly received: {
    signal: Signal;
    request: ExportRequest;
    headers: Record<string, string>;
    via: 'grpc' | 'http';
    /** The body's encoding: gRPC and `application/x-protobuf` are protobuf. */
    encoding: 'protobuf' | 'json';
  }[];
  /** Every call, answered or not. */
  calls: number;
  /** The accepted requests of one signal, in arrival order. */
  requestsOf(signal: Signal): ExportRequest[];
  /** Resolves once accepted requests of `signal` have brought `count` records (metrics, log records or spans) in all. */
  arrived(signal: Signal, count: number): Promise<void>;
  answer(next: (signal: Signal) => OtlpAnswer): void;
  stop(): Promise<void>;
}

/**
 * The bytes fields OTLP/JSON writes in hex rather than base64 (in spans, links, log records and
 * exemplars), with their length in hex digits.
 */
const ID_DIGITS = new Map([
  ['trace_id', 32],
  ['span_id', 16],
  ['parent_span_id', 16],
]);

/** Walks a plain object, rewriting each field through `field(name, value)`; arrays and nested objects are walked. */
function rewriteFields(value: unknown, field: (name: string, value: unknown) => [string, unknown]): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteFields(item, field));
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => {
      const [key, rewritten] = field(name, item);
      return [key, rewriteFields(rewritten, field)];
    }),
  );
}

function plain(signal: Signal, message: protobuf.Message): ExportRequest {
  const object = requestType(signal).toObject(message, { longs: String, enums: String, defaults: true, arrays: true });
  return rewriteFields(object, (name, value) => {
    const digits = ID_DIGITS.get(name);
    if (digits === undefined || !(value instanceof Uint8Array)) return [name, value];
    // As the collector: an id has its full length, or none for no id.
    if (value.length !== 0 && value.length * 2 !== digits)
      throw new Error(`${name}: ${value.length} bytes where an id has ${digits / 2}`);
    return [name, Buffer.from(value).toString('hex')];
  }) as ExportRequest;
}

function decodeProtobuf(signal: Signal, bytes: Uint8Array): ExportRequest {
  return plain(signal, requestType(signal).decode(bytes));
}

/**
 * OTLP/JSON as the OTLP spec writes it: lowerCamelCase keys (the proto names are accepted too, as
 * the collector does), enums by number or name, 64-bit numbers as strings or numbers, and trace
 * and span ids in hex where other bytes are base64. Unknown fields are ignored, as the spec asks.
 */
function decodeJson(signal: Signal, text: string): ExportRequest {
  const object = rewriteFields(JSON.parse(text), (key, value) => {
    const name = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    if (!ID_DIGITS.has(name) || typeof value !== 'string') return [name, value];
    if (!/^[0-9a-fA-F]*$/.test(value)) throw new Error(`${key}: ${JSON.stringify(value)} is not hex`);
    return [name, Buffer.from(value, 'hex')];
  });
  return plain(signal, requestType(signal).fromObject(object as Record<string, unknown>));
}

function recordCount(signal: Signal, request: ExportRequest): number {
  const [resources, scopes, records] = SIGNALS[signal].records;
  return request[resources].reduce(
    (total: number, resource: ExportRequest) =>
      total + resource[scopes].reduce((sum: number, scope: ExportRequest) => sum + scope[records].length, 0),
    0,
  );
}

function responseOf(signal: Signal, answer: Extract<OtlpAnswer, { accept: true }>, encoding: 'protobuf' | 'json') {
  // A message without a refusal is a warning: a partial success that refuses none.
  const partialSuccess =
    answer.rejected || answer.message
      ? { rejected: answer.rejected ?? 0, errorMessage: answer.message ?? '' }
      : undefined;
  if (encoding === 'json') {
    const body = partialSuccess
      ? {
          partialSuccess: {
            [SIGNALS[signal].rejected]: String(partialSuccess.rejected),
            errorMessage: partialSuccess.errorMessage,
          },
        }
      : {};
    return { contentType: 'application/json', body: Buffer.from(JSON.stringify(body)) };
  }
  const { type } = otlpMessages();
  const body = Buffer.from(
    type('ExportResponse')
      .encode(partialSuccess ? { partialSuccess } : {})
      .finish(),
  );
  return { contentType: 'application/x-protobuf', body };
}

function statusDetails(answer: Extract<OtlpAnswer, { grpc: grpc.status }>): Buffer {
  const { type } = otlpMessages();
  const delay = answer.retryAfterMs ?? 0;
  const retryInfo = type('RetryInfo')
    .encode({ retryDelay: { seconds: Math.floor(delay / 1000), nanos: (delay % 1000) * 1e6 } })
    .finish();
  const status = {
    code: answer.grpc,
    message: answer.details ?? '',
    details: [{ typeUrl: 'type.googleapis.com/google.rpc.RetryInfo', value: retryInfo }],
  };
  return Buffer.from(type('Status').encode(status).finish());
}

const HTTP_ENCODINGS: Record<string, 'protobuf' | 'json'> = {
  'application/x-protobuf': 'protobuf',
  'application/json': 'json',
};

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: OtlpReceiver['received'] = [];
  const waiting: { signal: Signal; count: number; resolve: () => void }[] = [];
  const requestsOf = (signal: Signal) => received.filter((r) => r.signal === signal).map((r) => r.request);
  const settle = () => {
    for (const waiter of [...waiting]) {
      const records = requestsOf(waiter.signal).reduce((sum, request) => sum + recordCount(waiter.signal, request), 0);
      if (records < waiter.count) continue;
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const record = (entry: OtlpReceiver['received'][number]) => {
    received.push(entry);
    settle();
  };
  let decide: (signal: Signal) => OtlpAnswer = () => ({ accept: true });
  const receiver = {
    received,
    calls: 0,
    requestsOf,
    arrived: (signal: Signal, count: number) =>
      new Promise<void>((resolve) => {
        waiting.push({ signal, count, resolve });
        settle();
      }),
    answer(next: (signal: Signal) => OtlpAnswer) {
      decide = next;
    },
  };

  const server = new grpc.Server();
  for (const signal of Object.keys(SIGNALS) as Signal[]) {
    server.addService(rawExportService(signal), {
      Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
        receiver.calls++;
        const answer = decide(signal);
        if ('grpc' in answer) {
          const metadata = new grpc.Metadata();
          if (answer.retryAfterMs !== undefined) metadata.set('grpc-status-details-bin', statusDetails(answer));
          return callback({ code: answer.grpc, details: answer.details ?? '', metadata });
        }
        const headers = Object.fromEntries(Object.entries(call.metadata.getMap()).map(([k, v]) => [k, String(v)]));
        // As a collector does: a request that does not decode is INVALID_ARGUMENT.
        let request: ExportRequest;
        try {
          request = decodeProtobuf(signal, call.request);
        } catch (error) {
          return callback({ code: grpc.status.INVALID_ARGUMENT, details: (error as Error).message });
        }
        record({ signal, request, headers, via: 'grpc', encoding: 'protobuf' });
        callback(null, responseOf(signal, answer, 'protobuf').body);
      },
    });
  }
  const grpcPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );

  const http = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    receiver.calls++;
    const signal = (Object.keys(SIGNALS) as Signal[]).find((name) => req.url === `/v1/${name}`);
    if (!signal || req.method !== 'POST') return res.writeHead(404).end('404 page not found');
    const encoding = HTTP_ENCODINGS[(req.headers['content-type'] ?? '').split(';')[0]!.trim()];
    if (!encoding) return res.writeHead(415).end('unsupported content type');
    const answer = decide(signal);
    if ('grpc' in answer) {
      // Whole seconds, as RFC 9110's delay-seconds and the collector write it (a wait shorter than one: 1).
      if (answer.retryAfterMs !== undefined)
        res.setHeader('Retry-After', String(Math.ceil(answer.retryAfterMs / 1000)));
      // As the collector: a failure's body is a google.rpc.Status in the request's encoding (OTLP/HTTP "MUST").
      const status = { code: answer.grpc, message: answer.details ?? '' };
      const { type } = otlpMessages();
      return res
        .writeHead(answer.http ?? 503, { 'Content-Type': `application/${encoding === 'json' ? 'json' : 'x-protobuf'}` })
        .end(encoding === 'json' ? JSON.stringify(status) : type('Status').encode(status).finish());
    }
    const raw = Buffer.concat(parts);
    const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    let request: ExportRequest;
    try {
      request = encoding === 'json' ? decodeJson(signal, body.toString('utf8')) : decodeProtobuf(signal, body);
    } catch (error) {
      return res.writeHead(400).end((error as Error).message);
    }
    record({ signal, request, headers, via: 'http', encoding });
    const response = responseOf(signal, answer, encoding);
    res.writeHead(200, { 'Content-Type': response.contentType }).end(response.body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));

  return Object.assign(receiver, {
    grpcAddress: `127.0.0.1:${grpcPort}`,
    httpUrl: `http://127.0.0.1:${(http.address() as { port: number }).port}`,
    stop: async () => {
      http.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
        new Promise<void>((resolve) => http.close(() => resolve())),
      ]);
    },
  });
}
