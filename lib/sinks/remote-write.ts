import type * as Snappy from 'snappy';
import { featurePackage } from '../features.js';
import { httpBatchingSink, type HttpSinkOptions } from './http/batching-sink.js';
import { recordRequests, type RecordRequest } from './framing/record-requests.js';
import type { Sink } from '../../operators/deliver.js';

export interface RemoteWriteSinkOptions extends HttpSinkOptions {
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
  return httpBatchingSink<RecordRequest>(
    { ...options, batchSize, batchUnit: 'records', maxAge: options.maxAge ?? REMOTE_WRITE_DEFAULTS.maxAge },
    {
      sink: 'remote_write',
      url: new URL(options.url),
      headers: { ...options.headers, ...PROTOCOL_HEADERS },
      hint: refusalHint,
    },
    recordRequests(batchSize, (preambles, records) => snappy.compressSync(Buffer.concat([...preambles, ...records]))),
  );
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
      return "url must be the receiver's write endpoint (Prometheus: /api/v1/write with --web.enable-remote-write-receiver; VictoriaMetrics: /api/v1/write)";
    case 413:
      return 'the request is too large: lower batch_size';
    default:
      return undefined;
  }
}
