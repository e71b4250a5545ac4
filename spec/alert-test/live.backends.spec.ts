import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { map, timer } from 'rxjs';
import { startAlertmanager, type Alertmanager } from '../support/backends/alertmanager.js';
import { freeTcpPort } from '../support/backends/ports.js';
import { startPrometheus, type Prometheus } from '../support/backends/prometheus.js';
import { STOPPED, lines, scenarioDir, svc } from '../support/cli.js';

/** QueueBacklog: svc_queue_depth > 5 for 1s, evaluated every second. */
const RULES = readFileSync('examples/alerts/queue-backlog.rules.yml', 'utf8');

/**
 * The queue of examples/alerts/queue-backlog.yaml (its depth 1 for 2 s, 10 for 4 s, then 1 again:
 * QueueBacklog fires some 3 to 5 s after the start and resolves about 4 s later), named `queue`,
 * so that each spec has its own alert, with these expectations.
 */
function scenario(prometheus: Prometheus, queue: string, expectation: string): string {
  return `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: svc_queue_depth
    labels: {queue: ${queue}}
    rate: 2
    duration: 30s
    generator: {type: sequence, values: [1, 1, 1, 1, 10, 10, 10, 10, 10, 10, 10, 10, 1], repeat: false}
    encoder: {type: remote_write}
    sink: {type: remote_write, url: ${prometheus.url}/api/v1/write, max_buffer_age: 250ms}
expect:
  alerts:
${expectation}
`;
}

describe('svc test --live: alert expectations against a real Prometheus and Alertmanager', function () {
  this.timeout(60_000);
  const { scenario: write } = scenarioDir('svc-test-live-');
  let prometheus: Prometheus;
  let alertmanager: Alertmanager;
  let idleAlertmanager: Alertmanager;

  before(async () => {
    [alertmanager, idleAlertmanager] = await Promise.all([startAlertmanager(), startAlertmanager()]);
    prometheus = await startPrometheus({ receiver: true, rules: RULES, alertmanager: alertmanager.url });
  });
  after(async () => Promise.all([prometheus?.stop(), alertmanager?.stop(), idleAlertmanager?.stop()]));

  const live = (file: string, ...flags: string[]) =>
    svc(['test', file, '--live', '--prometheus', prometheus.url, '--interval', '1s', ...flags]);

  it('passes an alert that fires and resolves in time, and stops the run once it is decided (examples/alerts/queue-backlog.yaml)', async function () {
    this.timeout(20_000);
    const began = Date.now();
    const { code, stdout, stderr } = await svc(
      ['test', 'examples/alerts/queue-backlog.yaml', '--live', '--prometheus', prometheus.url, '--interval', '1s'],
      {
        env: { ...process.env, PROMETHEUS_URL: prometheus.url },
      },
    );
    expect(stdout).to.match(
      /^PASS QueueBacklog\{severity="page",queue="orders"\} firing after (\d)s \(within 10s\), resolved (\d)s later \(within 10s\)\n$/,
    );
    const [, fired, resolved] = /after (\d)s .* resolved (\d)s/.exec(stdout)!.map(Number);
    expect(fired).to.be.within(2, 7);
    expect(resolved).to.be.within(3, 6);
    expect(code).to.equal(0);
    // The 30 s scenario was stopped, flushed, once the expectation was decided.
    expect(Date.now() - began).to.be.below(15_000);
    expect(lines(stderr).filter((line) => STOPPED.test(line))).to.have.length(1);
  });

  it('fails an alert that does not fire in time, exit 1, deciding at the deadline', async function () {
    this.timeout(20_000);
    const file = write(
      'late.yaml',
      scenario(prometheus, 'late', '    - {alert: QueueBacklog, labels: {queue: late}, firing_within: 2s}'),
    );
    const { code, stdout } = await live(file);
    expect(lines(stdout)).to.deep.equal(['FAIL QueueBacklog{queue="late"} not firing within 2s']);
    expect(code).to.equal(1);
  });

  it('watches on to the deadline when the scenario ends first (--duration)', async () => {
    const file = write(
      'short.yaml',
      scenario(prometheus, 'short', '    - {alert: QueueBacklog, labels: {queue: short}, firing_within: 3s}'),
    );
    const { code, stdout, stderr } = await live(file, '--duration', '1s');
    expect(stderr).to.contain('[info] the scenario ended: still watching the alerts until each is decided\n');
    expect(lines(stdout)).to.deep.equal(['FAIL QueueBacklog{queue="short"} not firing within 3s']);
    expect(code).to.equal(1);
  });

  it('with --alertmanager, passes an alert Prometheus hands on, fails one the Alertmanager never gets', async function () {
    this.timeout(20_000);
    const reached = write(
      'am.yaml',
      scenario(prometheus, 'am', '    - {alert: QueueBacklog, labels: {queue: am}, firing_within: 8s}'),
    );
    const lost = write(
      'am-lost.yaml',
      scenario(prometheus, 'lost', '    - {alert: QueueBacklog, labels: {queue: lost}, firing_within: 8s}'),
    );
    const [pass, fail] = await Promise.all([
      live(reached, '--alertmanager', alertmanager.url),
      live(lost, '--alertmanager', idleAlertmanager.url),
    ]);
    expect(pass.stdout).to.match(/^PASS QueueBacklog\{queue="am"\} firing after \ds \(within 8s\), in Alertmanager\n$/);
    expect(pass.code).to.equal(0);
    expect((await alertmanager.alerts()).map((alert) => alert.labels.queue)).to.include('am');
    expect(fail.stdout).to.match(
      /^FAIL QueueBacklog\{queue="lost"\} firing after \ds \(within 8s\), not seen in Alertmanager\n$/,
    );
    expect(fail.code).to.equal(1);
  });

  it('on a stop signal, stops the run and fails what is undecided', async () => {
    const file = write(
      'stopped.yaml',
      scenario(prometheus, 'stopped', '    - {alert: QueueBacklog, labels: {queue: stopped}, firing_within: 10s}'),
    );
    const { code, stdout, stderr } = await svc(
      ['test', file, '--live', '--prometheus', prometheus.url, '--interval', '1s'],
      { signals: timer(1500).pipe(map(() => 'SIGINT')) },
    );
    expect(stdout).to.match(/^FAIL QueueBacklog\{queue="stopped"\} undecided: the test stopped after 1\.\ds\n$/);
    expect(lines(stderr).filter((line) => STOPPED.test(line))).to.have.length(1);
    expect(code).to.equal(1);
  });

  it('refuses an alert Prometheus has no alerting rule for, exit 1, before running anything', async () => {
    const file = write('typo.yaml', scenario(prometheus, 'typo', '    - {alert: QueueBaklog, firing_within: 20s}'));
    const began = Date.now();
    const { code, stdout, stderr } = await live(file);
    expect(stderr).to.equal(
      `error: expect.alerts[0].alert: Prometheus at ${prometheus.url} has no alerting rule "QueueBaklog" (did you mean QueueBacklog?) (its alerts: QueueBacklog)\n`,
    );
    expect(stdout).to.equal('');
    expect(code).to.equal(1);
    expect(Date.now() - began).to.be.below(5_000);
  });

  it("takes the reference tool's --prometheus-url for --live --prometheus <url>", async () => {
    const file = write('url.yaml', scenario(prometheus, 'url', '    - {alert: QueueBaklog, firing_within: 20s}'));
    const { code, stderr } = await svc(['test', file, '--prometheus-url', prometheus.url, '--interval', '1s']);
    expect(stderr).to.include(`Prometheus at ${prometheus.url} has no alerting rule "QueueBaklog"`);
    expect(code).to.equal(1);
  });

  it('names an unreachable Prometheus with its credentials masked, exit 1, before running anything', async () => {
    const port = await freeTcpPort();
    const file = write(
      'nowhere.yaml',
      scenario(prometheus, 'nowhere', '    - {alert: QueueBacklog, firing_within: 2s}'),
    );
    const { code, stdout, stderr } = await svc([
      'test',
      file,
      '--live',
      '--prometheus',
      `http://admin:s3cret@127.0.0.1:${port}`,
    ]);
    expect(stderr).to.equal(
      `error: cannot reach Prometheus at http://admin:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
    expect(stdout).to.equal('');
    expect(code).to.equal(1);
  });

  it('asks whether --prometheus is the right URL when it is another API (an Alertmanager), exit 1', async () => {
    const file = write(
      'elsewhere.yaml',
      scenario(prometheus, 'elsewhere', '    - {alert: QueueBacklog, firing_within: 2s}'),
    );
    const { code, stdout, stderr } = await svc(['test', file, '--live', '--prometheus', idleAlertmanager.url]);
    expect(stderr).to.equal(
      `error: Prometheus at ${idleAlertmanager.url} answered 404 Not Found with no JSON to GET /api/v1/rules: 404 page not found: is --prometheus the base URL of Prometheus's HTTP API?\n`,
    );
    expect(stdout).to.equal('');
    expect(code).to.equal(1);
  });

  it('warns before running when Prometheus lists no alerting rules, which could only fail as not firing', async () => {
    const bare = await startPrometheus({ receiver: true });
    try {
      const file = write('bare.yaml', scenario(bare, 'bare', '    - {alert: QueueBacklog, firing_within: 2s}'));
      const { code, stdout, stderr } = await svc([
        'test',
        file,
        '--live',
        '--prometheus',
        bare.url,
        '--interval',
        '1s',
      ]);
      expect(lines(stderr)[0]).to.equal(
        `[warn] Prometheus at ${bare.url} lists no alerting rules: the expected alerts can fire only if another ruler (vmalert, a Prometheus remote-writing its ALERTS) writes them there; if it should evaluate them itself, its rule_files did not load them, and each would fail as not firing after its firing_within`,
      );
      expect(stdout).to.equal('FAIL QueueBacklog not firing within 2s\n');
      expect(code).to.equal(1);
    } finally {
      await bare.stop();
    }
  });
});
