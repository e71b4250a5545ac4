import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { loadScenario } from '../../lib/config/load.js';
import type { ScenarioFile } from '../../lib/config/types.js';
import { ConfigError } from '../../lib/language/problems.js';
import { compileScenario } from '../../lib/compile/index.js';
import { startEntries } from '../../lib/runtime/file-run.js';
import { exemplarAt, type Labelled, type SampleBatch } from '../../operators/model/batch.js';
import { MemorySink } from '../support/sinks.js';
import { spansFromJsonLines, type TraceSpan } from '../support/traces.js';

/** A checkout whose payment call fails a third of the time, raising the error in the payment server span. */
const CHECKOUT = {
  signal_type: 'traces',
  id: 'checkout',
  name: 'checkout',
  rate: 20,
  encoder: { type: 'json_lines' },
  trace_generator: {
    seed: 3,
    services: { frontend: {}, payment: {} },
    root: {
      service: 'frontend',
      operation: 'GET /checkout',
      kind: 'server',
      duration: { type: 'uniform', min: 0.01, max: 0.9 },
      calls: [{ service: 'payment', operation: 'POST /pay', kind: 'client', duration: 0.005, error_rate: 0.33 }],
    },
  },
};

const LATENCY = {
  signal_type: 'histogram',
  name: 'http_request_duration_seconds',
  rate: 4,
  distribution: { type: 'exponential', rate: 5 },
  buckets: [0.1, 0.5, 1],
  observations_per_tick: 10,
};

/** The files' start_time, epoch ms. */
const START = Date.parse('2026-01-01T00:00:00Z');

const LOGS = {
  signal_type: 'logs',
  name: 'payment_logs',
  rate: 10,
  encoder: { type: 'json_lines' },
  log_generator: {
    type: 'template',
    seed: 1,
    templates: [{ message: 'charged' }, { message: 'charge failed' }],
    severity_weights: { info: 1, error: 1 },
  },
};

function file(...scenarios: Record<string, unknown>[]): ScenarioFile {
  const text = JSON.stringify({
    version: 2,
    kind: 'runnable',
    defaults: { duration: '3s', start_time: '2026-01-01T00:00:00Z' },
    scenarios,
  });
  return loadScenario(text, { origin: 'spec', format: 'json' });
}

/** The problems of a file that validates but does not compile. */
function compileProblems(...scenarios: Record<string, unknown>[]): string[] {
  try {
    compileScenario(file(...scenarios), { origin: 'spec' });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.message);
    throw error;
  }
  throw new Error('the file compiled');
}

/** The problems of a file that does not validate. */
function refusal(...scenarios: Record<string, unknown>[]): string[] {
  try {
    file(...scenarios);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.message);
    throw error;
  }
  throw new Error('the file validated');
}

/** Runs a file's entries together in virtual time: each entry's output, and the labelled samples of each. */
async function runTogether(file: ScenarioFile) {
  const loaded = compileScenario(file, { origin: 'spec' });
  const scheduler = new TestScheduler(() => undefined);
  scheduler.maxFrames = Infinity;
  const sinks = new Map(loaded.scenarios.map((entry) => [entry.id, new MemorySink()]));
  const samples = new Map<string, Labelled<SampleBatch>[]>();
  // The first observation of each tick of histogram and summary entries, by slot number.
  const firstObserved = new Map<number, number>();
  const run = startEntries(loaded.scenarios, {
    scheduler,
    createSink: (entry) => sinks.get(entry.id)!,
    hooks: (entry) => ({
      onSamples: (batch) => void samples.set(entry.id, [...(samples.get(entry.id) ?? []), batch]),
      onObservations: (batch) => batch.observations.forEach((o, i) => firstObserved.set(batch.index[i]!, o[0]!)),
    }),
  });
  scheduler.flush();
  expect((await run.done).map((outcome) => outcome.error?.message)).to.deep.equal(
    loaded.scenarios.map(() => undefined),
  );
  return {
    text: (id: string) => sinks.get(id)!.text,
    samples: (id: string) => samples.get(id) ?? [],
    firstObserved,
  };
}

/** Every exemplar of the batches, with the row it is on. */
function exemplarRows(batches: readonly Labelled<SampleBatch>[]) {
  return batches.flatMap((batch) =>
    [...(batch.exemplars?.rows ?? [])].map((i, k) => ({
      exemplar: exemplarAt(batch.exemplars!, k),
      row: batch.series[i]!,
      time: batch.anchor + batch.offset[i]!,
    })),
  );
}

const spanKey = (span: { traceId: string; spanId: string }) => `${span.traceId}/${span.spanId}`;
const seconds = (span: TraceSpan) => Number(span.end - span.start) / 1e9;

describe('one incident across signals (exemplars, trace_context)', () => {
  it("a histogram's exemplars name root spans of the traces entry, each on the bucket of the span's duration", async () => {
    const { text, samples } = await runTogether(file(CHECKOUT, { ...LATENCY, exemplars: { from: 'checkout' } }));
    const spans = new Map(spansFromJsonLines(text('checkout')).map((span) => [spanKey(span), span]));
    const found = exemplarRows(samples('http_request_duration_seconds'));
    // One per tick (every: 1 by default) of the 12, once a root span has ended: not on the first.
    expect(found.length).to.be.within(10, 11);
    for (const { exemplar, row, time } of found) {
      const span = spans.get(spanKey(exemplar));
      expect(span, 'a span of the traces entry').to.not.equal(undefined);
      expect(span!.parentSpanId).to.equal(undefined);
      // Its request is done by then.
      expect(Number(span!.end) / 1e6).to.be.at.most(time);
      expect(exemplar.value).to.be.closeTo(seconds(span!), 1e-9);
      expect(exemplar.timestamp).to.equal(time);
      // The smallest bucket holding the value: a slow span sits in a slow bucket.
      expect(row.suffix).to.equal('_bucket');
      const bound = row.labels.le === '+Inf' ? Infinity : Number(row.labels.le);
      const below = [0, 0.1, 0.5, 1].filter((b) => b < bound).at(-1)!;
      expect(exemplar.value).to.be.above(below).and.at.most(bound);
    }
    // Each span named once while fresh ones remain.
    expect(new Set(found.map(({ exemplar }) => spanKey(exemplar))).size).to.equal(found.length);
  });

  it("a histogram of milliseconds gets its exemplars in milliseconds, on the bucket of the span's duration", async () => {
    // The unit is read off the name, as OpenTelemetry's exporters write a histogram of ms: 0.25 s is worth 250.
    const name = 'http_request_duration_milliseconds';
    const inMs = { ...LATENCY, name, distribution: { type: 'exponential', rate: 0.005 }, buckets: [100, 500, 1000] };
    const { text, samples } = await runTogether(file(CHECKOUT, { ...inMs, exemplars: { from: 'checkout' } }));
    const spans = new Map(spansFromJsonLines(text('checkout')).map((span) => [spanKey(span), span]));
    const found = exemplarRows(samples(name));
    expect(found.length).to.be.within(10, 11);
    for (const { exemplar, row } of found) {
      expect(exemplar.value).to.be.closeTo(seconds(spans.get(spanKey(exemplar))!) * 1000, 1e-6);
      const le = [100, 500, 1000].find((bound) => exemplar.value <= bound);
      expect(`${row.suffix}{le="${row.labels.le}"}`).to.equal(`_bucket{le="${le ?? '+Inf'}"}`);
    }
    // The spans last 10 to 900 ms: not all in the first bucket, as seconds read as milliseconds would be.
    expect(new Set(found.map(({ row }) => row.labels.le)).size).to.be.above(1);
  });

  it("a histogram whose unit is no time (_bytes) gets exemplars worth the tick's first observation, the span naming only the ids", async () => {
    // As an SDK records one (client_golang's ObserveWithExemplar, OpenTelemetry's exemplar reservoir): the measurement.
    const name = 'http_response_size_bytes';
    const sizes = { ...LATENCY, name, distribution: { type: 'exponential', rate: 0.001 }, buckets: [500, 1000, 5000] };
    const { text, samples, firstObserved } = await runTogether(
      file(CHECKOUT, { ...sizes, exemplars: { from: 'checkout' } }),
    );
    const spans = new Map(spansFromJsonLines(text('checkout')).map((span) => [spanKey(span), span]));
    const found = exemplarRows(samples(name));
    expect(found.length).to.be.within(10, 11);
    for (const { exemplar, row, time } of found) {
      expect(spans.get(spanKey(exemplar))?.parentSpanId, 'a root span of the traces entry').to.equal(undefined);
      expect(spans.has(spanKey(exemplar))).to.equal(true);
      // 4 ticks a second: its slot's first observation (bytes), not a span's duration read as bytes.
      expect(exemplar.value).to.equal(firstObserved.get(((time - START) / 1000) * 4));
      const le = [500, 1000, 5000].find((bound) => exemplar.value <= bound);
      expect(`${row.suffix}{le="${row.labels.le}"}`).to.equal(`_bucket{le="${le ?? '+Inf'}"}`);
    }
  });

  it("a histogram's exemplars name the checkout's roots, not those of the traces its queue consumers start", async () => {
    // The worker's consumer starts a trace of its own, ending after the checkout's root: the last root to end.
    const publish = {
      service: 'worker',
      operation: 'orders publish',
      kind: 'producer',
      duration: 0.5,
      new_trace: true,
    };
    const root = CHECKOUT.trace_generator.root;
    const checkout = {
      ...CHECKOUT,
      trace_generator: {
        ...CHECKOUT.trace_generator,
        services: { ...CHECKOUT.trace_generator.services, worker: {} },
        root: { ...root, calls: [...root.calls, publish] },
      },
    };
    const { text, samples } = await runTogether(file(checkout, { ...LATENCY, exemplars: { from: 'checkout' } }));
    const spans = new Map(spansFromJsonLines(text('checkout')).map((span) => [spanKey(span), span]));
    const named = exemplarRows(samples('http_request_duration_seconds')).map(({ exemplar }) => {
      const span = spans.get(spanKey(exemplar))!;
      return `${span.service} ${span.name}`;
    });
    expect(named).to.have.length.at.least(10);
    expect(new Set(named)).to.deep.equal(new Set(['frontend GET /checkout']));
  });

  it("random exemplars of a histogram are worth their tick's first observation, on the bucket holding it", async () => {
    const { samples, firstObserved } = await runTogether(file({ ...LATENCY, exemplars: { every: 3 } }));
    const found = exemplarRows(samples('http_request_duration_seconds'));
    // 4 ticks a second for 3 s: slots 0, 3, 6 and 9.
    expect(found.map(({ time }) => time)).to.deep.equal([0, 750, 1500, 2250].map((ms) => START + ms));
    for (const { exemplar, row, time } of found) {
      expect(exemplar.value).to.equal(firstObserved.get(((time - START) / 1000) * 4));
      const le = [0.1, 0.5, 1].find((bound) => exemplar.value <= bound);
      expect(`${row.suffix}{le="${row.labels.le}"}`).to.equal(`_bucket{le="${le ?? '+Inf'}"}`);
    }
  });

  it('exemplars: every N ticks or with a probability, on a counter or a summary; random ids without from', async () => {
    const counter = {
      name: 'http_requests_total',
      signal_type: 'metrics',
      rate: 10,
      generator: { type: 'step', start: 0, step_size: 1 },
      exemplars: { every: 5, seed: 9 },
    };
    const summary = { ...LATENCY, name: 'rpc_seconds', signal_type: 'summary', buckets: undefined, quantiles: [0.5] };
    const { samples } = await runTogether(
      file(CHECKOUT, counter, { ...summary, exemplars: { from: 'checkout', probability: 0.5, seed: 4 } }),
    );
    const onCounter = exemplarRows(samples('http_requests_total'));
    expect(onCounter).to.have.length(6); // ticks 0, 5, 10, …, 25 of 30
    for (const { exemplar } of onCounter) {
      expect(exemplar.traceId).to.match(/^[0-9a-f]{32}$/);
      expect(exemplar.spanId).to.match(/^[0-9a-f]{16}$/);
      expect(exemplar.value).to.equal(1);
    }
    const onSummary = exemplarRows(samples('rpc_seconds'));
    expect(onSummary.length).to.be.within(2, 10);
    expect(onSummary.every(({ row }) => row.suffix === '_count')).to.equal(true);
    // The same seed draws the same ticks and ids.
    const again = await runTogether(file(CHECKOUT, counter));
    expect(exemplarRows(again.samples('http_requests_total')).map(({ exemplar }) => exemplar)).to.deep.equal(
      onCounter.map(({ exemplar }) => exemplar),
    );
  });

  it('error log records name spans that raised an error; with on: all, the others name server spans', async () => {
    const { text } = await runTogether(
      file(CHECKOUT, { ...LOGS, trace_context: { from: 'checkout', on: 'all', service: 'payment' } }),
    );
    const all = spansFromJsonLines(text('checkout'));
    const spans = new Map(all.map((span) => [spanKey(span), span]));
    const records = text('payment_logs')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { severity: string; timestamp: string; trace_id?: string; span_id?: string });
    expect(records).to.have.length(30);
    const named = records.filter((record) => record.trace_id !== undefined);
    expect(named.length).to.be.at.least(25);
    for (const record of named) {
      const span = spans.get(`${record.trace_id}/${record.span_id}`);
      expect(span, 'a span of the traces entry').to.not.equal(undefined);
      expect(span!.service).to.equal('payment');
      const failing = record.severity === 'error';
      if (failing) expect(span!.status).to.equal('error');
      // Written while the span ran, as an SDK stamps a log with its active span; while no fitting span runs, after
      // the last to end.
      const time = BigInt(Date.parse(record.timestamp)) * 1_000_000n;
      const fits = (other: TraceSpan) =>
        other.service === 'payment' && (failing ? other.status === 'error' : other.kind === 'server');
      const runs = (other: TraceSpan) => other.start <= time && time <= other.end;
      if (all.some((other) => fits(other) && runs(other))) expect(runs(span!), 'running then').to.equal(true);
      else expect(span!.end <= time, 'ended by then').to.equal(true);
    }
    expect(named.some((record) => record.severity === 'info')).to.equal(true);
  });

  it("error log records of a service that raises no error name its spans that saw a call fail (the frontend's client spans of failed payments)", async () => {
    const { text } = await runTogether(
      file(CHECKOUT, { ...LOGS, trace_context: { from: 'checkout', service: 'frontend' } }),
    );
    const all = spansFromJsonLines(text('checkout'));
    const spans = new Map(all.map((span) => [spanKey(span), span]));
    const firstFailure = all
      .filter((span) => span.service === 'frontend' && span.status === 'error')
      .map((span) => span.start)
      .sort((a, b) => Number(a - b))[0]!;
    const errors = text('payment_logs')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { severity: string; timestamp: string; trace_id?: string; span_id?: string })
      .filter((record) => record.severity === 'error');
    // Every one once a frontend span is in error (none before: an error log never names a healthy span).
    const after = (record: { timestamp: string }) => BigInt(Date.parse(record.timestamp)) * 1_000_000n >= firstFailure;
    expect(errors.filter(after)).to.have.length.at.least(10);
    expect(errors.map((record) => record.trace_id !== undefined)).to.deep.equal(errors.map(after));
    for (const record of errors.filter(after)) {
      const span = spans.get(`${record.trace_id}/${record.span_id}`);
      expect(span, 'a span of the traces entry').to.not.equal(undefined);
      expect([span!.service, span!.status]).to.deep.equal(['frontend', 'error']);
    }
  });

  it('trace_context on: error (the default) leaves the other records without ids', async () => {
    const { text } = await runTogether(file(CHECKOUT, { ...LOGS, trace_context: { from: 'checkout' } }));
    const records = text('payment_logs')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { severity: string; trace_id?: string });
    expect(records.filter((record) => record.severity !== 'error').every((r) => r.trace_id === undefined)).to.equal(
      true,
    );
    expect(records.filter((record) => record.severity === 'error').some((r) => r.trace_id !== undefined)).to.equal(
      true,
    );
  });

  it('an entry naming spans that starts late stamps its records and exemplars on the timeline of the spans, with an absolute start_time', async () => {
    // Before, the late entry's tick 0 was stamped at start_time itself: its records and exemplars, a second before
    // the spans they named, pointed at spans that had not started yet.
    const { text, samples } = await runTogether(
      file(
        CHECKOUT,
        { ...LOGS, phase_offset: '1s', duration: '2s', trace_context: { from: 'checkout', on: 'all' } },
        { ...LATENCY, phase_offset: '1s', duration: '2s', exemplars: { from: 'checkout' } },
      ),
    );
    const spans = new Map(spansFromJsonLines(text('checkout')).map((span) => [spanKey(span), span]));
    const records = text('payment_logs')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { timestamp: string; trace_id?: string; span_id?: string });
    expect(Date.parse(records[0]!.timestamp)).to.equal(START + 1000);
    const named = records.filter((record) => record.trace_id !== undefined);
    expect(named.length).to.be.at.least(15);
    for (const record of named) {
      const span = spans.get(`${record.trace_id}/${record.span_id}`)!;
      expect(Number(span.start) / 1e6, 'started by then').to.be.at.most(Date.parse(record.timestamp));
    }
    const exemplars = exemplarRows(samples('http_request_duration_seconds'));
    expect(exemplars.length).to.be.at.least(6);
    for (const { exemplar, time } of exemplars) {
      expect(time).to.be.at.least(START + 1000);
      expect(Number(spans.get(spanKey(exemplar))!.end) / 1e6, 'ended by then').to.be.at.most(time);
    }
  });

  it('refuses an entry naming spans whose start_time is not that of the traces entry, naming the field', () => {
    expect(
      compileProblems(CHECKOUT, { ...LOGS, start_time: '-1h', trace_context: { from: 'checkout' } }),
    ).to.deep.equal([
      'scenarios[1] (payment_logs): start_time: the entries of clock group "chain_checkout" share one start-time reference: expected 2026-01-01T00:00:00.000Z as on scenarios[0] (checkout), got -1h (entries linked by the spans they name share one: a log record or an exemplar is stamped on the timeline of the spans it names)',
    ]);
  });

  it('refuses two clock groups joined by the spans an entry names, once, on that entry, saying how to fix it', () => {
    // Before, the traces entry was blamed ("checkout, 3 of its entries", its span metrics counted) with no fix.
    const spanMetrics = { sink: { type: 'stdout' }, exemplars: true };
    const traces = { ...CHECKOUT, start_time: 'now', clock_group: 'G', span_metrics: spanMetrics };
    const logs = { ...LOGS, start_time: 'now', clock_group: 'H', trace_context: { from: 'checkout' } };
    const latency = { ...LATENCY, start_time: 'now', clock_group: 'H', exemplars: { from: 'checkout' } };
    const told = (field: string, label: string) =>
      `${label}: clock_group: "H", but scenarios[0] (checkout) that its ${field} names is in "G": entries linked by the spans they name share one clock group: name the same clock_group on both, or drop one`;
    expect(compileProblems(traces, logs)).to.deep.equal([told('trace_context.from', 'scenarios[1] (payment_logs)')]);
    expect(compileProblems(traces, latency)).to.deep.equal([
      told('exemplars.from', 'scenarios[1] (http_request_duration_seconds)'),
    ]);
  });

  it('explains a start_time mismatch in a named group by the link only where the link is the cause', () => {
    // Before, both got the spans explanation, though the unrelated entry set the reference.
    const unrelated = { ...LATENCY, name: 'unrelated', clock_group: 'G', start_time: '-1h' };
    const traces = { ...CHECKOUT, start_time: 'now', clock_group: 'G' };
    const logs = { ...LOGS, start_time: 'now', trace_context: { from: 'checkout' } };
    const expected = (label: string, why: string) =>
      `${label}: start_time: the entries of clock group "G" share one start-time reference: expected -1h as on scenarios[0] (unrelated), got now${why}`;
    expect(compileProblems(unrelated, traces, logs)).to.deep.equal([
      expected('scenarios[1] (checkout)', ''),
      expected('scenarios[2] (payment_logs)', ' (it joined "G" through its trace_context.from "checkout")'),
    ]);
    // The traces entry naming no group joins it through the link of the entry naming its spans.
    const named = { ...logs, clock_group: 'G' };
    expect(compileProblems(unrelated, { ...traces, clock_group: undefined }, named)).to.deep.equal([
      expected('scenarios[1] (checkout)', ' (it joined "G" through trace_context.from of scenarios[2] (payment_logs))'),
      expected('scenarios[2] (payment_logs)', ''),
    ]);
  });

  it('span metrics leave a traces entry out of any clock group, so its spans start where they would without them', async () => {
    // Before, the span metrics linked to the traces entry (group chain_checkout), which moved its spans by its
    // phase_offset: with start_time 00:00:00 and phase_offset 2s the first span started at 00:00:02, not 00:00:00.
    const late = { ...CHECKOUT, phase_offset: '2s', duration: '1s' };
    const metrics = { sink: { type: 'stdout' }, interval: '1s' };
    const loaded = compileScenario(file({ ...late, span_metrics: metrics }), { origin: 'spec' });
    expect(loaded.groups).to.deep.equal([]);
    const firstSpan = async (traces: Record<string, unknown>) =>
      Math.min(...spansFromJsonLines((await runTogether(file(traces))).text('checkout')).map((s) => Number(s.start)));
    expect(await firstSpan({ ...late, span_metrics: metrics })).to.equal(await firstSpan(late));
  });

  it('span metrics count the spans ended by each write, per service, name, kind and status', async () => {
    const { text } = await runTogether(
      file({
        ...CHECKOUT,
        span_metrics: { sink: { type: 'stdout' }, interval: '1s', buckets: [0.01, 0.5], exemplars: true },
      }),
    );
    const spans = spansFromJsonLines(text('checkout'));
    // As the connector sees them: once they end.
    const before = (ms: number) => spans.filter((span) => span.end <= BigInt(ms) * 1_000_000n);
    const dimensions = (span: TraceSpan) =>
      `service_name="${span.service}",span_kind="SPAN_KIND_${span.kind.toUpperCase()}",span_name="${span.name}",status_code="STATUS_CODE_${span.status === 'error' ? 'ERROR' : 'UNSET'}"`;
    // The last write, at 2 s: every sample of it, by series.
    const last = (lines: string) => {
      const at = String(Date.parse('2026-01-01T00:00:02Z'));
      return new Map(
        lines
          .trim()
          .split('\n')
          .filter((line) => line.endsWith(` ${at}`))
          .map((line) => [line.slice(0, line.lastIndexOf('} ') + 1), Number(line.split(' ').at(-2))]),
      );
    };
    const counted = before(Date.parse('2026-01-01T00:00:02Z'));
    const expected = new Map<string, number>();
    for (const span of counted) {
      const key = `traces_span_metrics_calls_total{${dimensions(span)}}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    expect(last(text('checkout.calls'))).to.deep.equal(expected);
    expect([...expected.keys()].some((key) => key.includes('STATUS_CODE_ERROR'))).to.equal(true);

    const durations = last(text('checkout.duration'));
    for (const [key, calls] of expected) {
      const labels = key.slice(key.indexOf('{') + 1, -1);
      const ms = counted
        .filter((span) => dimensions(span) === labels)
        .map((span) => Number(span.end - span.start) / 1e6);
      const name = 'traces_span_metrics_duration_milliseconds';
      expect(durations.get(`${name}_count{${labels}}`)).to.equal(calls);
      expect(durations.get(`${name}_sum{${labels}}`)).to.be.closeTo(
        ms.reduce((a, b) => a + b, 0),
        1e-6,
      );
      expect(durations.get(`${name}_bucket{le="10",${labels}}`)).to.equal(ms.filter((d) => d <= 10).length);
      expect(durations.get(`${name}_bucket{le="500",${labels}}`)).to.equal(ms.filter((d) => d <= 500).length);
      expect(durations.get(`${name}_bucket{le="+Inf",${labels}}`)).to.equal(calls);
    }
  });

  it('refuse a from that names no traces entry, and what exemplars and trace_context cannot be, naming the field', () => {
    expect(refusal(CHECKOUT, { ...LATENCY, exemplars: { from: 'nothing' } })).to.deep.equal([
      'scenarios[1] (http_request_duration_seconds): exemplars.from: no entry has id "nothing"',
    ]);
    expect(refusal(CHECKOUT, { ...LOGS, id: 'logs' }, { ...LATENCY, exemplars: { from: 'logs' } })).to.deep.equal([
      'scenarios[2] (http_request_duration_seconds): exemplars.from: "logs" is not a traces entry (exemplars names the spans of one)',
    ]);
    expect(
      refusal({
        name: 'temp',
        signal_type: 'metrics',
        rate: 1,
        generator: { type: 'constant', value: 1 },
        exemplars: {},
      }),
    ).to.deep.equal([
      'scenarios[0] (temp): exemplars: a metrics entry carries exemplars only as a counter (metric_type: counter)',
    ]);
    expect(refusal({ ...LATENCY, exemplars: { every: 2, probability: 0.5 } })).to.deep.equal([
      'scenarios[0] (http_request_duration_seconds): exemplars.probability: give every or probability, not both',
    ]);
    expect(refusal({ ...LATENCY, exemplars: { service: 'payment' } })).to.deep.equal([
      'scenarios[0] (http_request_duration_seconds): exemplars.service: names the service of spans: only with from',
    ]);
    expect(
      refusal(
        CHECKOUT,
        { ...LATENCY, exemplars: { from: 'checkout', service: 'billing' } },
        { ...LOGS, trace_context: { from: 'checkout', service: 'payment' } },
      ),
    ).to.deep.equal([
      'scenarios[1] (http_request_duration_seconds): exemplars.service: no span of "checkout" runs in service "billing" (its services: "frontend", "payment")',
    ]);
    // Exemplars name a service's server and consumer spans: a service running only other kinds would get none.
    const batch = {
      ...CHECKOUT,
      trace_generator: {
        ...CHECKOUT.trace_generator,
        root: {
          ...CHECKOUT.trace_generator.root,
          calls: [
            ...CHECKOUT.trace_generator.root.calls,
            { service: 'batch', operation: 'flush', kind: 'internal', duration: 0.001 },
          ],
        },
      },
    };
    expect(
      refusal(
        batch,
        { ...LATENCY, exemplars: { from: 'checkout', service: 'batch' } },
        { ...LOGS, trace_context: { from: 'checkout', service: 'batch' } },
      ),
    ).to.deep.equal([
      'scenarios[1] (http_request_duration_seconds): exemplars.service: no server or consumer span of "checkout" runs in service "batch", and exemplars name those (a request as the service served it): this entry would carry none (its services with some: "frontend", "payment")',
    ]);
    // Log records name spans of unsampled traces too: only the exemplars are refused.
    const unsampled = [
      'scenarios[1] (http_request_duration_seconds): exemplars.from: "checkout" marks no trace sampled (its trace_generator.sampled is false or 0), and exemplars name spans of sampled traces only: this entry would carry none',
    ];
    for (const sampled of [false, 0])
      expect(
        refusal(
          { ...CHECKOUT, trace_generator: { ...CHECKOUT.trace_generator, sampled } },
          { ...LATENCY, exemplars: { from: 'checkout' } },
          { ...LOGS, trace_context: { from: 'checkout' } },
        ),
      ).to.deep.equal(unsampled);
    expect(refusal(CHECKOUT, { ...LOGS, trace_context: { from: 'checkout', on: 'probability' } })).to.deep.equal([
      'scenarios[1] (payment_logs): trace_context.probability: required with on: probability',
    ]);
    expect(refusal({ ...CHECKOUT, sink: { type: 'file', path: '/tmp/t' }, span_metrics: true })).to.deep.equal([
      "scenarios[0] (checkout): span_metrics: the entry's file sink would mix spans and metrics: give span_metrics a sink (an OTLP sink sends each where it belongs)",
    ]);
    expect(
      refusal({ ...CHECKOUT, span_metrics: { sink: { type: 'stdout' }, encoder: { type: 'zipkin_json' } } }),
    ).to.deep.equal([
      'scenarios[0] (checkout): span_metrics.encoder.type: zipkin_json encodes traces only, not a metrics entry',
    ]);
    expect(refusal({ ...CHECKOUT, span_metrics: { sink: { type: 'stdout' }, namespace: 'a b-c' } })).to.deep.equal([
      'scenarios[0] (checkout): span_metrics.namespace: expected an OpenTelemetry instrument name prefix (a letter, then letters, digits, _ . - or /; at most 246 characters) or "", got "a b-c"',
    ]);
    expect(refusal({ ...CHECKOUT, span_metrics: { sink: { type: 'stdout' }, namespace: '1x' } })).to.have.length(1);
    expect(
      refusal({ ...CHECKOUT, span_metrics: { sink: { type: 'stdout' }, namespace: `a${'b'.repeat(246)}` } }),
    ).to.have.length(1);
    for (const namespace of ['', 'span.metrics', 'a/b-c_d', `a${'b'.repeat(245)}`])
      expect(() => file({ ...CHECKOUT, span_metrics: { sink: { type: 'stdout' }, namespace } })).not.to.throw();
    const collector = { type: 'otlp_grpc', endpoint: '127.0.0.1:4317' };
    expect(
      refusal({ ...CHECKOUT, span_metrics: { sink: { ...collector, resource: { 'service.name': 'shop' } } } }),
    ).to.deep.equal([
      "scenarios[0] (checkout): span_metrics.sink.resource: not allowed for span metrics: each service's metrics carry its resource from trace_generator.services",
    ]);
    expect(refusal({ ...CHECKOUT, exemplars: {} })).to.deep.equal([
      'scenarios[0] (checkout): exemplars: not allowed on a traces entry (only on histogram and summary and metrics entries)',
    ]);
  });
});
