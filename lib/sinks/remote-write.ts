import type * as Snappy from 'snappy';
import { featurePackage } from '../features.js';
import { httpBatchingSink, type HttpSinkOptions } from './http/batching-sink.js';
import { retryableStatus, type HttpAnswer, type HttpEndpoint } from './http/endpoint.js';
import { cutRecords, preamblesOf, type RecordCut } from './framing/record-requests.js';
import { remoteWriteV2Requests } from './framing/remote-write-v2.js';
import { v1Records, type RemoteWriteProtocol } from '../protocols/remote-write-v2.js';
import { SinkError } from './core/errors.js';
import type { Receipt } from './core/batching-sink.js';
import type { Sink, WrittenCounts } from '../../operators/deliver.js';

export type { RemoteWriteProtocol };

export interface RemoteWriteSinkOptions extends HttpSinkOptions {
  /** The receiver's write endpoint (Prometheus and VictoriaMetrics: `…/api/v1/write`). */
  readonly url: string;
  /** Series (records) per request; default {@link REMOTE_WRITE_DEFAULTS}. */
  readonly batchSize?: number;
  /**
   * The protocol to send; default 1.0. 2.0 falls back to 1.0 for the rest of the run when refused with 415, or
   * answered without the written-samples headers.
   */
  readonly protocol?: RemoteWriteProtocol;
}

/** Prometheus' own queue manager sends up to 500 series per request and waits at most 5 s. */
export const REMOTE_WRITE_DEFAULTS = { batchSize: 500, maxAge: 5000 } as const;

/** The headers of each version; they win over custom headers of the same name. */
const PROTOCOL_HEADERS: Readonly<Record<RemoteWriteProtocol, Readonly<Record<string, string>>>> = {
  '1.0': {
    'Content-Encoding': 'snappy',
    'Content-Type': 'application/x-protobuf',
    'X-Prometheus-Remote-Write-Version': '0.1.0',
  },
  '2.0': {
    'Content-Encoding': 'snappy',
    'Content-Type': 'application/x-protobuf;proto=io.prometheus.write.v2.Request',
    'X-Prometheus-Remote-Write-Version': '2.0.0',
  },
};

/** The answer of a receiver that does not take the 2.0 message (the spec's way to say so). */
const UNSUPPORTED_MEDIA_TYPE = 415;

/**
 * Sink for Prometheus remote write (Prometheus with `--web.enable-remote-write-receiver`, VictoriaMetrics,
 * Mimir, Cortex, Thanos receive): a batching HTTP sink whose requests carry at most `batchSize` series (whole
 * events: a histogram's series set is never split), snappy block-compressed. Retries 5xx, 429 and network
 * errors, except a "too old sample" (Prometheus' 500 for a sample beyond its out-of-order window); other 4xx are
 * final, with a hint for the usual causes.
 *
 * Every chunk of the `remote_write` encoder carries its 1.0 `WriteRequest.timeseries` records (and the metric's
 * metadata as its preamble). A 1.0 request is the preambles of its chunks followed by their records, joined
 * without being read. A 2.0 request (`io.prometheus.write.v2.Request`) needs one symbol table for all its
 * series, so it is written from the rows when it is sent (framing/remote-write-v2.ts): an entry with a 2.0 sink
 * has its encoder keep the rows' columns in each chunk and only measure the 1.0 records, not write them. Requests are cut by the records either way, so when a receiver refuses 2.0
 * with 415 the same request goes again at once as 1.0, its records written from its rows then, and so does
 * every request after it, with one warning: nothing it would have taken is lost. A 2xx answer's
 * `X-Prometheus-Remote-Write-{Samples,Histograms,Exemplars}-Written` headers are reported with the delivery; a
 * 2xx answer to 2.0 without them comes from a receiver that took the body for 1.0 (and stored nothing of it), and
 * is answered the same way as a 415.
 */
export function remoteWriteSink(options: RemoteWriteSinkOptions): Sink {
  const snappy = featurePackage<typeof Snappy>('remote-write', 'snappy');
  const batchSize = options.batchSize ?? REMOTE_WRITE_DEFAULTS.batchSize;
  let protocol = options.protocol ?? '1.0';
  /** Said with the first request that went through after the receiver refused 2.0. */
  let fallback: string | undefined;
  const compress = (data: Buffer): Buffer => snappy.compressSync(data);
  const v2Body = remoteWriteV2Requests(compress);
  const v1Body = ({ runs }: RecordCut): Buffer =>
    compress(Buffer.concat([...preamblesOf(runs), ...runs.map(({ chunk, from, to }) => v1Records(chunk, from, to))]));
  /** Posts a compressed body. */
  const post = async (http: HttpEndpoint, version: RemoteWriteProtocol, body: Buffer): Promise<Receipt> => {
    const answer = await http.post(body, PROTOCOL_HEADERS[version]);
    // Said once by the batching core (Receipt.warning), with the first request taken after the fallback.
    return { written: writtenCounts(answer), warning: fallback };
  };
  return httpBatchingSink<RecordCut>(
    { ...options, batchSize, batchUnit: 'records', maxAge: options.maxAge ?? REMOTE_WRITE_DEFAULTS.maxAge },
    {
      sink: 'remote_write',
      url: new URL(options.url),
      headers: { ...options.headers, ...PROTOCOL_HEADERS['1.0'] },
      hint: refusalHint,
      retryable: (status, body) => retryableStatus(status) && !PERMANENT_500.some((refusal) => refusal.test(body)),
    },
    (chunks) => cutRecords(batchSize, chunks),
    async (request, http) => {
      if (protocol === '1.0') return post(http, '1.0', v1Body(request));
      /** Sends `request` again as 1.0, and every request after it, saying why once. */
      const fallBack = (why: string) => {
        protocol = '1.0';
        fallback = why;
        return post(http, '1.0', v1Body(request));
      };
      try {
        const receipt = await post(http, '2.0', v2Body(request.runs));
        if (receipt.written) return receipt;
        // A 2.0 receiver says what it wrote (the spec makes the headers mandatory); one that does not read every
        // body as a 1.0 WriteRequest (Prometheus 2.x, VictoriaMetrics 1.79): it stored nothing of this one.
        return fallBack(
          'the receiver answered remote write 2.0 without saying what it wrote (no X-Prometheus-Remote-Write-*-Written headers): it reads 1.0 only, so the request went again as 1.0, and 1.0 from now on',
        );
      } catch (error) {
        if (!(error instanceof SinkError) || error.status !== UNSUPPORTED_MEDIA_TYPE) throw error;
        return fallBack(`the receiver does not take remote write 2.0 (${error.detail}): sending 1.0 from now on`);
      }
    },
  );
}

/** What a 2xx answer says was written; undefined when it says nothing (a 1.0 receiver). */
function writtenCounts({ headers }: HttpAnswer): WrittenCounts | undefined {
  const count = (what: string) => Number(headers[`x-prometheus-remote-write-${what}-written`] ?? NaN);
  const samples = count('samples');
  const histograms = count('histograms');
  const exemplars = count('exemplars');
  if (Number.isNaN(samples) && Number.isNaN(histograms) && Number.isNaN(exemplars)) return undefined;
  return { samples: samples || 0, histograms: histograms || 0, exemplars: exemplars || 0 };
}

/**
 * A sample older than the receiver's out-of-order window: Prometheus 2.x answers 500 for it, which no retry
 * changes (a backfill spent its retries on it, then lost the newer samples queued behind at the flush deadline).
 */
const TOO_OLD_SAMPLE = /too old sample/i;
/** Prometheus without `--enable-feature=native-histograms` answers 500 to a request holding one, every time. */
const NATIVE_HISTOGRAMS_DISABLED = /native histograms are disabled/i;
/** 500s that no retry changes: retried, they only hold back (and at the flush deadline lose) the requests behind. */
const PERMANENT_500 = [TOO_OLD_SAMPLE, NATIVE_HISTOGRAMS_DISABLED];

/** What the usual refusals of a remote-write receiver mean and how to fix them. */
function refusalHint(status: number, body: string): string | undefined {
  if (TOO_OLD_SAMPLE.test(body)) {
    return 'the receiver refuses samples older than its out-of-order window (start_time further back than it): Prometheus takes them only when storage.tsdb.out_of_order_time_window in prometheus.yml covers the whole backfilled span, from start_time to now';
  }
  if (NATIVE_HISTOGRAMS_DISABLED.test(body)) {
    return 'the receiver does not take native histograms, and refuses the whole request for one: start Prometheus with --enable-feature=native-histograms, or write the classic histogram only (buckets without native)';
  }
  if (status === 400 && /out of order/i.test(body)) {
    return 'the receiver refuses samples older than the newest of their series (out of order): several entries write the same series, or start_time went back; Prometheus takes them only with storage.tsdb.out_of_order_time_window set; native histograms only where the receiver takes them out of order (Prometheus 2.42 does not, whatever the window)';
  }
  if (status === 400 && /duplicate sample/i.test(body)) {
    return 'several samples of one series fell in one millisecond with different values (remote write carries milliseconds: a series above 1000 events/s, a burst that takes it past that, or two entries writing the same series), and Prometheus refuses the whole request for one: keep each series at most 1000 events/s';
  }
  if (status === 400 && /too old|out of bounds/i.test(body)) {
    return 'the receiver refuses samples this old (start_time in the past): Prometheus takes samples older than its head block (about 1 h) only with storage.tsdb.out_of_order_time_window set in prometheus.yml, as far back as start_time goes (for example 8d for a start_time of -7d); native histograms only where the receiver takes them out of order (Prometheus 2.42 does not, whatever the window)';
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
