import type * as Snappy from 'snappy';
import type { EncodedBatch } from '../../operators/model/batch.js';
import { featurePackage } from '../features.js';
import type { Request } from './batching.js';
import { httpBatchingSink, type HttpBatchOptions } from './http-batching.js';
import type { Sink } from './sink.js';

export interface RemoteWriteSinkOptions extends HttpBatchOptions {
  /** The receiver's write endpoint (Prometheus and VictoriaMetrics: `…/api/v1/write`). */
  readonly url: string;
  /** Series (records) per request; default {@link REMOTE_WRITE_DEFAULTS}. */
  readonly batchSize?: number;
}

/** Prometheus' own queue manager sends up to 500 series per request and waits at most 5 s. */
export const REMOTE_WRITE_DEFAULTS = { batchSize: 500, maxAge: 5000 } as const;

/** The headers remote write 1.0 requires; they win over custom headers of the same name. */
const PROTOCOL_HEADERS = {
  'Content-Encoding': 'snappy',
  'Content-Type': 'application/x-protobuf',
  'X-Prometheus-Remote-Write-Version': '0.1.0',
} as const;

/** One POST: a snappy-compressed WriteRequest. */
interface WriteRequestBody extends Request {
  readonly body: Uint8Array;
}

/**
 * Sink for Prometheus remote write 1.0 (Prometheus with `--web.enable-remote-write-receiver`,
 * VictoriaMetrics, Mimir, Cortex, Thanos receive): a batching HTTP sink whose requests are
 * `WriteRequest`s of at most `batchSize` series (whole events: a histogram's series set is
 * never split), snappy block-compressed. The `remote_write` encoder's records are
 * `WriteRequest.timeseries` fields and its preamble the metric's metadata, so a request is the
 * preambles of its chunks followed by their records, compressed. Retries 5xx, 429 and network
 * errors; other 4xx are final, with a hint for the usual causes.
 */
export function remoteWriteSink(options: RemoteWriteSinkOptions): Sink {
  const snappy = featurePackage<typeof Snappy>('remote-write', 'snappy');
  const batchSize = options.batchSize ?? REMOTE_WRITE_DEFAULTS.batchSize;
  return httpBatchingSink<WriteRequestBody>(
    { ...options, batchSize, batchUnit: 'records', maxAge: options.maxAge ?? REMOTE_WRITE_DEFAULTS.maxAge },
    { sink: 'remote_write', url: new URL(options.url), headers: { ...options.headers, ...PROTOCOL_HEADERS }, hint: refusalHint },
    writeRequests(batchSize, (data) => snappy.compressSync(data)),
  );
}

/**
 * Cuts buffered chunks into requests of at most `limit` records, at event boundaries (at least
 * one event each); a request's body is the distinct preambles of its chunks, then its records.
 */
export function writeRequests(limit: number, compress: (data: Uint8Array) => Uint8Array): (chunks: readonly EncodedBatch[]) => WriteRequestBody[] {
  return (chunks) => {
    const requests: WriteRequestBody[] = [];
    let preambles = new Set<Uint8Array>();
    let parts: Uint8Array[] = [];
    let records = 0;
    let events = 0;
    let bytes = 0;
    const close = () => {
      requests.push({ size: events, bytes, body: compress(Buffer.concat([...preambles, ...parts])) });
      preambles = new Set();
      parts = [];
      records = events = bytes = 0;
    };
    for (const chunk of chunks) {
      const data = chunk.data as Uint8Array;
      const { ends, perEvent } = chunk.frames;
      for (let row = 0; row < ends.length; ) {
        if (records > 0 && records + perEvent > limit) close();
        const take = Math.min(ends.length - row, Math.max(perEvent, Math.floor((limit - records) / perEvent) * perEvent));
        const start = row === 0 ? 0 : ends[row - 1]!;
        const end = ends[row + take - 1]!;
        if (chunk.preamble) preambles.add(chunk.preamble as Uint8Array);
        parts.push(data.subarray(start, end));
        records += take;
        events += take / perEvent;
        bytes += end - start;
        row += take;
      }
    }
    if (records > 0) close();
    return requests;
  };
}

/** What the usual refusals of a remote-write receiver mean and how to fix them. */
function refusalHint(status: number, body: string): string | undefined {
  if (status === 400 && /out of order/i.test(body)) {
    return 'the receiver refuses samples older than the newest of their series (out of order): several entries write the same series, or start_time went back; Prometheus takes them only with storage.tsdb.out_of_order_time_window set';
  }
  if (status === 400 && /too old|out of bounds/i.test(body)) {
    return 'the receiver refuses samples this old (start_time in the past): Prometheus takes samples older than its head block (about 1 h) only with storage.tsdb.out_of_order_time_window set (for example 6h) in prometheus.yml';
  }
  switch (status) {
    case 401:
    case 403:
      return 'set the credentials or the tenant header (X-Scope-OrgID) in headers';
    case 404:
    case 405:
      return 'url must be the receiver\'s write endpoint (Prometheus: /api/v1/write with --web.enable-remote-write-receiver; VictoriaMetrics: /api/v1/write)';
    case 413:
      return 'the request is too large: lower batch_size';
    default:
      return undefined;
  }
}
