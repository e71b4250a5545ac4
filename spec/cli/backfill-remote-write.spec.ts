import { expect } from 'chai';
import { startPrometheus } from '../support/backends/prometheus.js';
import { startVictoriaMetrics } from '../support/backends/victoria-metrics.js';
import { waitFor } from '../support/backends/ports.js';
import { scenarioDir, svc } from '../support/cli.js';

const { scenario } = scenarioDir('svc-backfill-rw-');

const HOUR = 3_600_000;
const STEP = 15_000;
const TICKS = (2 * HOUR) / STEP;

/** The backfilled series: one entry each, a step generator apiece (sample n of a series is start + n × step). */
const SERIES = [
  { queue: 'orders', start: 0, step: 1 },
  { queue: 'refunds', start: 1000, step: 3 },
  { queue: 'emails', start: 0.5, step: 0.25 },
];

/**
 * Two hours of the three series at one sample per 15 s, from `start`, remote-written to `url`.
 * The rate is 1/15 as a double (0.06666666666666667): 0.0666666666666667 would tick a hair faster,
 * and its 481st tick would fall a hair before the end of the two hours.
 */
function twoHours(url: string, start: number): string {
  return scenario(
    `two-hours-${start}.yaml`,
    `version: 2
kind: runnable
defaults:
  encoder: { type: remote_write }
  sink: { type: remote_write, url: ${url}, max_buffer_age: 200ms }
scenarios:
${SERIES.map(
  (s) => `  - id: ${s.queue}
    signal_type: metrics
    name: svc_backfilled_queue_depth
    rate: ${1 / 15}
    duration: 2h
    start_time: ${new Date(start).toISOString()}
    generator: { type: step, start: ${s.start}, step_size: ${s.step} }
    labels: { queue: ${s.queue} }
`,
).join('')}`,
  );
}

/** Each series' samples as [epoch ms, value], by queue. */
type Stored = Record<string, [number, number][]>;

/** Every sample of every series, at its time: tick n at start + 15 n s carries start + n × step. */
function expectEverySample(stored: Stored, start: number): void {
  expect(Object.keys(stored).sort()).to.deep.equal(SERIES.map((s) => s.queue).sort());
  for (const s of SERIES) {
    const expected = Array.from({ length: TICKS }, (_, n): [number, number] => [
      start + STEP * n,
      s.start + n * s.step,
    ]);
    expect(stored[s.queue], s.queue).to.deep.equal(expected);
  }
}

/** A start on the 15 s grid, two hours back: the backfill ends about now. */
const twoHoursAgo = () => Math.floor(Date.now() / STEP) * STEP - 2 * HOUR;

/**
 * Issue 17's remote-write paths: a backfill sent with remote_write into the receivers that take
 * samples from the past, then every sample read back, value and time.
 */
describe('svc run --backfill over remote_write into real receivers', function () {
  this.timeout(60_000);

  it('Prometheus with an out-of-order window, already holding live data, stores two hours of three series, each sample at its time', async () => {
    const prometheus = await startPrometheus({ receiver: true, outOfOrderWindow: '3h' });
    try {
      const write = `${prometheus.url}/api/v1/write`;
      // Live data first: the head then reaches now, and two-hour-old samples are out of order.
      const live = await svc([
        'metrics',
        '-q',
        '--name',
        'svc_live_probe',
        '--value',
        '1',
        '--rate',
        '10',
        '--duration',
        '500ms',
        '--sink',
        'remote_write',
        '--endpoint',
        write,
      ]);
      expect(live.code, live.stderr).to.equal(0);
      await waitFor('the live sample', async () =>
        (await prometheus.query('svc_live_probe')).length ? true : undefined,
      );

      const start = twoHoursAgo();
      const run = await svc(['run', '-q', '--backfill', twoHours(write, start)]);
      expect(run.code, run.stderr).to.equal(0);

      const stored: Stored = {};
      for (const s of SERIES) {
        const series = await prometheus.range(
          `svc_backfilled_queue_depth{queue="${s.queue}"}`,
          start,
          start + (TICKS - 1) * STEP,
          STEP / 1000,
        );
        expect(series, s.queue).to.have.length(1);
        stored[series[0]!.metric.queue!] = series[0]!.values.map(([time, value]) => [
          Math.round(time * 1000),
          Number(value),
        ]);
      }
      expectEverySample(stored, start);
      // Read back raw, too: exactly the samples sent, none doubled (a range query's lookback would hide a gap).
      const raw = await prometheus.samples('svc_backfilled_queue_depth', '3h');
      expect(raw.map((series) => series.values.length)).to.deep.equal([TICKS, TICKS, TICKS]);
    } finally {
      await prometheus.stop();
    }
  });

  it('VictoriaMetrics stores two hours of three series, each sample at its time', async () => {
    const vm = await startVictoriaMetrics();
    try {
      const start = twoHoursAgo();
      const run = await svc(['run', '-q', '--backfill', twoHours(`${vm.url}/api/v1/write`, start)]);
      expect(run.code, run.stderr).to.equal(0);

      await vm.forceFlush();
      const exported = await vm.exportSeries('svc_backfilled_queue_depth');
      const stored: Stored = Object.fromEntries(
        exported.map((series) => [
          series.metric.queue!,
          series.timestamps.map((time, i): [number, number] => [time, series.values[i]!]),
        ]),
      );
      for (const series of exported)
        expect(series.metric).to.deep.equal({ __name__: 'svc_backfilled_queue_depth', queue: series.metric.queue });
      expectEverySample(stored, start);
    } finally {
      await vm.stop();
    }
  });
});
