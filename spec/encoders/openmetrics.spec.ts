import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPENMETRICS_EOF, openMetrics } from '../../lib/encoders/openmetrics.js';
import { exemplarRows, recordOf, type Exemplar } from '../../operators/model/batch.js';
import { seriesOf, type Series } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';
import { scenarioDir, svc } from '../support/cli.js';
import { promtoolCheck, strictOpenMetricsCheck } from '../support/promtool.js';

const T0 = Date.UTC(2024, 0, 1); // 1704067200000

describe('openMetrics', () => {
  it("writes the family's TYPE, HELP and UNIT once, before its first sample, and timestamps in seconds", () => {
    const encoder = openMetrics({ name: 'latency_seconds', metricType: 'gauge', help: 'Latency "p50".\nIn s.' });
    const series = seriesOf({ app: 'api' });
    const first = encoder.encode(sampleBatch({ anchor: T0, offsets: [0, 250], values: [1, 0.5], series }));
    const second = encoder.encode(sampleBatch({ anchor: T0, offsets: [1001], values: [2], series }));
    expect(first.data.toString()).to.equal(
      '# TYPE latency_seconds gauge\n# HELP latency_seconds Latency \\"p50\\".\\nIn s.\n# UNIT latency_seconds seconds\n' +
        'latency_seconds{app="api"} 1 1704067200\nlatency_seconds{app="api"} 0.5 1704067200.25\n',
    );
    expect(second.data.toString()).to.equal('latency_seconds{app="api"} 2 1704067201.001\n');
    // The header travels in the first record; bytes count it.
    expect(recordOf(first, 0).toString()).to.equal(first.data.toString().split('\n').slice(0, 4).join('\n'));
    expect(recordOf(first, 1).toString()).to.equal('latency_seconds{app="api"} 0.5 1704067200.25');
    expect(first.bytes).to.equal(first.data.length);
  });

  it('names a counter family without _total and its samples with it, whether or not the entry name has it', () => {
    for (const name of ['requests', 'requests_total']) {
      const out = openMetrics({ name, metricType: 'counter' })
        .encode(sampleBatch({ values: [3] }))
        .data.toString();
      expect(out, name).to.equal('# TYPE requests counter\nrequests_total 3 0\nrequests_created 0 0\n');
    }
  });

  it('writes untyped as unknown, histogram rows with their suffixes, and precision decimals', () => {
    expect(
      openMetrics({ name: 'm', metricType: 'untyped', precision: 2 })
        .encode(sampleBatch({ values: [1 / 3] }))
        .data.toString(),
    ).to.equal('# TYPE m unknown\nm 0.33 0\n');
    const rows = [seriesOf({ le: '+Inf' }, '_bucket'), seriesOf({}, '_sum'), seriesOf({}, '_count')];
    const out = openMetrics({ name: 'size_bytes', metricType: 'histogram' })
      .encode({ ...sampleBatch({ values: [2, 7, 2], offsets: [0, 0, 0], series: rows }), events: 1 })
      .data.toString();
    expect(out).to.equal(
      '# TYPE size_bytes histogram\n# UNIT size_bytes bytes\nsize_bytes_bucket{le="+Inf"} 2 0\nsize_bytes_sum 7 0\nsize_bytes_count 2 0\n' +
        'size_bytes_created 0 0\n',
    );
  });
});

describe('openMetrics: _created and exemplars', () => {
  const exemplar = (n: number, value: number, timestamp: number): Exemplar => ({
    traceId: `4bf92f3577b34da6a3ce929d0e0e47${String(n).padStart(2, '0')}`,
    spanId: `00f067aa0ba902${String(n).padStart(2, '0')}`,
    value,
    timestamp,
  });
  const exemplarText = (e: Exemplar) =>
    ` # {trace_id="${e.traceId}",span_id="${e.spanId}"} ${e.value} ${e.timestamp / 1000}`;
  /** A histogram's rows (buckets 0.1 and +Inf, _sum, _count) for each event's cumulative [≤ 0.1, count, sum]. */
  const histogramRows = (events: [number, number, number][], offsets: number[], labels: Record<string, string>) => {
    const rows = [
      seriesOf({ ...labels, le: '0.1' }, '_bucket'),
      seriesOf({ ...labels, le: '+Inf' }, '_bucket'),
      seriesOf(labels, '_sum'),
      seriesOf(labels, '_count'),
    ];
    return {
      ...sampleBatch({
        anchor: T0,
        values: events.flatMap(([low, count, sum]) => [low, count, sum, count]),
        offsets: offsets.flatMap((o) => [o, o, o, o]),
        series: events.flatMap(() => rows),
      }),
      events: events.length,
    };
  };

  it("ends each event of a counter, histogram or summary with its _created sample: the entry start, the event's time", () => {
    const job = seriesOf({ job: 'a' });
    const counter = openMetrics({ name: 'jobs_total', metricType: 'counter' }).encode(
      sampleBatch({ anchor: T0 + 250, offsets: [0, 1000], values: [1, 2], series: job }),
    );
    expect(counter.data.toString()).to.equal(
      '# TYPE jobs counter\n' +
        'jobs_total{job="a"} 1 1704067200.25\njobs_created{job="a"} 1704067200.25 1704067200.25\n' +
        'jobs_total{job="a"} 2 1704067201.25\njobs_created{job="a"} 1704067200.25 1704067201.25\n',
    );
    // The _created line is part of its event's record.
    expect(counter.frames.perEvent).to.equal(2);
    expect(recordOf(counter, 3).toString()).to.equal('jobs_created{job="a"} 1704067200.25 1704067201.25');

    const histogram = openMetrics({ name: 'rpc_seconds', metricType: 'histogram' }).encode(
      histogramRows([[1, 2, 0.5]], [2000], { svc: 'api' }),
    );
    expect(histogram.data.toString().split('\n').slice(2, -1)).to.deep.equal([
      'rpc_seconds_bucket{le="0.1",svc="api"} 1 1704067202',
      'rpc_seconds_bucket{le="+Inf",svc="api"} 2 1704067202',
      'rpc_seconds_sum{svc="api"} 0.5 1704067202',
      'rpc_seconds_count{svc="api"} 2 1704067202',
      'rpc_seconds_created{svc="api"} 1704067200 1704067202',
    ]);
    const summaryRows = [seriesOf({ quantile: '0.5' }), seriesOf({}, '_sum'), seriesOf({}, '_count')];
    const summary = openMetrics({ name: 'rt', metricType: 'summary' }).encode({
      ...sampleBatch({ anchor: T0, values: [1, 2, 2], offsets: [0, 0, 0], series: summaryRows }),
      events: 1,
    });
    expect(summary.data.toString()).to.match(/rt_count 2 1704067200\nrt_created 1704067200 1704067200\n$/);
    for (const metricType of ['gauge', 'untyped'] as const)
      expect(
        openMetrics({ name: 'm', metricType })
          .encode(sampleBatch({ values: [1] }))
          .data.toString(),
      ).to.not.contain('_created');
  });

  it('writes _created to the millisecond whatever the precision: it is a time, never after its first sample', () => {
    const interned = seriesOf({ job: 'a' });
    // A series past interning (many label sets) is written through another path.
    const transient: Series = Object.freeze({ ...seriesOf({ job: 'b' }), transient: true });
    for (const series of [interned, transient]) {
      const out = openMetrics({ name: 'jobs_total', metricType: 'counter', precision: 0 })
        .encode(sampleBatch({ anchor: T0 + 978, offsets: [0, 1000], values: [1.4, 1.6], series }))
        .data.toString();
      expect(out.split('\n').slice(1, -1), series.labels.job).to.deep.equal([
        `jobs_total{job="${series.labels.job}"} 1 1704067200.978`,
        `jobs_created{job="${series.labels.job}"} 1704067200.978 1704067200.978`,
        `jobs_total{job="${series.labels.job}"} 2 1704067201.978`,
        `jobs_created{job="${series.labels.job}"} 1704067200.978 1704067201.978`,
      ]);
    }
  });

  it("writes exemplars after a counter's _total and a histogram's _bucket samples only", () => {
    const counterExemplars = [exemplar(1, 1, T0 + 400), undefined, exemplar(2, 0.5, T0 + 2500)];
    // The same value, series and millisecond as the line before: a copied run, unless an exemplar differs.
    const counter = openMetrics({ name: 'jobs', metricType: 'counter' }).encode({
      ...sampleBatch({ anchor: T0, offsets: [1000, 1000, 1000], values: [3, 3, 3] }),
      exemplars: exemplarRows(counterExemplars),
    });
    expect(
      counter.data
        .toString()
        .split('\n')
        .filter((line) => line.startsWith('jobs_total')),
    ).to.deep.equal([
      `jobs_total 3 1704067201${exemplarText(counterExemplars[0]!)}`,
      'jobs_total 3 1704067201',
      `jobs_total 3 1704067201${exemplarText(counterExemplars[2]!)}`,
    ]);
    expect(counter.frames.ends.at(-1)).to.equal(counter.data.length);

    const histogram = histogramRows(
      [
        [1, 2, 0.5],
        [1, 3, 2.5],
      ],
      [0, 1000],
      {},
    );
    // An exemplar on every row of the first event, on the +Inf bucket of the second.
    const rows = [0, 1, 2, 3].map((r) => exemplar(r, 0.05, T0 - 10));
    const late = exemplar(9, 2, T0 + 999);
    const lines = openMetrics({ name: 'rpc_seconds', metricType: 'histogram' })
      .encode({ ...histogram, exemplars: exemplarRows([...rows, undefined, late, undefined, undefined]) })
      .data.toString()
      .split('\n');
    expect(lines.filter((line) => line.includes(' # '))).to.deep.equal([
      `rpc_seconds_bucket{le="0.1"} 1 1704067200${exemplarText(rows[0]!)}`,
      `rpc_seconds_bucket{le="+Inf"} 2 1704067200${exemplarText(rows[1]!)}`,
      `rpc_seconds_bucket{le="+Inf"} 3 1704067201${exemplarText(late)}`,
    ]);

    const summaryRows = [seriesOf({ quantile: '0.5' }), seriesOf({}, '_sum'), seriesOf({}, '_count')];
    for (const [metricType, batch] of [
      ['gauge', sampleBatch({ values: [1] })],
      ['summary', { ...sampleBatch({ values: [1, 2, 2], offsets: [0, 0, 0], series: summaryRows }), events: 1 }],
    ] as const) {
      const withExemplars = { ...batch, exemplars: exemplarRows(Array(batch.size).fill(exemplar(1, 1, T0))) };
      expect(openMetrics({ name: 'm', metricType }).encode(withExemplars).data.toString(), metricType).to.not.contain(
        'trace_id',
      );
    }
  });

  it("writes an exemplar's value whole whatever the precision: its span's duration, inside its bucket", () => {
    // A span of 0.1004 s on the bucket (0.1, +Inf]: rounded to 0.10 it would be the lower bucket's, and no span's.
    const span = exemplar(1, 0.1004, T0);
    const lines = openMetrics({ name: 'rpc_seconds', metricType: 'histogram', precision: 2 })
      .encode({
        ...histogramRows([[1, 2, 0.1504]], [0], {}),
        exemplars: exemplarRows([undefined, span, undefined, undefined]),
      })
      .data.toString()
      .split('\n');
    expect(lines.filter((line) => line.includes(' # '))).to.deep.equal([
      `rpc_seconds_bucket{le="+Inf"} 2.00 1704067200${exemplarText(span)}`,
    ]);
    // Sample values keep the precision asked for.
    expect(lines).to.include('rpc_seconds_sum 0.15 1704067200');
  });

  it("Prometheus' own OpenMetrics parser (promtool tsdb create-blocks-from openmetrics) takes the output with its exemplars and _created", () => {
    const { scenario } = scenarioDir('svc-om-exemplars-');
    const load = (text: string, name: string) => {
      const file = scenario(name, text);
      return spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', file, `${file}.tsdb`], {
        encoding: 'utf8',
      });
    };
    const counter = openMetrics({ name: 'jobs', metricType: 'counter', help: 'Jobs.' }).encode({
      ...sampleBatch({ anchor: T0, offsets: [0, 1000], values: [1, 4], series: seriesOf({ job: 'a' }) }),
      exemplars: exemplarRows([exemplar(1, 1, T0 - 100), exemplar(2, 3, T0 + 900)]),
    });
    const histogram = openMetrics({ name: 'rpc_seconds', metricType: 'histogram', help: 'RPC latency.' }).encode({
      ...histogramRows([[1, 2, 0.5]], [0], {}),
      exemplars: exemplarRows([exemplar(3, 0.05, T0), exemplar(4, 0.45, T0), exemplar(5, 9, T0), undefined]),
    });
    const text = `${counter.data}${histogram.data}${OPENMETRICS_EOF}`;
    // A parse of our own that the exemplars are where they should be: a _total or a _bucket sample's.
    const carriers = text
      .split('\n')
      .filter((line) => line.includes(' # {'))
      .map((line) => line.split(/[{ ]/)[0]);
    expect(carriers).to.deep.equal(['jobs_total', 'jobs_total', 'rpc_seconds_bucket', 'rpc_seconds_bucket']);
    const loaded = load(text, 'ok.om');
    expect(loaded.status, `${loaded.stdout}${loaded.stderr}`).to.equal(0);
    // The parser checks where exemplars go: the same text with one on a _sum sample is refused.
    const misplaced = text.replace(/(rpc_seconds_sum 0.5 1704067200)/, `$1${` # {trace_id="00"} 1 1704067200`}`);
    const refused = load(misplaced, 'bad.om');
    expect(refused.status).to.equal(1);
    expect(refused.stderr).to.contain('rpc_seconds_sum does not support exemplars');
  });
});

describe('openMetrics: a histogram without a sum', () => {
  /** One event of a histogram over buckets -1, 0 and +Inf: 1, 2 and 3 observations, summing to -1.5. */
  const rows = [
    seriesOf({ le: '-1' }, '_bucket'),
    seriesOf({ le: '0' }, '_bucket'),
    seriesOf({ le: '+Inf' }, '_bucket'),
    seriesOf({}, '_sum'),
    seriesOf({}, '_count'),
  ];
  const event = (offset: number) =>
    sampleBatch({ anchor: T0, values: [1, 2, 3, -1.5, 3], offsets: Array(5).fill(offset), series: rows });
  const trace = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', value: -2, timestamp: T0 };

  it('writes neither _sum nor _count, and keeps each exemplar on its _bucket line; a strict parser takes it', () => {
    const [first, second] = [event(0), event(1000)];
    const batch = {
      ...sampleBatch({
        anchor: T0,
        values: [...first.value, ...second.value],
        offsets: [...first.offset, ...second.offset],
        series: [...rows, ...rows],
      }),
      events: 2,
      exemplars: exemplarRows([trace, undefined, undefined, undefined, undefined, undefined, undefined, trace]),
    };
    const encoded = openMetrics({ name: 'delta', metricType: 'histogram', withoutSum: true }).encode(batch);
    const text = encoded.data.toString();
    const exemplar = ' # {trace_id="4bf92f3577b34da6a3ce929d0e0e4736",span_id="00f067aa0ba902b7"} -2 1704067200';
    expect(text.split('\n').slice(1, -1)).to.deep.equal([
      `delta_bucket{le="-1"} 1 1704067200${exemplar}`,
      'delta_bucket{le="0"} 2 1704067200',
      'delta_bucket{le="+Inf"} 3 1704067200',
      'delta_created 1704067200 1704067200',
      'delta_bucket{le="-1"} 1 1704067201',
      'delta_bucket{le="0"} 2 1704067201',
      `delta_bucket{le="+Inf"} 3 1704067201${exemplar}`,
      'delta_created 1704067200 1704067201',
    ]);
    expect(encoded.frames.ends.at(-1)).to.equal(encoded.data.length);
    const one = openMetrics({ name: 'delta', metricType: 'histogram', withoutSum: true }).encode({
      ...event(0),
      events: 1,
    });
    expect(strictOpenMetricsCheck(`${one.data}${OPENMETRICS_EOF}`)).to.equal('ok');
    // With them, the strict parser refuses the sum.
    const summed = openMetrics({ name: 'delta', metricType: 'histogram' }).encode({ ...event(0), events: 1 });
    expect(strictOpenMetricsCheck(`${summed.data}${OPENMETRICS_EOF}`)).to.match(/negative/);
  });
});

describe('openmetrics in a file, with its real consumers', function () {
  this.timeout(30_000);
  const { dir, scenario } = scenarioDir('svc-openmetrics-');

  const twoEntries = (out: string, start: string, duration: string) => `
version: 2
kind: runnable
defaults:
  start_time: ${start}
  duration: ${duration}
  encoder: {type: openmetrics}
  sink: {type: file, path: ${out}}
scenarios:
  - signal_type: metrics
    name: room_temperature_celsius
    help: Temperature of the room.
    rate: 0.25
    generator: {type: sine, amplitude: 2, period_secs: 3600, offset: 21}
    labels: {room: lab}
  - signal_type: histogram
    name: request_seconds
    help: Request latency.
    rate: 0.25
    distribution: {type: exponential, rate: 8}
    observations_per_tick: 5
    seed: 3
    buckets: [0.05, 0.5]
`;

  it('ends the stream with one # EOF, after every entry, and passes promtool check metrics', async () => {
    const out = join(dir, 'check.om');
    const run = await svc([
      'run',
      '-q',
      '--backfill',
      scenario('check.yaml', twoEntries(out, '2026-01-01T00:00:00Z', '1m')),
    ]);
    expect(run.code, run.stderr).to.equal(0);
    const text = readFileSync(out, 'utf8');
    expect(text.match(/^# EOF$/gm)).to.have.length(1);
    expect(text.endsWith('\n# EOF\n')).to.equal(true);
    expect(text.match(/^# TYPE .*/gm)).to.deep.equal([
      '# TYPE room_temperature_celsius gauge',
      '# TYPE request_seconds histogram',
    ]);
    // promtool check metrics reads the classic text format, where `_created` is a metric of its own, without HELP:
    // a lint (exit 3), not a parse error (exit 1).
    expect(promtoolCheck(text)).to.deep.equal({ code: 3, problems: ['request_seconds_created no help text'] });
  });

  it('ends stdout with one # EOF when several entries write to it', async () => {
    const file = scenario(
      'stdout.yaml',
      twoEntries('unused', '2026-01-01T00:00:00Z', '20s').replace(/ {2}sink: .*\n/, ''),
    );
    const run = await svc(['run', '-q', '--backfill', file]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.match(/^# EOF$/gm)).to.have.length(1);
    expect(run.stdout.endsWith('\n# EOF\n')).to.equal(true);
    expect(run.stdout.match(/^request_seconds_count /gm)).to.have.length(5);
  });

  it('backfills 2 h of samples that promtool tsdb create-blocks-from openmetrics turns into a block', async () => {
    const out = join(dir, 'backfill.om');
    const data = join(dir, 'tsdb');
    const run = await svc([
      'run',
      '-q',
      '--backfill',
      scenario('backfill.yaml', twoEntries(out, '2026-01-01T00:00:00Z', '2h')),
    ]);
    expect(run.code, run.stderr).to.equal(0);
    const load = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', out, data], { encoding: 'utf8' });
    expect(load.status, `${load.stdout}${load.stderr}`).to.equal(0);
    const list = spawnSync('promtool', ['tsdb', 'list', data], { encoding: 'utf8' });
    expect(list.status, list.stderr).to.equal(0);
    // 2 h of one tick per 4 s: 1800 ticks of 7 series (the gauge; the histogram's buckets 0.05, 0.5, +Inf, _sum,
    // _count and _created, which Prometheus 2 stores as a series).
    const blocks = list.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((row) => row.trim().split(/\s+/));
    const [minTime, maxTime, samples, series] = [1, 2, 4, 6].map((column) =>
      blocks.map((block) => Number(block[column])),
    );
    expect(Math.min(...minTime!)).to.equal(Date.UTC(2026, 0, 1));
    expect(Math.max(...maxTime!)).to.equal(Date.UTC(2026, 0, 1, 2) - 4_000 + 1);
    expect(samples!.reduce((a, b) => a + b)).to.equal(1800 * 7);
    expect(series!.reduce((a, b) => a + b)).to.equal(7 * blocks.length);
  });

  it('leaves out _sum and _count of a histogram with a negative bound or whose mean is not above 0, not of others', async () => {
    const histogram = (distribution: string, buckets: string) =>
      scenario(
        'sumless.yaml',
        `signal_type: histogram\nname: delta\nrate: 1\nduration: 1s\nstart_time: 2026-01-01T00:00:00Z\n` +
          `encoder: {type: openmetrics}\nobservations_per_tick: 5\ndistribution: ${distribution}\nbuckets: ${buckets}\n`,
      );
    const cases = [
      ['{type: normal, mean: 0, stddev: 1}', '[-1, 0, 1]', false],
      ['{type: normal, mean: 0, stddev: 1}', '[0.5, 1]', false],
      ['{type: uniform, min: 1, max: 2, mean_shift_per_sec: -2}', '[0.5, 1]', false],
      ['{type: normal, mean: 5, stddev: 1}', '[0.5, 1]', true],
      ['{type: uniform, min: 1, max: 2, mean_shift_per_sec: -1}', '[0.5, 1]', true],
    ] as const;
    for (const [distribution, buckets, summed] of cases) {
      const run = await svc(['run', '-q', '--backfill', histogram(distribution, buckets)]);
      expect(run.code, run.stderr).to.equal(0);
      const lines = run.stdout.split('\n');
      const what = `${distribution} ${buckets}`;
      expect(
        lines.some((line) => line.startsWith('delta_sum ')),
        what,
      ).to.equal(summed);
      expect(
        lines.some((line) => line.startsWith('delta_count ')),
        what,
      ).to.equal(summed);
      expect(strictOpenMetricsCheck(run.stdout), what).to.equal('ok');
    }
  });
});
