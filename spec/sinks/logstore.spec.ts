import { expect } from 'chai';
import pinoLoki from 'pino-loki';
import type { EncodedBatch } from '../../operators/model/batch.js';
import type { SinkReport } from '../../operators/deliver.js';
import { seriesOf } from '../../operators/model/series.js';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { logstoreSink, pushUrl } from '../../lib/sinks/logstore.js';
import { chunk, logBatch } from '../support/batches.js';
import { jsonLinesLogs } from '../../lib/encoders/json-lines-logs.js';
import { startLokiReceiver, type LokiReceiver } from '../support/backends/loki-receiver.js';
import { freeTcpPort, waitFor } from '../support/backends/ports.js';
import { metricEntry } from '../support/entries.js';

const QUICK_RETRY = { maxAttempts: 4, initialBackoff: 10, maxBackoff: 20 };

function lineChunk(labels: Record<string, string>, line: string, at = Date.now()): EncodedBatch {
  return chunk(`${line}\n`, 1, { series: [seriesOf(labels)], times: [at] });
}

describe('logstore sink (Loki push API)', () => {
  let receiver: LokiReceiver;
  afterEach(async () => receiver?.stop());

  describe('the test receiver', () => {
    it('accepts what a real Loki client (pino-loki) sends, tenant header included', async () => {
      receiver = await startLokiReceiver({ requireTenant: true });
      const transport = await pinoLoki({
        host: receiver.url,
        labels: { app: 'svc-spec' },
        propsToLabels: ['component'],
        headers: { 'X-Scope-OrgID': 'tenant-a' },
        batching: false,
      });
      const time = Date.now();
      transport.write(`${JSON.stringify({ level: 30, time, hostname: 'box', component: 'api', msg: 'hello' })}\n`);
      transport.write(
        `${JSON.stringify({ level: 50, time: time + 1, hostname: 'box', component: 'db', msg: 'boom' })}\n`,
      );
      transport.end();
      const entries = await waitFor('two entries from pino-loki', () =>
        receiver.entries.length >= 2 ? receiver.entries : undefined,
      );
      const byMessage = Object.fromEntries(entries.map((e) => [JSON.parse(e.line).msg as string, e]));
      expect(byMessage.hello!.labels).to.deep.equal({
        level: 'info',
        hostname: 'box',
        app: 'svc-spec',
        component: 'api',
      });
      expect(byMessage.boom!.labels).to.deep.include({ level: 'error', component: 'db' });
      expect(byMessage.hello!.ts).to.equal(`${time}000000`);
      expect(entries.every((e) => e.tenant === 'tenant-a')).to.equal(true);
      expect(receiver.pushes.every((p) => p.status === 204)).to.equal(true);
    });

    it('refuses what Loki refuses: a bad label name from the same client gets 400', async () => {
      receiver = await startLokiReceiver();
      const transport = await pinoLoki({
        host: receiver.url,
        labels: { 'bad-name': 'x' },
        batching: false,
        silenceErrors: true,
      });
      transport.write(`${JSON.stringify({ level: 30, time: Date.now(), hostname: 'box', msg: 'hello' })}\n`);
      transport.end();
      const push = await waitFor('a push', () => receiver.pushes[0]);
      expect(push.status).to.equal(400);
      expect(push.error).to.match(/invalid label name "bad-name"/);
      expect(receiver.entries).to.deep.equal([]);
    });
  });

  it('appends the push path to the base address', () => {
    expect(pushUrl('http://loki:3100').href).to.equal('http://loki:3100/loki/api/v1/push');
    expect(pushUrl('http://gw/tenant-x/').href).to.equal('http://gw/tenant-x/loki/api/v1/push');
    expect(pushUrl('http://loki:3100/loki/api/v1/push').href).to.equal('http://loki:3100/loki/api/v1/push');
  });

  it('delivers a running entry: one stream per label set, ns timestamps, max_streams_per_push and the tenant header respected', async () => {
    receiver = await startLokiReceiver({ requireTenant: true });
    const entry = metricEntry({
      name: 'queue_depth',
      rate: 200,
      duration: 400,
      generator: { type: 'step', start: 0, step_size: 1 },
      labels: { job: 'svc' },
      dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 3 }],
      sink: { type: 'logstore', url: receiver.url, max_streams_per_push: 2, headers: { 'X-Scope-OrgID': 'team-a' } },
    });
    const run = runEntry(entry);
    expect(await run.done).to.deep.equal({});
    const stats = run.stats.snapshot(Date.now());
    expect(stats).to.include({ total_events: 80, total_sink_failures: 0, degraded: false });
    expect(stats.last_successful_write_at).to.not.equal(null);

    expect(receiver.entries).to.have.length(80);
    expect(
      receiver.pushes.every((p) => p.status === 204 && p.streams <= 2 && p.headers['x-scope-orgid'] === 'team-a'),
    ).to.equal(true);
    expect(
      receiver.pushes.some((p) => p.streams === 2),
      'a flush of 3 streams was split',
    ).to.equal(true);
    for (const e of receiver.entries) {
      const [, pod, value, ms] = /^queue_depth\{job="svc",pod="(pod_\d)"\} (\d+) (\d+)$/.exec(e.line)!;
      expect(e.labels).to.deep.equal({ job: 'svc', pod });
      expect(Number(value) % 3).to.equal(Number(pod!.slice(4)));
      expect(e.ts).to.equal(`${ms}000000`);
    }
    const values = receiver.entries.map((e) => Number(e.line.split(' ')[1])).sort((x, y) => x - y);
    expect(values).to.deep.equal(Array.from({ length: 80 }, (_, i) => i));
  });

  it('compression: gzip sends each push gzip-compressed with Content-Encoding: gzip, as Loki takes it', async () => {
    receiver = await startLokiReceiver();
    const entry = metricEntry({
      name: 'queue_depth',
      rate: 1000,
      duration: 200,
      generator: { type: 'step', start: 0, step_size: 1 },
      labels: { job: 'svc' },
      sink: { type: 'logstore', url: receiver.url, compression: 'gzip' },
    });
    const run = runEntry(entry);
    expect(await run.done).to.deep.equal({});
    expect(receiver.entries).to.have.length(200);
    expect(receiver.pushes.every((p) => p.status === 204 && p.headers['content-encoding'] === 'gzip')).to.equal(true);
    const sent = receiver.pushes.reduce((sum, p) => sum + Number(p.headers['content-length']), 0);
    const lines = receiver.entries.reduce((sum, e) => sum + e.line.length + e.ts.length, 0);
    expect(sent, 'bytes on the wire, less than the lines and times alone').to.be.below(lines / 3);
  });

  it('identical records within one millisecond (4000 events/s) all arrive: each is stamped with its tick to the nanosecond', async () => {
    receiver = await startLokiReceiver();
    const at = Date.now();
    const same = Array.from({ length: 4 }, () => ({ severity: 'info', message: 'cache hit', labels: { app: 'shop' } }));
    const batch = { ...logBatch(same, at), offset: Float64Array.of(0, 0.25, 0.5, 0.75) };
    const sink = logstoreSink({ url: receiver.url, retry: QUICK_RETRY });
    sink.write(jsonLinesLogs().encode(batch));
    await sink.close();
    expect(receiver.entries.map((e) => e.ts)).to.deep.equal(
      ['000000', '250000', '500000', '750000'].map((ns) => `${at}${ns}`),
    );
  });

  it("stamps a record with its tick's nanoseconds exactly, a third of a millisecond as 333333", async () => {
    receiver = await startLokiReceiver();
    const at = Date.now();
    const same = Array.from({ length: 3 }, () => ({ severity: 'info', message: 'cache hit', labels: { app: 'shop' } }));
    // anchor + offset, a double near 1.8e12, has steps of a quarter of a microsecond: 1/3 came out some 80 ns off.
    const batch = { ...logBatch(same, at), offset: Float64Array.of(1 / 3, 2 / 3, 1) };
    const sink = logstoreSink({ url: receiver.url, retry: QUICK_RETRY });
    sink.write(jsonLinesLogs().encode(batch));
    await sink.close();
    expect(receiver.entries.map((e) => e.ts)).to.deep.equal([`${at}333333`, `${at}666667`, `${at + 1}000000`]);
  });

  it('a record naming a span carries its ids as structured metadata, not as labels', async () => {
    receiver = await startLokiReceiver();
    const context = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', flags: 1 };
    const sink = logstoreSink({ url: receiver.url, retry: QUICK_RETRY });
    sink.write(
      jsonLinesLogs().encode(
        logBatch(
          [
            { severity: 'error', message: 'charge failed', labels: { app: 'payment' }, context },
            { severity: 'info', message: 'charged', labels: { app: 'payment' } },
          ],
          Date.now(),
        ),
      ),
    );
    await sink.close();
    const [named, plain] = receiver.entries;
    expect(named!.labels).to.deep.equal({ app: 'payment' });
    expect(named!.metadata).to.deep.equal({ trace_id: context.traceId, span_id: context.spanId });
    expect(plain!.metadata).to.equal(undefined);
  });

  it('retries 429 and 5xx answers, then delivers', async () => {
    receiver = await startLokiReceiver();
    receiver.failNext(429, 2);
    const sink = logstoreSink({ url: receiver.url, retry: QUICK_RETRY });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    sink.write(lineChunk({ app: 'a' }, 'hello'));
    await sink.close();
    expect(reports.map((r) => r.kind)).to.deep.equal(['retrying', 'retrying', 'delivered']);
    expect((reports[0] as { error: Error }).error.message).to.match(
      /answered 429 Too Many Requests: "Ingestion rate limit exceeded"/,
    );
    expect(receiver.entries.map((e) => e.line)).to.deep.equal(['hello']);
  });

  it("a 429 the retries do not outlast names the store's rate or stream limit, by its own words", async () => {
    // Loki's texts (pkg/validation): the tenant's rate, a stream's rate, the number of streams. Before, the message
    // ended at the store's words and "(gave up after 4 attempts)", without the setting to look at.
    const cases = [
      [
        "Ingestion rate limit exceeded for user fake (limit: 4194304 bytes/sec) while attempting to ingest '1000' lines totaling '5000000' bytes",
        'limits_config.ingestion_rate_mb',
      ],
      [
        'Per stream rate limit exceeded (limit: 3MB/sec) while attempting to ingest for stream \'{app="a"}\' totaling 5000000B',
        'limits_config.per_stream_rate_limit',
      ],
      [
        "Maximum active stream limit exceeded, reduce the number of active streams (reduce labels or reduce label values), user: 'fake'",
        'limits_config.max_global_streams_per_user',
      ],
    ];
    for (const [text, setting] of cases) {
      receiver = await startLokiReceiver();
      receiver.failNext(429, QUICK_RETRY.maxAttempts, text);
      const sink = logstoreSink({ url: receiver.url, retry: QUICK_RETRY });
      sink.write(lineChunk({ app: 'a' }, 'hello'));
      const error = (await sink.close().catch((e: unknown) => e)) as Error;
      expect(error.message).to.include(`answered 429 Too Many Requests: "${text.slice(0, 40)}`);
      expect(error.message, text).to.include(setting!);
      expect(error.message).to.match(/\(gave up after 4 attempts\)$/);
      await receiver.stop();
    }
  });

  it("a 400 names the label-name rule, with the store's own words", async () => {
    receiver = await startLokiReceiver();
    const sink = logstoreSink({ url: receiver.url, retry: QUICK_RETRY });
    sink.write(lineChunk({ 'bad-name': 'x' }, 'hello'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.match(
      /^logstore sink: POST http:\/\/127\.0\.0\.1:\d+\/loki\/api\/v1\/push answered 400 Bad Request: "error parsing labels '\{bad-name="x"\}': invalid label name "bad-name""; /,
    );
    expect(error.message).to.include('label names must match [a-zA-Z_][a-zA-Z0-9_]*');
    expect(receiver.pushes).to.have.length(1); // a refusal is not retried
  });

  it('a 400 for a stream with more labels than the store takes names the limit and its setting', async () => {
    receiver = await startLokiReceiver();
    const sink = logstoreSink({ url: receiver.url, retry: QUICK_RETRY });
    sink.write(lineChunk(Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`l${i}`, 'x'])), 'hello'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.match(/answered 400 Bad Request: "stream .* has 16 label names; limit 15"; /);
    expect(error.message).to.include('Loki takes at most 15 by default (limits_config.max_label_names_per_series)');
  });

  describe("a 400 points at what the store's answer names", () => {
    /** The message of the failure a push of `batch` into `receiver` ends with. */
    async function refusal(batch: EncodedBatch): Promise<string> {
      const sink = logstoreSink({ url: receiver.url, retry: QUICK_RETRY });
      sink.write(batch);
      return ((await sink.close().catch((e: unknown) => e)) as Error).message;
    }

    it('structured metadata the store does not allow: its setting, or leaving out trace_context', async () => {
      receiver = await startLokiReceiver({ allowStructuredMetadata: false });
      const context = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', flags: 1 };
      const batch = logBatch([{ severity: 'error', message: 'failed', labels: { app: 'a' }, context }], Date.now());
      const message = await refusal(jsonLinesLogs().encode(batch));
      expect(message).to.match(/answered 400 Bad Request: "stream .* includes structured metadata, but this feature/);
      expect(message).to.include('limits_config.allow_structured_metadata');
      expect(message).to.include('remove trace_context');
      expect(message).not.to.include('label names must match');
    });

    it("a line longer than the store takes: the store's line size limit", async () => {
      receiver = await startLokiReceiver();
      const message = await refusal(lineChunk({ app: 'a' }, 'x'.repeat(300 * 1024)));
      expect(message).to.match(/answered 400 Bad Request: "Max entry size '262144' bytes exceeded/);
      expect(message).to.include('limits_config.max_line_size');
      expect(message).not.to.include('label names must match');
    });

    it('a timestamp too old: start_time and the age the store keeps', async () => {
      receiver = await startLokiReceiver();
      const message = await refusal(lineChunk({ app: 'a' }, 'old', Date.now() - 8 * 24 * 3600 * 1000));
      expect(message).to.match(/answered 400 Bad Request: "entry for stream .* has timestamp too old/);
      expect(message).to.include('start_time');
      expect(message).to.include('reject_old_samples_max_age');
      expect(message).not.to.include('label names must match');
    });
  });

  it('a 401 from a multi-tenant store points at the tenant header', async () => {
    receiver = await startLokiReceiver({ requireTenant: true });
    const sink = logstoreSink({ url: receiver.url });
    sink.write(lineChunk({ app: 'a' }, 'hello'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.match(/answered 401 Unauthorized: "no org id"; set the tenant header \(X-Scope-OrgID\)/);
  });

  it('connection refused says to check that the backend runs on that port', async () => {
    const port = await freeTcpPort();
    const sink = logstoreSink({
      url: `http://127.0.0.1:${port}`,
      retry: { maxAttempts: 2, initialBackoff: 5, maxBackoff: 5 },
    });
    sink.write(lineChunk({ app: 'a' }, 'hello'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(
      `logstore sink: connection refused by 127.0.0.1:${port}: is the backend running, and is 127.0.0.1:${port} the right port? (gave up after 2 attempts)`,
    );
  });
});
