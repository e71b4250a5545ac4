import { expect } from 'chai';
import { join } from 'node:path';
import { startPrometheus, type Prometheus } from '../support/backends/prometheus.js';
import { waitFor } from '../support/backends/ports.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { temporaryDirectory } from '../support/directories.js';

/** Series that end, as a Prometheus scraping `GET /scenarios/metrics` sees them (docs/http-api.md, "Scraping"). */
describe('svc-server scraped by Prometheus 2.42: a series the scenario no longer writes leaves the scrape', function () {
  this.timeout(90_000);
  let server: ServerProcess;
  let prometheus: Prometheus;
  const fileRoot = temporaryDirectory('svc-scrape-end-');

  before(async () => {
    server = await startServerProcess({ env: { SVC_FILE_ROOT: fileRoot } });
    prometheus = await startPrometheus({
      scrape: { host: server.base.slice('http://'.length), path: '/scenarios/metrics' },
    });
    // The scenarios start once Prometheus scrapes, so that it sees the spike's window from its start.
    await waitFor(
      'the first scrape',
      async () => (await prometheus.query('up'))[0]?.value[1] === '1' || undefined,
      20_000,
    );
  });
  after(async () => {
    await prometheus?.stop();
    server?.kill();
  });

  /** The number of series an instant query counts now (0 when it finds none: each was marked stale). */
  const count = async (selector: string) => Number((await prometheus.query(`count(${selector})`))[0]?.value[1] ?? 0);
  const until = (what: string, selector: string, test: (n: number) => boolean) =>
    waitFor(what, async () => test(await count(selector)) || undefined, 20_000, 250);

  it("counts a spike's series up in its window and down after it; a rotation's stay; an ended or deleted scenario's leave", async () => {
    const sink = (file: string) => `sink: { type: file, path: ${join(fileRoot, file)} }`;
    const body = `version: 2
kind: runnable
scenarios:
  - id: spiking
    name: svc_end_sessions
    signal_type: metrics
    metric_type: gauge
    generator: { type: constant, value: 1 }
    rate: 4
    cardinality_spikes: [{ label: user, cardinality: 10, every: 60s, for: 8s }]
    ${sink('spiking.prom')}
  - id: rotating
    name: svc_end_pods
    signal_type: metrics
    metric_type: gauge
    generator: { type: constant, value: 1 }
    rate: 4
    dynamic_labels: [{ key: pod, cardinality: 3 }]
    ${sink('rotating.prom')}
  - id: short
    name: svc_end_short
    signal_type: metrics
    metric_type: gauge
    generator: { type: constant, value: 1 }
    rate: 4
    duration: 6s
    ${sink('short.prom')}
`;
    const res = await fetch(`${server.base}/scenarios`, {
      method: 'POST',
      headers: { 'content-type': 'text/yaml' },
      body,
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    const ids = ((await res.json()) as { scenarios: { id: string; name: string }[] }).scenarios;

    await until('the spike to show its 10 series', 'svc_end_sessions{user!=""}', (n) => n === 10);
    // Outside the window the entry writes its series without the label: that one alone is in the scrape.
    await until("the spike's series to leave after its window", 'svc_end_sessions{user!=""}', (n) => n === 0);
    expect(await count('svc_end_sessions{user=""}')).to.equal(1);
    // A rotation comes round to each of its values: all three stay.
    expect(await count('svc_end_pods')).to.equal(3);
    await until('the ended scenario to leave', 'svc_end_short', (n) => n === 0);
    expect(((await (await fetch(`${server.base}/scenarios`)).json()) as any).scenarios.length).to.equal(3);

    const rotating = ids.find((scenario) => scenario.name === 'svc_end_pods')!;
    expect((await fetch(`${server.base}/scenarios/${rotating.id}`, { method: 'DELETE' })).status).to.equal(200);
    await until('the deleted scenario to leave', 'svc_end_pods', (n) => n === 0);
  });
});
