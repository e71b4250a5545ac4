import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { loadScenario } from '../../lib/config/load.js';
import type { Entry } from '../../lib/config/types.js';
import { ConfigError } from '../../lib/language/problems.js';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/backends/otlp-receiver.js';
import { startZipkinReceiver, type ZipkinReceiver } from '../support/backends/zipkin-receiver.js';
import { scenarioDir, svc } from '../support/cli.js';
import { MemorySink } from '../support/sinks.js';
import {
  groupByTrace,
  spansFromJsonLines,
  spansFromOtlp,
  spansFromZipkin,
  traceProblems,
  type TraceSpan,
} from '../support/traces.js';

/** A checkout: the frontend calls payment (a client/server pair) which writes to its database. */
const CHECKOUT = {
  seed: 7,
  services: { frontend: { version: '1.0.0' }, payment: { version: '2.0.0' } },
  root: {
    service: 'frontend',
    operation: 'GET /checkout',
    kind: 'server',
    attributes: { 'http.request.method': 'GET', 'http.route': '/checkout' },
    calls: [
      {
        service: 'payment',
        operation: 'POST /pay',
        kind: 'client',
        duration: { type: 'uniform', min: 0.01, max: 0.02 },
        error_rate: 0.1,
        propagate: true,
        calls: [
          { operation: 'INSERT payments', kind: 'client', duration: 0.002, attributes: { 'db.system': 'postgresql' } },
        ],
      },
    ],
  },
};

/** The traces entry of a file with `fields` over a 2-second checkout at 50 traces a second. */
function tracesEntry(fields: Record<string, unknown> = {}): Entry {
  const entry = {
    signal_type: 'traces',
    name: 'checkout',
    rate: 50,
    duration: '2s',
    start_time: '2026-01-01T00:00:00Z',
    trace_generator: CHECKOUT,
    ...fields,
  };
  return loadScenario(JSON.stringify({ version: 2, kind: 'runnable', scenarios: [entry] }), {
    origin: 'spec',
    format: 'json',
  }).scenarios[0]!;
}

/** The problems of a traces entry that does not validate, as messages say them. */
function refusal(fields: Record<string, unknown>): string[] {
  try {
    tracesEntry(fields);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.message);
    throw error;
  }
  throw new Error('the entry validated');
}

/** Runs `entry` in virtual time into memory: its text and statistics. */
async function runVirtual(entry: Entry) {
  const scheduler = new TestScheduler(() => undefined);
  scheduler.maxFrames = Infinity;
  const sink = new MemorySink();
  const run = runEntry(entry, { scheduler, createSink: () => sink });
  scheduler.flush();
  expect(await run.done).to.deep.equal({});
  return { text: sink.text, stats: run.stats.snapshot(scheduler.now()) };
}

const roots = (spans: readonly TraceSpan[]) => spans.filter((span) => span.parentSpanId === undefined);

describe('traces entries (signal_type: traces)', () => {
  it('make rate × duration traces, each a well-formed tree, counted as spans', async () => {
    const { text, stats } = await runVirtual(tracesEntry());
    const spans = spansFromJsonLines(text);
    expect(groupByTrace(spans).size).to.equal(100);
    expect(roots(spans)).to.have.length(100);
    expect(traceProblems(spans)).to.deep.equal([]);
    expect(stats.total_events).to.equal(spans.length);
    // The first trace starts at the start time, the last one tick before the end.
    const starts = roots(spans).map((span) => span.start);
    expect(starts[0]).to.equal(BigInt(Date.parse('2026-01-01T00:00:00Z')) * 1_000_000n);
    expect(starts.at(-1)! - starts[0]!).to.equal(1_980_000_000n);
  });

  it('replay identically for a seed, and differently for another', async () => {
    const first = await runVirtual(tracesEntry());
    const again = await runVirtual(tracesEntry());
    const other = await runVirtual(tracesEntry({ trace_generator: { ...CHECKOUT, seed: 8 } }));
    expect(again.text).to.equal(first.text);
    expect(other.text).to.not.equal(first.text);
  });

  it('write ids of their own per entry: two entries of one file with one seed and start share no trace or span id', async () => {
    const file = {
      version: 2,
      kind: 'runnable',
      defaults: { signal_type: 'traces', rate: 50, duration: '2s', start_time: '2026-01-01T00:00:00Z' },
      scenarios: ['checkout', 'refund'].map((name) => ({ name, trace_generator: CHECKOUT })),
    };
    const entries = loadScenario(JSON.stringify(file), { origin: 'spec', format: 'json' }).scenarios;
    const [checkout, refund] = await Promise.all(
      entries.map(async (entry) => spansFromJsonLines((await runVirtual(entry)).text)),
    );
    const ids = (spans: readonly TraceSpan[]) => new Set(spans.flatMap((span) => [span.traceId, span.spanId]));
    expect([...ids(refund!)].filter((id) => ids(checkout!).has(id))).to.deep.equal([]);
    // Into one backend, each trace is still one well-formed tree.
    expect(traceProblems([...checkout!, ...refund!])).to.deep.equal([]);
  });

  it('keep the schedule: no trace starts inside a gap', async () => {
    const { text } = await runVirtual(tracesEntry({ rate: 10, gaps: { every: '1s', for: '500ms' } }));
    const offsets = roots(spansFromJsonLines(text)).map(
      (span) => Number(span.start / 1_000_000n) - Date.parse('2026-01-01T00:00:00Z'),
    );
    expect(offsets).to.deep.equal([0, 100, 200, 300, 400, 1000, 1100, 1200, 1300, 1400]);
  });

  it('refuse what a trace cannot carry, naming the field', () => {
    expect(refusal({ labels: { env: 'dev' } })).to.deep.equal([
      'scenarios[0] (checkout): labels: not allowed on a traces entry (only on metrics and logs and histogram and summary entries)',
    ]);
    expect(refusal({ trace_generator: undefined })).to.deep.equal([
      'scenarios[0] (checkout): trace_generator: missing required field (a traces entry needs it)',
    ]);
    expect(refusal({ encoder: { type: 'zipkin_json' }, sink: { type: 'tcp', address: '127.0.0.1:9' } })).to.deep.equal([
      'scenarios[0] (checkout): encoder.type: the zipkin_json encoder needs the http_push or stdout or file sink, got sink tcp',
    ]);
    expect(
      refusal({ sink: { type: 'otlp_http', url: 'http://127.0.0.1:4318', resource: { 'service.name': 'x' } } }),
    ).to.deep.equal([
      "scenarios[0] (checkout): sink.resource: not allowed for traces: each service's resource comes from trace_generator.services",
    ]);
    expect(refusal({ encoder: { type: 'metrics_text' } })[0]).to.match(
      /encoder.type: metrics_text encodes metrics only/,
    );
  });

  it('bin/svc runs examples/traces.yaml to stdout as json_lines, a span a line', async () => {
    const result = await svc([
      'run',
      'examples/traces.yaml',
      '--sink',
      'stdout',
      '--encoder',
      'json_lines',
      '--backfill',
      '--duration',
      '2s',
    ]);
    expect(result.code, result.stderr).to.equal(0);
    const spans = spansFromJsonLines(result.stdout);
    expect(traceProblems(spans)).to.deep.equal([]);
    expect(roots(spans).filter((span) => span.service === 'frontend')).to.have.length(10);
  });

  /** `svc run --backfill` of a file: a step counter `load` (1 a second) and the traces entry with `gate`, on stdout. */
  async function gatedByLoad(gate: Record<string, unknown>) {
    const { scenario } = scenarioDir('traces-gates');
    const entries = [
      { signal_type: 'metrics', name: 'load', rate: 1, generator: { type: 'step', start: 0, step_size: 1 } },
      {
        signal_type: 'traces',
        name: 'checkout',
        rate: 2,
        trace_generator: CHECKOUT,
        sink: { type: 'stdout' },
        ...gate,
      },
    ];
    const file = scenario(
      'gated.json',
      JSON.stringify({
        version: 2,
        kind: 'runnable',
        defaults: { start_time: '2026-01-01T00:00:00Z', duration: '10s', sink: { type: 'file', path: '/dev/null' } },
        scenarios: entries,
      }),
    );
    const result = await svc(['run', file, '--backfill']);
    expect(result.code, result.stderr).to.equal(0);
    const t0 = BigInt(Date.parse('2026-01-01T00:00:00Z')) * 1_000_000n;
    return roots(spansFromJsonLines(result.stdout)).map((span) => Number((span.start - t0) / 1_000_000n));
  }

  it('start on an after trigger, in virtual time: the first trace when the watched value crosses', async () => {
    const starts = await gatedByLoad({ after: { ref: 'load', op: '>', value: 4 } });
    expect(starts).to.have.length(20);
    expect(starts[0]).to.equal(5000);
  });

  it('run while a condition holds, in virtual time: no trace once it stops holding', async () => {
    expect(await gatedByLoad({ while: { ref: 'load', op: '<', value: 3 } })).to.deep.equal([
      0, 500, 1000, 1500, 2000, 2500,
    ]);
  });

  describe('into receivers of the documented protocols', function () {
    this.timeout(20_000);
    let otlp: OtlpReceiver;
    let zipkin: ZipkinReceiver;
    before(async () => {
      otlp = await startOtlpReceiver();
      zipkin = await startZipkinReceiver();
    });
    after(async () => {
      await otlp.stop();
      await zipkin.stop();
    });

    /** Runs `entry` live to its end: its statistics. */
    async function runLive(entry: Entry) {
      const run = runEntry(entry);
      expect(await run.done).to.deep.equal({});
      return run.stats.snapshot(Date.now());
    }

    for (const sink of ['otlp_grpc', 'otlp_http'] as const) {
      it(`${sink}: ResourceSpans of each service, every span received, well-formed traces`, async () => {
        const before = otlp.requestsOf('traces').length;
        const address = sink === 'otlp_grpc' ? { endpoint: otlp.grpcAddress } : { url: otlp.httpUrl };
        const stats = await runLive(
          tracesEntry({ duration: '500ms', rate: 40, start_time: 'now', sink: { type: sink, ...address } }),
        );
        const requests = otlp.requestsOf('traces').slice(before);
        const spans = spansFromOtlp(requests);
        expect(stats.total_events).to.equal(spans.length);
        expect(stats.total_sink_failures).to.equal(0);
        expect(roots(spans)).to.have.length(20);
        expect(traceProblems(spans)).to.deep.equal([]);
        const services = requests.flatMap((request) =>
          request.resource_spans.map(
            (resourceSpans: { resource: { attributes: { key: string; value: { string_value: string } }[] } }) =>
              resourceSpans.resource.attributes.find((a) => a.key === 'service.name')!.value.string_value,
          ),
        );
        expect([...new Set(services)].sort()).to.deep.equal(['frontend', 'payment']);
      });
    }

    it('bin/svc runs examples/traces.yaml to the OTLP/gRPC endpoint of --endpoint: a trace and its linked consumer trace', async () => {
      const before = otlp.requestsOf('traces').length;
      const result = await svc(['run', 'examples/traces.yaml', '--endpoint', otlp.grpcAddress, '--duration', '1s']);
      expect(result.code, result.stderr).to.equal(0);
      const spans = spansFromOtlp(otlp.requestsOf('traces').slice(before));
      expect(traceProblems(spans)).to.deep.equal([]);
      // 5 checkouts, each with the worker's trace it starts, linked to the publish.
      expect(roots(spans).map((span) => `${span.service} ${span.name}`)).to.have.members([
        ...Array(5).fill('frontend GET /checkout'),
        ...Array(5).fill('worker orders publish'),
      ]);
      const producers = new Set(spans.filter((span) => span.kind === 'producer').map((span) => span.spanId));
      const links = roots(spans).flatMap((span) => span.links ?? []);
      expect(links).to.have.length(5);
      for (const link of links) expect(producers.has(link.spanId)).to.equal(true);
    });

    it('http_push with zipkin_json: Zipkin v2 arrays to /api/v2/spans, every span received', async () => {
      const before = zipkin.spans.length;
      const stats = await runLive(
        tracesEntry({
          duration: '500ms',
          rate: 40,
          start_time: 'now',
          encoder: { type: 'zipkin_json' },
          sink: { type: 'http_push', url: zipkin.endpoint },
        }),
      );
      const spans = spansFromZipkin(zipkin.spans.slice(before));
      expect(stats.total_events).to.equal(spans.length);
      expect(roots(spans)).to.have.length(20);
      expect(traceProblems(spans)).to.deep.equal([]);
      expect(zipkin.posts.every((post) => post.status === 202)).to.equal(true);
    });

    it('http_push with zipkin_json: a trace larger than Zipkin takes in one request is cut between spans', async () => {
      const before = { spans: zipkin.spans.length, posts: zipkin.posts.length };
      // One trace of 201 spans, 200 of them carrying 64 KiB: 13 MiB of JSON, over Zipkin's 10 MiB.
      const blob = 'x'.repeat(64 * 1024);
      const heavy = {
        services: { frontend: {}, db: {} },
        root: {
          service: 'frontend',
          operation: 'GET /',
          kind: 'server',
          calls: [
            { service: 'db', operation: 'query', kind: 'client', repeat: 100, duration: 0.001, attributes: { blob } },
          ],
        },
      };
      const stats = await runLive(
        tracesEntry({
          duration: '1s',
          rate: 1,
          start_time: 'now',
          trace_generator: heavy,
          encoder: { type: 'zipkin_json' },
          sink: { type: 'http_push', url: zipkin.endpoint },
        }),
      );
      const posts = zipkin.posts.slice(before.posts);
      expect(posts.map((post) => post.status)).to.deep.equal(posts.map(() => 202));
      // http_push's request size: 1 MiB of chunks (batch_size when larger), a span more at most.
      expect(Math.max(...posts.map((post) => post.bytes))).to.be.below(1024 * 1024 + 70 * 1024);
      const spans = spansFromZipkin(zipkin.spans.slice(before.spans));
      expect(stats).to.include({ total_events: 201, total_sink_failures: 0 });
      expect(spans).to.have.length(201);
      expect(traceProblems(spans)).to.deep.equal([]);
    });
  });
});
