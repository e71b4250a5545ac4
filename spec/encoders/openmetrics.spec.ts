import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMetrics } from '../../lib/encoders/openmetrics.js';
import { recordOf } from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';
import { scenarioDir, svc } from '../support/cli.js';
import { promtoolCheck } from '../support/promtool.js';

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
      expect(out, name).to.equal('# TYPE requests counter\nrequests_total 3 0\n');
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
      .encode(sampleBatch({ values: [2, 7, 2], offsets: [0, 0, 0], series: rows }))
      .data.toString();
    expect(out).to.equal(
      '# TYPE size_bytes histogram\n# UNIT size_bytes bytes\nsize_bytes_bucket{le="+Inf"} 2 0\nsize_bytes_sum 7 0\nsize_bytes_count 2 0\n',
    );
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
    expect(promtoolCheck(text)).to.deep.equal({ code: 0, problems: [] });
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
    // 2 h of one tick per 4 s: 1800 ticks of 6 series (the gauge; the histogram's buckets 0.05, 0.5, +Inf, _sum, _count).
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
    expect(samples!.reduce((a, b) => a + b)).to.equal(1800 * 6);
    expect(series!.reduce((a, b) => a + b)).to.equal(6 * blocks.length);
  });
});
