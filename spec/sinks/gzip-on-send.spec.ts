import { expect } from 'chai';
import { settle } from '../support/clock.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { syncBuiltinESMExports } from 'node:module';
import zlib, { gunzipSync } from 'node:zlib';
import { gzippedBodies } from '../../lib/sinks/http/batching-sink.js';
import type { EncodedBatch } from '../../operators/model/batch.js';
import type { Sink, SinkReport } from '../../operators/deliver.js';
import { seriesOf } from '../../operators/model/series.js';
import { otlpLogs } from '../../lib/encoders/otlp.js';
import { logstoreSink } from '../../lib/sinks/logstore.js';
import { otlpHttpSink } from '../../lib/sinks/otlp-http.js';
import { chunk, logBatch } from '../support/batches.js';
import { startHttpReceiver, type HttpReceiver } from '../support/backends/http-receiver.js';

/** Lines that do not compress to nothing, so gzip takes a while (tens of ms for the big ones). */
function lines(count: number, length: number): string[] {
  const seed = Math.random().toString(36);
  return Array.from({ length: count }, (_, i) => `${seed}-${i}-${(i * 7919).toString(36).repeat(length / 8)}`);
}

/** logstore and otlp_http with `compression: gzip`, and a chunk of `count` records of about `length` bytes. */
const SINKS: {
  name: string;
  sink: (url: string, settings: { flushTimeout?: number }) => Sink;
  chunk: (count: number, length: number) => EncodedBatch;
}[] = [
  {
    name: 'logstore',
    sink: (url, settings) =>
      logstoreSink({ url, compression: 'gzip', batchSize: 1 << 30, maxAge: 0, ...QUICK, ...settings }),
    chunk: (count, length) =>
      chunk(lines(count, length).join('\n') + '\n', count, { series: [seriesOf({ job: 'svc' })], times: [Date.now()] }),
  },
  {
    name: 'otlp_http',
    sink: (url, settings) =>
      otlpHttpSink({ url, signal: 'logs', compression: 'gzip', batchSize: 1 << 30, maxAge: 0, ...QUICK, ...settings }),
    chunk: (count, length) =>
      otlpLogs().encode(logBatch(lines(count, length).map((message) => ({ severity: 'info', message })))),
  },
];

const QUICK = { retry: { maxAttempts: 4, initialBackoff: 10, maxBackoff: 20 }, random: () => 0 };

/**
 * Counts the calls of zlib's gzip while `body` runs, failing those `fails` says (by call number, from 1), and the
 * event loop turns while a compression runs (none when it would hold the loop). With `hold`, a compression runs
 * only once the promise `hold` returns at its call settles: one that outlasts what `body` awaits, which ends (and
 * has its result taken) before this returns.
 */
async function countingGzip(
  body: () => Promise<void>,
  { fails = () => false, hold }: { fails?: (call: number) => boolean; hold?: () => Promise<void> } = {},
): Promise<{ calls: number; turns: number }> {
  const original = zlib.gzip;
  let calls = 0;
  let turns = 0;
  let running = 0;
  let idle: (() => void) | undefined;
  const turn = (): void => {
    if (running === 0) return;
    turns++;
    setImmediate(turn);
  };
  const compress = (input: zlib.InputType, done: zlib.CompressCallback) =>
    original(input, (error, compressed) => {
      running--;
      done(error, compressed);
      if (running === 0) idle?.();
    });
  zlib.gzip = ((input: zlib.InputType, done: zlib.CompressCallback) => {
    if (fails(++calls)) return setImmediate(() => done(new Error('zlib ran out of memory'), Buffer.alloc(0)));
    if (running++ === 0) setImmediate(turn);
    if (hold) void hold().then(() => compress(input, done));
    else compress(input, done);
  }) as typeof zlib.gzip;
  syncBuiltinESMExports();
  try {
    await body();
    if (running > 0) await new Promise<void>((resolve) => (idle = resolve));
    // What took the compressed body has run (a post, or its refusal).
    await settle();
  } finally {
    zlib.gzip = original;
    syncBuiltinESMExports();
  }
  return { calls, turns };
}

describe('compression: gzip (logstore, otlp_http): each request compressed as it is sent', () => {
  let receiver: HttpReceiver;
  beforeEach(async () => (receiver = await startHttpReceiver()));
  afterEach(async () => receiver.stop());

  it('a compressed body replaces the raw one in its request: a batch waiting on its last request holds one copy of each', async () => {
    const gzipped = gzippedBodies();
    const raw = JSON.stringify({ line: 'x'.repeat(1_000_000) });
    const request: { body: string | Uint8Array } = { body: raw };
    const body = await gzipped(request);
    expect(request.body).to.equal(body);
    expect(gunzipSync(body).toString()).to.equal(raw);
    expect(await gzipped(request), 'compressed once').to.equal(body);
  });

  for (const { name, sink: sinkOf, chunk: chunkOf } of SINKS) {
    describe(name, () => {
      it('compressed once, off the event loop, however often it is retried: 503 twice, then 204', async () => {
        let posts = 0;
        receiver.answer(() => (++posts <= 2 ? { status: 503 } : { status: 204 }));
        const sink = sinkOf(receiver.url, {});
        const reports: SinkReport[] = [];
        sink.reports!.subscribe((r) => reports.push(r));
        const { calls, turns } = await countingGzip(async () => {
          sink.write(chunkOf(5_000, 200));
          await sink.close();
        });
        expect(reports.map((r) => r.kind)).to.deep.equal(['retrying', 'retrying', 'delivered']);
        expect(calls, 'gzip calls').to.equal(1);
        expect(turns, 'event loop turns while compressing').to.be.above(0);
        const [first, ...retries] = receiver.requests.map((r) => r.raw);
        expect(retries).to.have.length(2);
        for (const retry of retries) expect(retry.equals(first!), 'the retry sends the same bytes').to.equal(true);
        expect(receiver.requests.every((r) => r.headers['content-encoding'] === 'gzip')).to.equal(true);
        expect(gunzipSync(first!).length).to.be.above(first!.length * 2);
      });

      it('a gzip that failed is tried again with the request, and the retry delivers', async () => {
        const sink = sinkOf(receiver.url, {});
        const reports: SinkReport[] = [];
        sink.reports!.subscribe((r) => reports.push(r));
        const { calls } = await countingGzip(
          async () => {
            sink.write(chunkOf(10, 50));
            await sink.close();
          },
          { fails: (call) => call === 1 },
        );
        expect(reports.map((r) => r.kind)).to.deep.equal(['retrying', 'delivered']);
        expect(calls).to.equal(2);
        expect(receiver.accepted).to.have.length(1);
      });

      it('a request given up while it is compressed (its flush out of time) is never posted', async () => {
        const sink = sinkOf(receiver.url, { flushTimeout: 2 });
        const reports: SinkReport[] = [];
        sink.reports!.subscribe((r) => reports.push(r));
        // Every HTTP request this process begins (node:http says so as it makes one).
        let posts = 0;
        const posted = () => posts++;
        subscribe('http.client.request.start', posted);
        let compressing = false;
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        try {
          await countingGzip(
            async () => {
              sink.write(chunkOf(10, 50));
              const closed = await sink.close().then(
                () => 'closed',
                (error: Error) => error.message,
              );
              expect(closed).to.match(/acknowledged nothing/);
              expect(compressing, 'given up while its body was compressed').to.equal(true);
              release();
            },
            {
              hold: () => {
                compressing = true;
                return held;
              },
            },
          );
        } finally {
          unsubscribe('http.client.request.start', posted);
        }
        expect(new Set(reports.map((r) => r.kind))).to.deep.equal(new Set(['failed']));
        expect(posts, 'requests begun once the compression ended').to.equal(0);
        expect(receiver.requests).to.deep.equal([]);
      });
    });
  }
});
