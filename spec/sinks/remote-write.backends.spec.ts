import { expect } from 'chai';
import type { Entry } from '../../lib/config/types.js';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { startPrometheus, type Prometheus } from '../support/backends/prometheus.js';
import { startVictoriaMetrics, type VictoriaMetrics } from '../support/backends/victoria-metrics.js';
import { waitFor } from '../support/backends/ports.js';
import { runUntilTerm, scenarioDir, stoppedEvents, svc, STOPPED, lines, foreverScenario } from '../support/cli.js';
import { histogramEntry, metricEntry } from '../support/entries.js';

const { scenario } = scenarioDir('svc-remote-write-');

/** One series as a backend stores it: its labels and its samples as [epoch ms, value]. */
interface Stored {
  readonly metric: Record<string, string>;
  readonly samples: [number, number][];
}

/** The two real receivers, behind one reading interface. */
interface Receiver {
  readonly name: string;
  readonly writeUrl: string;
  /** Every series matching `selector` with all its samples, sorted by labels; waits until `ready` holds. */
  series(selector: string, ready: (found: Stored[]) => boolean): Promise<Stored[]>;
}

const totalSamples = (found: Stored[]) => found.reduce((n, s) => n + s.samples.length, 0);

describe('remote_write into real receivers', function () {
  this.timeout(60_000);
  let prometheus: Prometheus;
  let vm: VictoriaMetrics;
  const receivers: Receiver[] = [];

  before(async () => {
    [prometheus, vm] = await Promise.all([startPrometheus({ receiver: true }), startVictoriaMetrics()]);
    receivers.push(
      {
        name: 'Prometheus 2.42',
        writeUrl: `${prometheus.url}/api/v1/write`,
        series: (selector, ready) =>
          waitFor(
            `${selector} in Prometheus`,
            async () => {
              const found = (await prometheus.samples(selector)).map((s) => ({
                metric: s.metric,
                samples: s.values.map(([t, v]) => [Math.round(t * 1000), Number(v)] as [number, number]),
              }));
              return ready(found) ? found : undefined;
            },
            15_000,
            100,
          ),
      },
      {
        name: 'VictoriaMetrics 1.79',
        writeUrl: `${vm.url}/api/v1/write`,
        series: (selector, ready) =>
          waitFor(
            `${selector} in VictoriaMetrics`,
            async () => {
              await vm.forceFlush();
              const found = (await vm.exportSeries(selector)).map((s) => ({
                metric: s.metric,
                samples: s.timestamps.map((t, i) => [t, s.values[i]!] as [number, number]),
              }));
              return ready(found) ? found : undefined;
            },
            15_000,
            100,
          ),
      },
    );
  });
  after(async () => Promise.all([prometheus?.stop(), vm?.stop()]));

  const run = async (entry: Entry) => {
    const started = Date.now();
    const entryRun = runEntry(entry);
    expect(await entryRun.done).to.deep.equal({});
    expect(entryRun.stats.snapshot(Date.now())).to.include({ total_sink_failures: 0 });
    return { started, events: entryRun.stats.snapshot(Date.now()).total_events };
  };

  for (const index of [0, 1]) {
    describe(['Prometheus 2.42', 'VictoriaMetrics 1.79'][index]!, () => {
      const receiver = () => receivers[index]!;
      const tag = index === 0 ? 'prom' : 'vm';

      it("a gauge and a counter (step) arrive with their labels, values and the entry clock's timestamps", async () => {
        const sink = { type: 'remote_write' as const, url: receiver().writeUrl, max_buffer_age: 200 };
        const counter = `svc_rw_jobs_total_${tag}`;
        const { started } = await run(
          metricEntry({
            name: counter,
            rate: 20,
            duration: 1000,
            metric_type: 'counter',
            generator: { type: 'step', start: 0, step_size: 1 },
            labels: { job: 'svc' },
            dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 2 }],
            encoder: { type: 'remote_write' },
            sink,
          }),
        );
        const series = await receiver().series(counter, (found) => totalSamples(found) >= 20);
        expect(series.map((s) => s.metric)).to.deep.equal([
          { __name__: counter, job: 'svc', pod: 'pod_0' },
          { __name__: counter, job: 'svc', pod: 'pod_1' },
        ]);
        // Tick n carries value n and pod n mod 2, 50 ms apart from the entry's start.
        const first = series[0]!.samples[0]![0];
        expect(first).to.be.within(started - 1000, started + 1000);
        for (const [i, s] of series.entries()) {
          expect(s.samples).to.deep.equal(Array.from({ length: 10 }, (_, k) => [first + 50 * (2 * k + i), 2 * k + i]));
        }

        const gauge = `svc_rw_temperature_${tag}`;
        await run(
          metricEntry({
            name: gauge,
            rate: 10,
            duration: 500,
            generator: { type: 'constant', value: 21.5 },
            labels: { room: 'lab' },
            encoder: { type: 'remote_write' },
            sink,
          }),
        );
        const temperatures = await receiver().series(gauge, (found) => totalSamples(found) >= 5);
        expect(temperatures.map((s) => [s.metric, s.samples.map(([, v]) => v)])).to.deep.equal([
          [{ __name__: gauge, room: 'lab' }, [21.5, 21.5, 21.5, 21.5, 21.5]],
        ]);
      });

      it('a histogram and a summary arrive as their _bucket/_sum/_count and quantile series', async () => {
        const sink = { type: 'remote_write' as const, url: receiver().writeUrl, max_buffer_age: 200 };
        const histogram = `svc_rw_latency_seconds_${tag}`;
        await run(
          metricEntry({
            ...histogramEntry,
            name: histogram,
            rate: 10,
            duration: 300,
            encoder: { type: 'remote_write' },
            sink,
          }),
        );
        const rows = await receiver().series(`{__name__=~"${histogram}_.*"}`, (found) => totalSamples(found) >= 3 * 6);
        expect(rows.map((s) => [s.metric.__name__, s.metric.le ?? ''])).to.have.deep.members([
          [`${histogram}_bucket`, '0.05'],
          [`${histogram}_bucket`, '0.1'],
          [`${histogram}_bucket`, '0.5'],
          [`${histogram}_bucket`, '+Inf'],
          [`${histogram}_sum`, ''],
          [`${histogram}_count`, ''],
        ]);
        // 20 observations a tick, counted up over the 3 ticks; +Inf holds them all.
        const count = rows.find((s) => s.metric.__name__ === `${histogram}_count`)!;
        expect(count.samples.map(([, v]) => v)).to.deep.equal([20, 40, 60]);
        const inf = rows.find((s) => s.metric.le === '+Inf')!;
        expect(inf.samples.map(([, v]) => v)).to.deep.equal([20, 40, 60]);

        const summary = `svc_rw_size_bytes_${tag}`;
        await run(
          metricEntry({
            signal_type: 'summary',
            name: summary,
            rate: 10,
            duration: 200,
            generator: undefined,
            distribution: { type: 'normal', mean: 100, stddev: 10 },
            quantiles: [0.5, 0.9],
            observations_per_tick: 50,
            seed: 1,
            metric_type: 'summary',
            encoder: { type: 'remote_write' },
            sink,
          }),
        );
        const quantiles = await receiver().series(
          `{__name__=~"${summary}.*"}`,
          (found) => totalSamples(found) >= 2 * 4,
        );
        expect(quantiles.map((s) => [s.metric.__name__, s.metric.quantile ?? ''])).to.have.deep.members([
          [summary, '0.5'],
          [summary, '0.9'],
          [`${summary}_sum`, ''],
          [`${summary}_count`, ''],
        ]);
        const median = quantiles.find((s) => s.metric.quantile === '0.5')!;
        for (const [, v] of median.samples) expect(v).to.be.within(90, 110);
        if (index === 1) expect(await vm.selfMetric('vm_rows_invalid_total')).to.equal(0);
      });
    });
  }

  it('VictoriaMetrics 1.79 keeps the classic series of a histogram with native, and drops the native one with a 204', async () => {
    // What docs/native-histograms.md says of it: the native series is counted delivered, and never stored.
    const histogram = 'svc_rw_native_latency_seconds_vm';
    const sink = { type: 'remote_write' as const, url: receivers[1]!.writeUrl, max_buffer_age: 200 };
    const { events } = await run(
      metricEntry({
        ...histogramEntry,
        name: histogram,
        rate: 10,
        duration: 300,
        native: { schema: 3, zero_threshold: 0, max_buckets: 160 },
        encoder: { type: 'remote_write' },
        sink,
      }),
    );
    expect(events).to.equal(3);
    const rows = await receivers[1]!.series(`{__name__=~"${histogram}.*"}`, (found) => totalSamples(found) >= 3 * 6);
    expect([...new Set(rows.map((s) => s.metric.__name__))].sort()).to.deep.equal([
      `${histogram}_bucket`,
      `${histogram}_count`,
      `${histogram}_sum`,
    ]);
    expect(await vm.selfMetric('vm_rows_invalid_total')).to.equal(0);
  });

  describe('bin/svc into Prometheus', () => {
    it('runs examples/remote-write.yaml into Prometheus', async () => {
      const result = await svc([
        'run',
        'examples/remote-write.yaml',
        '--endpoint',
        `${prometheus.url}/api/v1/write`,
        '--duration',
        '1s',
      ]);
      expect(result.code, result.stderr).to.equal(0);
      const stopped = lines(result.stderr).filter((l) => STOPPED.test(l));
      expect(stopped).to.have.length(2);
      for (const line of stopped) expect(line).to.not.include('(sink:');
      const depth = await prometheus.samples('svc_queue_depth');
      expect(depth.map((s) => s.metric.instance)).to.deep.equal(['worker-0', 'worker-1']);
    });

    it("samples older than Prometheus takes (start_time -2h after newer ones): exit 1 under fail, with the receiver's reason and the fix", async () => {
      const file = scenario(
        'too-old.yaml',
        `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: svc_rw_backdated
    rate: 10
    duration: 300ms
    start_time: -2h
    on_sink_error: fail
    generator: { type: constant, value: 1 }
    encoder: { type: remote_write }
    sink: { type: remote_write, url: "${prometheus.url}/api/v1/write", retry: { max_attempts: 1 } }
  `,
      );
      // Prometheus refuses samples older than its head block allows once it holds newer ones.
      const now = { type: 'remote_write' as const, url: `${prometheus.url}/api/v1/write` };
      await run(
        metricEntry({
          name: 'svc_rw_backdated',
          rate: 10,
          duration: 100,
          encoder: { type: 'remote_write' },
          sink: now,
        }),
      );
      const result = await svc(['run', file]);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.match(
        /answered 400 Bad Request: ".*(too old|out of bounds).*"; the receiver refuses samples this old \(start_time in the past\)/,
      );
      const stored = await prometheus.samples('svc_rw_backdated', '3h');
      for (const [t] of stored[0]!.values) expect(t * 1000).to.be.greaterThan(Date.now() - 60_000);
    });

    it('the fix the message gives works: with out_of_order_time_window 6h, start_time -2h arrives', async () => {
      const tolerant = await startPrometheus({ receiver: true, outOfOrderWindow: '6h' });
      try {
        const sink = { type: 'remote_write' as const, url: `${tolerant.url}/api/v1/write` };
        await run(
          metricEntry({ name: 'svc_rw_backdated', rate: 10, duration: 100, encoder: { type: 'remote_write' }, sink }),
        );
        const startTime = { kind: 'relative' as const, offsetMs: -2 * 3600_000 };
        await run(
          metricEntry({
            name: 'svc_rw_backdated',
            rate: 10,
            duration: 300,
            start_time: startTime,
            labels: { old: 'yes' },
            encoder: { type: 'remote_write' },
            sink,
          }),
        );
        const old = (await tolerant.samples('svc_rw_backdated{old="yes"}', '3h'))[0]!;
        expect(old.values).to.have.length(3);
        expect(old.values[0]![0] * 1000).to.be.within(
          Date.now() - 2 * 3600_000 - 60_000,
          Date.now() - 2 * 3600_000 + 60_000,
        );
      } finally {
        await tolerant.stop();
      }
    });

    it('a native histogram into Prometheus without the feature flag: its 500 is not retried, and says how to fix it', async () => {
      const file = scenario(
        'native-disabled.yaml',
        `version: 2
kind: runnable
scenarios:
  - signal_type: histogram
    name: svc_rw_native_disabled_seconds
    rate: 10
    duration: 300ms
    distribution: { type: exponential, rate: 10 }
    buckets: [0.1]
    native: {}
    sink: { type: remote_write, url: "${prometheus.url}/api/v1/write", max_buffer_age: 100ms }
`,
      );
      const result = await svc(['run', file]);
      expect(result.stderr).to.contain(
        'answered 500 Internal Server Error: "native histograms are disabled"; the receiver does not take native histograms, and refuses the whole request for one: start Prometheus with --enable-feature=native-histograms, or write the classic histogram only (buckets without native)',
      );
      expect(result.stderr).to.not.contain('gave up after');
    });

    it('a backfill beyond the out-of-order window: Prometheus\' 500 "too old sample" is not retried, names the window, and the newer samples arrive', async () => {
      const tolerant = await startPrometheus({ receiver: true, outOfOrderWindow: '1h' });
      try {
        const url = `${tolerant.url}/api/v1/write`;
        await run(
          metricEntry({
            name: 'svc_rw_window',
            rate: 10,
            duration: 100,
            encoder: { type: 'remote_write' },
            sink: { type: 'remote_write', url },
          }),
        );
        const file = scenario(
          'beyond-window.yaml',
          `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: svc_rw_window
    rate: 1
    duration: 3h
    start_time: -3h
    labels: { old: "yes" }
    generator: { type: constant, value: 1 }
    sink: { type: remote_write, url: "${url}", batch_size: 100 }
`,
        );
        const result = await svc(['run', '--backfill', file]);
        expect(result.code, result.stderr).to.equal(1);
        expect(result.stderr).to.contain(
          'answered 500 Internal Server Error: "too old sample"; the receiver refuses samples older than its out-of-order window (start_time further back than it): Prometheus takes them only when storage.tsdb.out_of_order_time_window in prometheus.yml covers the whole backfilled span, from start_time to now',
        );
        expect(result.stderr).to.not.contain('gave up after');
        // What it did not drop is stored: the samples within the window (about the last hour of the three).
        const dropped = Number(/\| dropped: (\d+)/.exec(result.stderr)![1]);
        const stored = await tolerant.query('sum(count_over_time(svc_rw_window{old="yes"}[4h]))');
        expect(Number(stored[0]!.value[1])).to.equal(10_800 - dropped);
        expect(dropped).to.be.within(7000, 8000);
      } finally {
        await tolerant.stop();
      }
    });

    it('SIGTERM mid-run: every sample counted as written is queryable', async () => {
      const file = foreverScenario(
        scenario,
        `{ type: remote_write, url: "${prometheus.url}/api/v1/write", batch_size: 100, max_buffer_age: 100ms }`,
        {
          extra: ['labels: { job: svc_rw_term }', 'encoder: { type: remote_write }'],
        },
      );
      let seen = 0;
      const poll = setInterval(
        async () => (seen = Number((await prometheus.query('count_over_time(beat{job="svc_rw_term"}[1h])')).length)),
        50,
      );
      const { code, stderr } = await runUntilTerm(file, () => seen > 0);
      clearInterval(poll);
      expect(code, stderr).to.equal(0);
      const written = stoppedEvents(stderr);
      expect(written).to.be.greaterThan(100);
      const stored = await prometheus.query('sum(count_over_time(beat{job="svc_rw_term"}[1h]))');
      expect(Number(stored[0]!.value[1])).to.equal(written);
    });
  });
});
