import { expect } from 'chai';
import { influxLp } from '../../lib/encoders/influx-lp.js';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { seriesOf } from '../../operators/model/series.js';
import { waitFor } from '../support/backends/ports.js';
import { startInfluxDb, type InfluxDb } from '../support/backends/influxdb.js';
import { startVictoriaMetrics, type VictoriaMetrics } from '../support/backends/victoria-metrics.js';
import { sampleBatch } from '../support/batches.js';
import { metricEntry } from '../support/entries.js';

const T0 = Date.UTC(2024, 0, 1); // 1704067200000

describe('influxLp', () => {
  it('writes one line per sample: measurement,tags field=value timestamp_ns', () => {
    const series = seriesOf({ method: 'GET', app: 'api' });
    const out = influxLp({ name: 'http_requests' })
      .encode(sampleBatch({ anchor: T0, offsets: [0, 250], values: [1, 0.5], series }))
      .data.toString();
    expect(out).to.equal(
      'http_requests,app=api,method=GET value=1 1704067200000000000\n' +
        'http_requests,app=api,method=GET value=0.5 1704067200250000000\n',
    );
  });

  it('takes field_key and precision, and writes no tags for a series without labels', () => {
    const out = influxLp({ name: 'up', fieldKey: 'gauge', precision: 2 })
      .encode(sampleBatch({ anchor: T0, values: [1 / 3] }))
      .data.toString();
    expect(out).to.equal('up gauge=0.33 1704067200000000000\n');
  });

  it('escapes commas, equals signs, spaces and backslashes in tags and the field key, and leaves out empty labels', () => {
    const series = seriesOf({ 'a b': 'x,y=z \\', empty: '', line: 'one\ntwo' });
    const out = influxLp({ name: 'm', fieldKey: 'f=1' })
      .encode(sampleBatch({ values: [2], series }))
      .data.toString();
    expect(out).to.equal('m,a\\ b=x\\,y\\=z\\ \\\\,line=one\\ntwo f\\=1=2 0000000\n');
  });

  it('leaves a backslash as it is unless a reader would take it for an escape', () => {
    const series = seriesOf({ dir: 'C:\\logs\\', path: 'a\\ b' });
    const out = influxLp({ name: 'm' })
      .encode(sampleBatch({ values: [1], series }))
      .data.toString();
    expect(out).to.equal('m,dir=C:\\logs\\\\,path=a\\\\\\ b value=1 0000000\n');
  });

  it('writes the nanoseconds of a time within its millisecond, so that ticks in one millisecond stay distinct points', () => {
    const out = influxLp({ name: 'm' })
      .encode(sampleBatch({ anchor: T0, offsets: [0, 1 / 3, 2 / 3, 1], values: [0, 1, 2, 3] }))
      .data.toString();
    expect(out).to.equal(
      'm value=0 1704067200000000000\n' +
        'm value=1 1704067200000333333\n' +
        'm value=2 1704067200000666667\n' +
        'm value=3 1704067200001000000\n',
    );
  });

  it('gives each copy of a repeated line (a constant at a high rate) its own nanoseconds, before 1970 too', () => {
    const encoder = influxLp({ name: 'm' });
    const offsets = [0, 0.25, 0.25, 0.5, 1, 1.5];
    const out = encoder.encode(sampleBatch({ anchor: T0, offsets, values: offsets.map(() => 7) })).data.toString();
    expect(out).to.equal(
      ['000000000', '000250000', '000250000', '000500000', '001000000', '001500000']
        .map((ns) => `m value=7 1704067200${ns}\n`)
        .join(''),
    );
    const before = encoder.encode(sampleBatch({ anchor: -5, offsets: [0, 0.5, 0.75], values: [7, 7, 7] }));
    expect(before.data.toString()).to.equal('m value=7 -5000000\nm value=7 -4500000\nm value=7 -4250000\n');
    // Truly repeated lines before 1970, each stamp written whole: a copy of the first would carry its time.
    const repeated = encoder.encode(sampleBatch({ anchor: -5, offsets: [0, 0.5, 0.5], values: [7, 7, 7] }));
    expect(repeated.data.toString()).to.equal('m value=7 -5000000\nm value=7 -4500000\nm value=7 -4500000\n');
  });

  it('counts the nanoseconds of a time before 1970 towards 0', () => {
    const out = influxLp({ name: 'm' })
      .encode(sampleBatch({ anchor: -5, offsets: [0, 0.5, 4.75], values: [0, 1, 2] }))
      .data.toString();
    expect(out).to.equal('m value=0 -5000000\nm value=1 -4500000\nm value=2 -250000\n');
  });

  it("writes a histogram row's suffix on the measurement", () => {
    const rows = [seriesOf({ le: '0.5' }, '_bucket'), seriesOf({}, '_sum')];
    const out = influxLp({ name: 'lat' })
      .encode(sampleBatch({ values: [3, 1.25], offsets: [0, 0], series: rows }))
      .data.toString();
    expect(out).to.equal('lat_bucket,le=0.5 value=3 0000000\nlat_sum value=1.25 0000000\n');
  });
});

/** Labels with every character line protocol escapes, and a backslash it need not. */
const LABELS = { job: 'svc job', path: '/a,b=c', dir: 'C:\\logs' };

/**
 * Runs a step gauge (value n at tick n) of `fields` in influx_lp through an http_push sink to `url`, and checks that
 * all its `events` were delivered.
 */
async function deliverSteps(url: string, events: number, fields: Parameters<typeof metricEntry>[0]): Promise<void> {
  const run = runEntry(
    metricEntry({
      generator: { type: 'step', start: 0, step_size: 1 },
      encoder: { type: 'influx_lp' },
      sink: { type: 'http_push', url },
      ...fields,
    }),
  );
  expect(await run.done).to.deep.equal({});
  expect(run.stats.snapshot(Date.now())).to.include({ total_events: events, total_sink_failures: 0 });
}

/** Runs 50 ticks of `svc_influx` (value n at tick n, pods 0 and 1 in turn, 20 ms apart) into `url`, each delivered. */
const writeFifty = (url: string) =>
  deliverSteps(url, 50, {
    name: 'svc_influx',
    rate: 50,
    duration: 1000,
    labels: LABELS,
    dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 2 }],
    encoder: { type: 'influx_lp', field_key: 'reading' },
    sink: { type: 'http_push', url, batch_size: 512 },
  });

describe('influx_lp into a real VictoriaMetrics through /write', function () {
  this.timeout(30_000);
  let vm: VictoriaMetrics;
  before(async () => (vm = await startVictoriaMetrics()));
  after(async () => vm?.stop());

  it('every series, value and millisecond arrives as {measurement}_{field_key}, no invalid row', async () => {
    await writeFifty(`${vm.url}/write`);

    const series = await waitFor(
      '50 samples in VictoriaMetrics',
      async () => {
        await vm.forceFlush();
        const found = await vm.exportSeries('svc_influx_reading');
        return found.reduce((n, s) => n + s.values.length, 0) >= 50 ? found : undefined;
      },
      15_000,
      200,
    );
    expect(series.map((s) => s.metric)).to.deep.equal([
      { __name__: 'svc_influx_reading', ...LABELS, pod: 'pod_0' },
      { __name__: 'svc_influx_reading', ...LABELS, pod: 'pod_1' },
    ]);
    // Tick n carries value n and pod n mod 2, 20 ms apart from the entry's start.
    for (const [i, s] of series.entries()) {
      expect(s.values).to.deep.equal(Array.from({ length: 25 }, (_, k) => 2 * k + i));
      const start = s.timestamps[0]! - 20 * i;
      expect(s.timestamps).to.deep.equal(Array.from({ length: 25 }, (_, k) => start + 20 * (2 * k + i)));
    }
    expect(await vm.selfMetric('vm_rows_invalid_total')).to.equal(0);
  });
});

describe('influx_lp into a real InfluxDB 1.x through /write', function () {
  this.timeout(30_000);
  let influx: InfluxDb;
  before(async () => (influx = await startInfluxDb()));
  after(async () => influx?.stop());

  it('every series, value and millisecond arrives as written, tags and field as named', async () => {
    await writeFifty(influx.writeUrl);

    const rows = await influx.query('SELECT * FROM svc_influx');
    expect(rows).to.have.length(50);
    // Tick n carries value n and pod n mod 2, 20 ms apart from the entry's start.
    const start = rows[0]!.time as number;
    rows.forEach((row, n) =>
      expect(row).to.deep.equal({ time: start + 20 * n, ...LABELS, pod: `pod_${n % 2}`, reading: n }),
    );
  });

  it('keeps every tick of a series above 1000 a second, several in one millisecond', async () => {
    await deliverSteps(influx.writeUrl, 1000, { name: 'svc_fast', rate: 4000, duration: 250 });

    // InfluxDB keeps one point per series and time: ticks stamped with one millisecond would overwrite each other.
    expect(await influx.query('SELECT count(value), sum(value) FROM svc_fast')).to.deep.equal([
      { time: 0, count: 1000, sum: (999 * 1000) / 2 },
    ]);
  });
});
