import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { requireBinary } from '../support/backends/binaries.js';
import { startPrometheus } from '../support/backends/prometheus.js';
import { scenarioDir, svc } from '../support/cli.js';

const { dir, scenario } = scenarioDir('svc-backfill-prom-');

/**
 * Issue 17's path for Prometheus: backfill 6 h as OpenMetrics into a file, turn it into TSDB
 * blocks with `promtool tsdb create-blocks-from openmetrics`, open them with a real Prometheus and
 * read every sample back with a range query.
 */
describe('svc run --backfill into a real Prometheus TSDB (promtool create-blocks-from openmetrics)', function () {
  this.timeout(60_000);

  it('six hours of a counter at one sample per 15 s come back from a range query, value and time', async () => {
    const out = join(dir, 'six-hours.om');
    const data = join(dir, 'tsdb');
    const end = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const start = end - 6 * 3_600_000;
    const file = scenario(
      'six-hours.yaml',
      `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: svc_backfilled_jobs_total
    help: Jobs done.
    rate: 0.0666666666666667
    duration: 6h
    start_time: ${new Date(start).toISOString()}
    generator: { type: step, start: 0, step_size: 1 }
    labels: { job: backfill }
    encoder: { type: openmetrics }
    sink: { type: file, path: ${out} }
`,
    );
    const run = await svc(['run', '-q', '--backfill', file]);
    expect(run.code, run.stderr).to.equal(0);
    const load = spawnSync(
      requireBinary('promtool', 'prometheus'),
      ['tsdb', 'create-blocks-from', 'openmetrics', out, data],
      { encoding: 'utf8' },
    );
    expect(load.status, `${load.stdout}${load.stderr}`).to.equal(0);

    const prometheus = await startPrometheus({ dataDir: data });
    try {
      const [series] = await prometheus.range('svc_backfilled_jobs_total{job="backfill"}', start, end - 15_000, 15);
      expect(series!.metric).to.deep.equal({ __name__: 'svc_backfilled_jobs_total', job: 'backfill' });
      // One sample per 15 s for 6 h: tick n at start + 15 n s carries n.
      expect(series!.values).to.have.length(6 * 240);
      series!.values.forEach(([time, value], n) => {
        expect(time * 1000).to.equal(start + 15_000 * n);
        expect(Number(value)).to.equal(n);
      });
    } finally {
      await prometheus.stop();
    }
  });
});
