import * as grpc from '@grpc/grpc-js';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { otlpMessages } from '../../../lib/protocols/otlp.js';

/**
 * A stand-in for an OpenTelemetry collector (none installs here): OTLP/gRPC `Export` of the
 * metrics and logs services, and OTLP/HTTP `POST /v1/metrics`, `/v1/logs` with protobuf bodies.
 * Requests are decoded with the official opentelemetry-proto files (shipped by
 * @opentelemetry/otlp-grpc-exporter-base@0.38, the `otlp-protos` dev dependency), not with svc's
 * own declaration of the messages, so what it reads is what a collector would read. Its answers
 * (partial success, RetryInfo) are encoded with svc's declaration: those 0.38 protos predate
 * partial success. spec/sinks/otlp-receiver.spec.ts proves it with the official exporters.
 */

const PROTOS = join(dirname(createRequire(import.meta.url).resolve('otlp-protos/package.json')), 'build', 'protos');
const official = new protobuf.Root();
official.resolvePath = (_origin, target) => join(PROTOS, target);
official.loadSync(
  [
    'opentelemetry/proto/collector/metrics/v1/metrics_service.proto',
    'opentelemetry/proto/collector/logs/v1/logs_service.proto',
  ],
  { keepCase: true },
);

const REQUESTS = {
  metrics: official.lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest'),
  logs: official.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
};
const SERVICES = {
  metrics: 'opentelemetry.proto.collector.metrics.v1.MetricsService',
  logs: 'opentelemetry.proto.collector.logs.v1.LogsService',
};

export type Signal = keyof typeof REQUESTS;

/** A decoded request as plain JSON (proto field names, 64-bit numbers as strings, defaults filled in). */
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
  }[];
  /** Every call, answered or not. */
  calls: number;
  answer(next: (signal: Signal) => OtlpAnswer): void;
  stop(): Promise<void>;
}

function decode(signal: Signal, bytes: Uint8Array): ExportRequest {
  const type = REQUESTS[signal];
  return type.toObject(type.decode(bytes), { longs: String, enums: String, defaults: true, arrays: true });
}

function responseOf(answer: Extract<OtlpAnswer, { accept: true }>): Buffer {
  const { type } = otlpMessages();
  const partialSuccess = answer.rejected
    ? { rejected: answer.rejected, errorMessage: answer.message ?? '' }
    : undefined;
  return Buffer.from(
    type('ExportResponse')
      .encode(partialSuccess ? { partialSuccess } : {})
      .finish(),
  );
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

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: OtlpReceiver['received'] = [];
  let decide: (signal: Signal) => OtlpAnswer = () => ({ accept: true });
  const receiver = {
    received,
    calls: 0,
    answer(next: (signal: Signal) => OtlpAnswer) {
      decide = next;
    },
  };

  const server = new grpc.Server();
  for (const signal of ['metrics', 'logs'] as const) {
    const definition = {
      Export: {
        path: `/${SERVICES[signal]}/Export`,
        requestStream: false,
        responseStream: false,
        requestSerialize: (value: Buffer) => value,
        requestDeserialize: (bytes: Buffer) => bytes,
        responseSerialize: (value: Buffer) => value,
        responseDeserialize: (bytes: Buffer) => bytes,
      },
    };
    server.addService(definition, {
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
          request = decode(signal, call.request);
        } catch (error) {
          return callback({ code: grpc.status.INVALID_ARGUMENT, details: (error as Error).message });
        }
        received.push({ signal, request, headers, via: 'grpc' });
        callback(null, responseOf(answer));
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
    const signal = req.url === '/v1/metrics' ? 'metrics' : req.url === '/v1/logs' ? 'logs' : undefined;
    if (!signal || req.method !== 'POST') return res.writeHead(404).end('404 page not found');
    if (req.headers['content-type'] !== 'application/x-protobuf')
      return res.writeHead(415).end('unsupported content type');
    const answer = decide(signal);
    if ('grpc' in answer) {
      if (answer.retryAfterMs !== undefined) res.setHeader('Retry-After', String(answer.retryAfterMs / 1000));
      return res.writeHead(answer.http ?? 503).end(answer.details ?? '');
    }
    const raw = Buffer.concat(parts);
    const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    let request: ExportRequest;
    try {
      request = decode(signal, body);
    } catch (error) {
      return res.writeHead(400).end((error as Error).message);
    }
    received.push({ signal, request, headers, via: 'http' });
    res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end(responseOf(answer));
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
