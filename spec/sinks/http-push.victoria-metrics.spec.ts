import { expect } from 'chai';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { startVictoriaMetrics, type VictoriaMetrics } from '../support/backends/victoria-metrics.js';
import { waitFor } from '../support/backends/ports.js';
import { metricEntry } from '../support/entries.js';

describe('http_push into a real VictoriaMetrics', function () {
  this.timeout(30_000);
  let vm: VictoriaMetrics;
  before(async () => (vm = await startVictoriaMetrics()));
  after(async () => vm?.stop());

  it('imports metrics_text through /api/v1/import/prometheus: every series and value arrives, no invalid row', async () => {
    const entry = metricEntry({
      name: 'svc_vm_roundtrip',
      rate: 50,
      duration: 1000,
      generator: { type: 'step', start: 0, step_size: 1 },
      labels: { job: 'svc' },
      dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 2 }],
      sink: { type: 'http_push', url: `${vm.url}/api/v1/import/prometheus`, batch_size: 512 },
    });
    const run = runEntry(entry);
    expect(await run.done).to.deep.equal({});
    expect(run.stats.snapshot(Date.now())).to.include({ total_events: 50, total_sink_failures: 0 });

    const series = await waitFor(
      '50 samples in VictoriaMetrics',
      async () => {
        await vm.forceFlush();
        const found = await vm.exportSeries('svc_vm_roundtrip');
        return found.reduce((n, s) => n + s.values.length, 0) >= 50 ? found : undefined;
      },
      15_000,
      200,
    );
    expect(series.map((s) => s.metric)).to.deep.equal([
      { __name__: 'svc_vm_roundtrip', job: 'svc', pod: 'pod_0' },
      { __name__: 'svc_vm_roundtrip', job: 'svc', pod: 'pod_1' },
    ]);
    // Tick n carries value n and pod n mod 2, 20 ms apart from the entry's start.
    for (const [i, s] of series.entries()) {
      expect(s.values).to.deep.equal(Array.from({ length: 25 }, (_, k) => 2 * k + i));
      const start = s.timestamps[0]! - 20 * i;
      expect(s.timestamps).to.deep.equal(Array.from({ length: 25 }, (_, k) => start + 20 * (2 * k + i)));
    }
    expect(await vm.selfMetric('vm_rows_invalid_total')).to.equal(0);
  });

  it('a path VictoriaMetrics does not serve (its 400 "unsupported path requested") is said to be the URL', async () => {
    const entry = metricEntry({
      name: 'svc_vm_wrong_path',
      rate: 10,
      duration: 100,
      sink: { type: 'http_push', url: `${vm.url}/api/v1/import/prometheusx` },
    });
    const run = runEntry(entry);
    await run.done;
    const { last_sink_error } = run.stats.snapshot(Date.now());
    expect(last_sink_error).to.match(
      /answered 400 Bad Request: .*unsupported path requested.*; check the URL: it must be the import endpoint itself$/,
    );
  });
});
