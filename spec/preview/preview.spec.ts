import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { loadScenario } from '../../lib/config/index.js';
import { compileScenario } from '../../lib/compile/index.js';
import {
  defaultPreviewFor,
  MAX_PREVIEW_ROWS,
  PREVIEW_EPOCH,
  previewScenario,
  PreviewError,
  type Preview,
} from '../../lib/preview/index.js';
import { legendOf } from '../../lib/preview/points.js';

const plan = (yaml: string) =>
  compileScenario(loadScenario(yaml, { origin: 'test.yaml', format: 'yaml' }), { origin: 'test.yaml' }).plans;

const file = (entries: string) => `
version: 2
kind: runnable
scenarios:
${entries}`;

/** A counter at one a second (n at n s), for `after` and `while` to watch. */
const LOAD = `  - id: load
    name: load
    signal_type: metrics
    rate: 1
    generator: {type: step, step_size: 1}
`;

/** The first minute, in ten points, of `entries` watching {@link LOAD}. */
const besideLoad = (entries: string) => previewScenario(plan(file(`${LOAD}${entries}`)), { for: 60_000, points: 10 });

const entryOf = (preview: Preview, id: string) => preview.entries.find((entry) => entry.id === id)!;

describe('previewScenario: a file on a time grid of virtual time', () => {
  it('holds the last sample of a label set in each step, null in a gap and after the end, and marks the windows', async () => {
    const preview = await previewScenario(
      plan(
        file(`
  - id: m
    name: m
    signal_type: metrics
    rate: 1
    duration: 50s
    labels: {job: a}
    generator: {type: step, step_size: 1}
    gaps: {every: 40s, for: 20s}
    bursts: {every: 40s, for: 5s, multiplier: 2}
`),
      ),
      { for: 60_000, points: 12 },
    );
    expect(preview).to.include({ from: PREVIEW_EPOCH, step: 5000, points: 12 });
    const m = entryOf(preview, 'm');
    expect(m).to.include({ signal: 'metrics', type: 'counter', unit: 'value' });
    expect(m.series.map((series) => series.name)).to.deep.equal(['{job="a"}']);
    // In a 5 s burst the rate doubles: values 0 … 9 in [0, 5 s), then one a second (t + 5 at t s), ten more in
    // [40 s, 45 s) (45 … 54); silent in [20 s, 40 s).
    expect(m.series[0]!.values).to.deep.equal([9, 14, 19, 24, null, null, null, null, 54, 59, null, null]);
    const at = (s: number) => PREVIEW_EPOCH + s * 1000;
    expect(m.marks).to.deep.equal([
      { kind: 'start', at: at(0) },
      { kind: 'end', at: at(50) },
      { kind: 'burst', at: at(0), until: at(5), label: '×2' },
      { kind: 'burst', at: at(40), until: at(45), label: '×2' },
      { kind: 'gap', at: at(20), until: at(40) },
    ]);
  });

  it('marks gap_windows as the run silences them: overlapping, unsorted windows as one gap', async () => {
    const preview = await previewScenario(
      plan(
        file(`
  - id: m
    name: m
    signal_type: metrics
    rate: 1
    labels: {job: a}
    generator: {type: constant, value: 1}
    gap_windows: [{at: 40s, for: 5s}, {at: 10s, for: 10s}, {at: 15s, for: 10s}, {at: 25s, for: 5s}]
`),
      ),
      { for: 60_000, points: 12 },
    );
    const m = entryOf(preview, 'm');
    const at = (s: number) => PREVIEW_EPOCH + s * 1000;
    expect(m.marks).to.deep.equal([
      { kind: 'start', at: at(0) },
      { kind: 'gap', at: at(10), until: at(30) },
      { kind: 'gap', at: at(40), until: at(45) },
    ]);
    expect(m.series[0]!.values).to.deep.equal([1, 1, null, null, null, null, 1, 1, null, 1, 1, 1]);
  });

  it("marks cardinality spike windows and the incident windows of a traces entry's spans, cut to the run", async () => {
    const preview = await previewScenario(
      plan(
        file(`
  - id: m
    name: m
    signal_type: metrics
    rate: 1
    phase_offset: 5s
    generator: {type: constant, value: 1}
    cardinality_spikes: [{label: pod, every: 40s, for: 10s, cardinality: 50}]
  - id: t
    name: t
    signal_type: traces
    rate: 1
    duration: 45s
    trace_generator:
      seed: 3
      services: {a: {version: '1'}, b: {version: '1'}}
      root:
        service: a
        operation: checkout
        kind: server
        incident: {start: 10s, for: 20s, error_rate: 1}
        calls:
          - {service: b, operation: charge, kind: client, duration: 0.01, incident: {start: 40s, for: 30s, error_rate: 1}}
`),
      ),
      { for: 60_000, points: 10 },
    );
    const at = (s: number) => PREVIEW_EPOCH + s * 1000;
    expect(entryOf(preview, 'm').marks.filter((mark) => mark.kind === 'spike')).to.deep.equal([
      { kind: 'spike', at: at(5), until: at(15), label: 'spike pod: 50 values' },
      { kind: 'spike', at: at(45), until: at(55), label: 'spike pod: 50 values' },
    ]);
    // The call's incident is cut where the entry ends (45 s).
    expect(entryOf(preview, 't').marks.filter((mark) => mark.kind === 'incident')).to.deep.equal([
      { kind: 'incident', at: at(10), until: at(30), label: 'incident checkout' },
      { kind: 'incident', at: at(40), until: at(45), label: 'incident charge' },
    ]);
  });

  it('starts an entry where its after trigger fires, and marks the spans its while gate was open', async () => {
    const preview = await besideLoad(`  - id: page
    name: page
    signal_type: metrics
    rate: 1
    generator: {type: constant, value: 1}
    after: {ref: load, op: '>', value: 29, delay: 10s}
  - id: hot
    name: hot
    signal_type: metrics
    rate: 1
    generator: {type: constant, value: 2}
    while: {ref: load, op: '>', value: 39}
`);
    const at = (s: number) => PREVIEW_EPOCH + s * 1000;
    // load is 30 at 30 s: page starts 10 s later, and has no end within the minute.
    expect(entryOf(preview, 'page').marks).to.deep.equal([
      { kind: 'after', at: at(40), label: 'after load > 29 + 10s' },
    ]);
    // Steps of 6 s: the first tick of page, at 40 s, is in step 6.
    expect(entryOf(preview, 'page').series[0]!.values).to.deep.equal([null, null, null, null, null, null, 1, 1, 1, 1]);
    expect(entryOf(preview, 'hot').marks).to.deep.equal([
      { kind: 'start', at: at(0) },
      { kind: 'while', at: at(40), until: at(60), label: 'while load > 39' },
    ]);
    expect(entryOf(preview, 'hot').series[0]!.values).to.deep.equal([null, null, null, null, null, null, 2, 2, 2, 2]);
  });

  it("cuts a while gate's open span to the entry's run: an entry that ended is no longer open", async () => {
    const preview = await besideLoad(`  - id: short
    name: short
    signal_type: metrics
    rate: 1
    duration: 50s
    generator: {type: constant, value: 1}
    while: {ref: load, op: '>', value: 39}
`);
    const at = (s: number) => PREVIEW_EPOCH + s * 1000;
    // Open from 40 s while load keeps rising, but short writes nothing past its end at 50 s.
    expect(entryOf(preview, 'short').marks).to.deep.equal([
      { kind: 'start', at: at(0) },
      { kind: 'end', at: at(50) },
      { kind: 'while', at: at(40), until: at(50), label: 'while load > 39' },
    ]);
  });

  it('shows an entry whose after trigger fired but whose delay runs past the axis as never started', async () => {
    const preview = await besideLoad(`  - id: late
    name: late
    signal_type: metrics
    rate: 1
    generator: {type: constant, value: 1}
    after: {ref: load, op: '>', value: 29, delay: 10m}
`);
    // Triggered at 30 s, it would start at 10m30s, beyond the minute shown.
    expect(entryOf(preview, 'late').marks).to.deep.equal([]);
    expect(
      entryOf(preview, 'late')
        .series.flatMap((series) => series.values)
        .every((v) => v === null),
    ).to.equal(true);
  });

  it('draws logs per severity, traces as spans/s and error ratio, and a histogram as a p50/p90/p99 band', async () => {
    const preview = await previewScenario(
      plan(
        file(`
  - id: logs
    name: logs
    signal_type: logs
    rate: 10
    log_generator: {type: template, seed: 1, templates: [{message: hi}], severity_weights: {info: 3, error: 1}}
  - id: lat
    name: lat
    signal_type: histogram
    rate: 1
    distribution: {type: uniform, min: 0, max: 1}
    observations_per_tick: 100
  - id: t
    name: t
    signal_type: traces
    rate: 2
    trace_generator:
      seed: 3
      services: {a: {version: '1'}}
      root: {service: a, operation: op, kind: server, error_rate: 0.5}
`),
      ),
      { for: 100_000, points: 10 },
    );
    const logs = entryOf(preview, 'logs');
    expect(logs).to.include({ signal: 'logs', type: 'logs', unit: 'events/s' });
    expect(logs.series.map((series) => series.name)).to.deep.equal(['info', 'error']);
    for (let i = 0; i < 10; i++) expect(logs.series[0]!.values[i]! + logs.series[1]!.values[i]!).to.equal(10);
    const band = entryOf(preview, 'lat').series;
    expect(band.map((series) => series.name)).to.deep.equal(['p50', 'p90', 'p99']);
    for (const [series, q] of [
      [band[0]!, 0.5],
      [band[1]!, 0.9],
      [band[2]!, 0.99],
    ] as const)
      for (const value of series.values) expect(value).to.be.closeTo(q, 0.1);
    const traces = entryOf(preview, 't');
    expect(traces.series.map((series) => series.name)).to.deep.equal(['spans/s', 'error ratio']);
    expect(traces.series[0]!.values).to.deep.equal(new Array(10).fill(2));
    const ratio = traces.series[1]!.values as number[];
    expect(ratio.reduce((sum, r) => sum + r, 0) / 10).to.be.closeTo(0.5, 0.15);
  });

  it('draws min, mean and max past eight label sets', async () => {
    const preview = await previewScenario(
      plan(
        file(`
  - id: m
    name: m
    signal_type: metrics
    rate: 10
    generator: {type: step, step_size: 1}
    dynamic_labels: [{key: pod, cardinality: 10}]
`),
      ),
      { for: 10_000, points: 10 },
    );
    const [min, mean, max] = entryOf(preview, 'm').series;
    expect([min!.name, mean!.name, max!.name]).to.deep.equal(['min', 'mean', 'max']);
    // Second k writes the values 10k … 10k + 9.
    expect(min!.values[3]).to.equal(30);
    expect(mean!.values[3]).to.equal(34.5);
    expect(max!.values[3]).to.equal(39);
  });

  it('gives the same data for the same file, and runs the entries an entry needs when asked for one', async () => {
    const text = readFileSync('examples/plot.yaml', 'utf8');
    const entries = compileScenario(loadScenario(text, { origin: 'plot.yaml', format: 'yaml' }), {
      origin: 'plot.yaml',
    }).plans;
    const options = { for: 1_800_000, points: 120 };
    const [first, second] = [await previewScenario(entries, options), await previewScenario(entries, options)];
    expect(JSON.stringify(first)).to.equal(JSON.stringify(second));
    const page = await previewScenario(entries, { ...options, entry: 'page' });
    expect(page.entries.map((entry) => entry.id)).to.deep.equal(['page']);
    expect(page.entries[0]).to.deep.equal(entryOf(first, 'page'));
  });

  it("draws span metrics: calls as a counter, duration as a band of the spans' durations in their unit", async () => {
    const text = readFileSync('examples/incident.yaml', 'utf8');
    const entries = compileScenario(loadScenario(text, { origin: 'incident.yaml', format: 'yaml' }), {
      origin: 'incident.yaml',
    }).plans;
    // Only the durations: the traces entry they count runs too, without a chart.
    const preview = await previewScenario(entries, { for: 900_000, points: 15, entry: 'checkout.duration' });
    expect(preview.entries.map((entry) => entry.id)).to.deep.equal(['checkout.duration']);
    const [duration] = preview.entries;
    expect(duration).to.include({ signal: 'metrics', type: 'histogram', unit: 'milliseconds' });
    const p99 = duration!.series.find((series) => series.name === 'p99')!.values as number[];
    // Payment slows to 1 to 3 s from minute 5 to minute 10: the slowest spans of those minutes are seconds long.
    expect(p99.slice(0, 5).every((ms) => ms < 100)).to.equal(true);
    expect(p99.slice(6, 10).every((ms) => ms > 1000)).to.equal(true);
    const calls = await previewScenario(entries, { for: 900_000, points: 15, entry: 'checkout.calls' });
    expect(calls.entries[0]).to.include({ type: 'counter', unit: 'value' });
  });

  it('defaults its span to where the last entry run ends, from 1s to 30m, or 30m when an end is unknown', async () => {
    const plans = (entries: string) => plan(file(entries));
    const entry = (id: string, rest: string) =>
      `  - {id: ${id}, name: ${id}, signal_type: metrics, rate: 1, generator: {type: step, step_size: 1}, ${rest}}\n`;
    const timed = plans(
      entry('load', 'duration: 2m') +
        entry('late', 'duration: 10s, phase_offset: 30s') +
        // The compiler predicts load's crossing of 60 at its 61st tick: 1m1s, + 5s delay, + 1m.
        entry('page', "duration: 1m, after: {ref: load, op: '>', value: 60, delay: 5s}"),
    );
    expect(defaultPreviewFor(timed)).to.equal(126_000);
    expect(defaultPreviewFor(timed, 'late')).to.equal(40_000);
    // An entry runs with those it watches: load's 2 minutes count.
    expect(defaultPreviewFor(timed, 'page')).to.equal(126_000);
    expect(defaultPreviewFor(plans(entry('long', 'duration: 2h')))).to.equal(1_800_000);
    expect(defaultPreviewFor(plans(entry('short', 'duration: 100ms')))).to.equal(1000);
    // No duration, or an `after` start only the run can tell (a crossing of a jittered entry): 30 minutes.
    expect(defaultPreviewFor(plans(entry('endless', 'labels: {a: b}')))).to.equal(1_800_000);
    const jittered = plans(
      entry('load', 'duration: 2m, jitter: 0.1') +
        entry('page', "duration: 1m, after: {ref: load, op: '>', value: 60}"),
    );
    expect(defaultPreviewFor(jittered)).to.equal(1_800_000);
    // previewScenario takes that span when the caller gives no `for`.
    const short = await previewScenario(plans(entry('short', 'duration: 100ms')), { points: 10 });
    expect(short).to.include({ step: 100, points: 10 });
    const late = await previewScenario(timed, { entry: 'late', points: 40 });
    expect(late).to.include({ step: 1000, points: 40 });
  });

  it('anchors from at an absolute start_time, or at the instant the caller passes', async () => {
    const entries = plan(
      file(`
  - id: m
    name: m
    signal_type: metrics
    rate: 1
    start_time: '2024-05-01T00:00:00Z'
    generator: {type: constant, value: 1}
`),
    );
    expect((await previewScenario(entries, { for: 10_000, points: 10 })).from).to.equal(Date.UTC(2024, 4, 1));
    const relative = plan(
      file(`
  - id: m
    name: m
    signal_type: metrics
    rate: 1
    start_time: -1h
    generator: {type: constant, value: 1}
`),
    );
    expect((await previewScenario(relative, { for: 10_000, points: 10, start: 7_200_000 })).from).to.equal(3_600_000);
  });

  it('refuses a span past 24h, a grid out of bounds, an unknown entry and too much work, naming each', async () => {
    const entries = plan(
      file(`
  - id: busy
    name: busy
    signal_type: metrics
    rate: 100000
    generator: {type: constant, value: 1}
`),
    );
    const refusal = async (options: Parameters<typeof previewScenario>[1]) => {
      try {
        await previewScenario(entries, options);
      } catch (error) {
        expect(error).to.be.instanceOf(PreviewError);
        return error as PreviewError;
      }
      throw new Error('not refused');
    };
    expect(await refusal({ for: 86_400_001, points: 100 })).to.include({ option: 'for' });
    expect((await refusal({ for: 60_000, points: 9 })).message).to.equal(
      'points: expected a whole number from 10 to 2000, got 9',
    );
    expect((await refusal({ for: 60_000, points: 100, entry: 'nope' })).message).to.match(/^entry: .*"nope".*busy/);
    const costly = await refusal({ for: 3_600_000, points: 100 });
    expect(costly.option).to.equal('rate');
    expect(costly.message)
      .to.contain('busy, at rate 100000 events/s over 1h')
      .and.contain(MAX_PREVIEW_ROWS.toLocaleString('en'));
  });

  it('counts the rows of an entry whose ticks build their own label sets as the slower work they are', async () => {
    // 9,000,000 rows: under the bound with one label set, but a label set built per row takes 2.5 times as long.
    const entries = plan(
      file(`
  - id: users
    name: users
    signal_type: metrics
    rate: 5000
    generator: {type: constant, value: 1}
    dynamic_labels: [{key: user, cardinality: 10000000}]
`),
    );
    const refused = await previewScenario(entries, { for: 1_800_000, points: 100 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(PreviewError).and.include({ option: 'rate' });
    expect((refused as PreviewError).message)
      .to.contain('about 22,500,000 rows')
      .and.contain('users, at rate 5000 events/s over 30m, a row counted 2.5 times as it builds its own label set');
  });

  it('counts the events of a burst while it lasts, not its multiplier over the whole run', async () => {
    const entries = plan(
      file(`
  - id: bursty
    name: bursty
    signal_type: metrics
    rate: 20000
    generator: {type: constant, value: 1}
    bursts: {every: 10m, for: 1m, multiplier: 5}
`),
    );
    const refused = await previewScenario(entries, { for: 1_800_000, points: 100 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // 20,000 a second for 30 minutes, 5 times that in 3 minutes of them: 36,000,000 + 4 × 3,600,000, not 180,000,000.
    expect(refused).to.be.instanceOf(PreviewError);
    expect((refused as PreviewError).message).to.contain('about 50,400,000 rows');
  });

  it('counts each event of an entry in step with the clock (a while gate, spans named) as the wake-up it costs', async () => {
    // 9,003,600 rows, under the bound; but the clock wakes up for each event of a gated entry and of the one it
    // watches, about 8 rows' work: ahead of the clock these rows take 2.5 s of CPU, in step with it 18 s.
    const entries = plan(
      file(`${LOAD}
  - id: gated
    name: gated
    signal_type: metrics
    rate: 2500
    generator: {type: constant, value: 1}
    while: {ref: load, op: '>', value: 0}
`),
    );
    // Unrefused, it would run for 18 s: stopped after a second, the preview rejects without a PreviewError.
    const refused = await previewScenario(entries, {
      for: 3_600_000,
      points: 100,
      signal: AbortSignal.timeout(1000),
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(PreviewError).and.include({ option: 'rate' });
    expect((refused as PreviewError).message)
      .to.contain('about 81,032,400 rows')
      .and.contain('gated, at rate 2500 events/s over 1h, each event counted 8 rows more as it runs in step');
  });
});

describe('legendOf: the labels all series of a chart share, lifted into its title', () => {
  const named = (...names: string[]) => names.map((name) => ({ name, values: [] }));

  it('keeps in each name only the labels that differ', () => {
    expect(legendOf(named('{env="a",host="1"}', '{env="a",host="2"}'))).to.deep.equal({
      shared: '{env="a"}',
      names: ['{host="1"}', '{host="2"}'],
    });
  });

  it('lifts nothing when a series has only the shared labels, which would leave it named {}', () => {
    expect(legendOf(named('{env="a"}', '{env="a",host="2"}'))).to.deep.equal({
      names: ['{env="a"}', '{env="a",host="2"}'],
    });
  });
});
