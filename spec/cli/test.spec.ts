import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Subject } from 'rxjs';
import { lines, scenarioDir, type SvcOptions, svc } from '../support/cli.js';
import { removeAtExit } from '../support/directories.js';
import { failingWritable } from '../support/streams.js';

const example = (name: string) => [
  'test',
  `examples/alerts/${name}.yaml`,
  '--rules',
  `examples/alerts/${name}.rules.yml`,
];

/** The promtool unit test `svc test --keep` says it kept; its directory is svc's, removed when the specs end. */
function keptTest(stderr: string): string {
  const kept = /^kept the promtool unit test: (\S+) /m.exec(stderr)![1]!;
  removeAtExit(dirname(kept));
  return kept;
}

/** Runs `svc` with `args` and expects exit 0 with exactly these result lines. */
async function expectPasses(args: string[], results: string[], options?: SvcOptions): Promise<void> {
  const { code, stdout } = await svc(args, options);
  expect(lines(stdout)).to.deep.equal(results);
  expect(code).to.equal(0);
}

/** A scenario of a constant temperature of 10 for 2 minutes, expecting the alert Hot within a minute. */
const HOT = `version: 2
kind: runnable
scenarios:
  - {name: temp, signal_type: metrics, rate: 1, duration: 2m, generator: {type: constant, value: 10}}
expect:
  alerts: [{alert: Hot, firing_within: 1m}]
`;

describe('svc test: alert expectations checked with promtool on virtual time', () => {
  it('passes HighErrorRate on a burst, firing and resolving in time', async () => {
    await expectPasses(example('error-burst'), [
      'PASS HighErrorRate{severity="page",job="checkout"} firing after 1m15s (within 20m), resolved 5m45s later (within 10m)',
    ]);
  });

  it('passes a for: 5m latency alert on histogram drift', async () => {
    await expectPasses(example('latency-drift'), [
      'PASS HighLatency{handler="/api/checkout"} firing after 11m30s (within 15m)',
    ]);
  });

  it('passes a link-flap alert on a flapping link', async () => {
    await expectPasses(example('link-flap'), ['PASS LinkFlapping{ifName="eth0"} firing after 6m30s (within 10m)']);
  });

  it('passes QueueBacklog, the example of svc test --live, on virtual time too', async () => {
    await expectPasses(
      [...example('queue-backlog'), '--interval', '1s'],
      [
        'PASS QueueBacklog{severity="page",queue="orders"} firing after 3s (within 10s), resolved 3s later (within 10s)',
      ],
    );
  });

  it('loads a rules file whose path holds glob characters, which promtool would expand', async () => {
    // promtool globs rule_files: unescaped, `team[prod]/` matched no file and every alert read as not firing.
    const { dir, scenario } = scenarioDir('svc-test-');
    mkdirSync(join(dir, 'team[prod]'));
    const file = scenario('hot.yaml', HOT);
    const rules = scenario(
      'team[prod]/rules.yml',
      'groups:\n  - name: g\n    rules:\n      - {alert: Hot, expr: temp > 5}\n',
    );
    const { code, stdout, stderr } = await svc(['test', file, '--rules', rules]);
    expect(stderr).to.equal('');
    expect(lines(stdout)).to.deep.equal(['PASS Hot firing after 0s (within 1m)']);
    expect(code).to.equal(0);
  });

  it('loads every --rules file, a recording rule in one feeding an alert in another', async () => {
    // Only the last --rules was kept: the alert read a recorded series nothing wrote, and failed as not firing.
    const { scenario } = scenarioDir('svc-test-');
    const file = scenario(
      'hot.yaml',
      `version: 2
kind: runnable
scenarios:
  - {name: temp, signal_type: metrics, labels: {room: a}, rate: 1, duration: 2m, generator: {type: constant, value: 10}}
expect:
  alerts: [{alert: Hot, firing_within: 1m}]
`,
    );
    const recording = scenario(
      'rec.yml',
      'groups:\n  - name: r\n    rules:\n      - {record: room:temp:max, expr: max(temp)}\n',
    );
    const alerting = scenario(
      'alerts.yml',
      'groups:\n  - name: a\n    rules:\n      - {alert: Hot, expr: room:temp:max > 5}\n',
    );
    const { code, stdout, stderr } = await svc(['test', file, '--rules', recording, '--rules', alerting]);
    expect(stderr).to.equal('');
    expect(lines(stdout)).to.deep.equal(['PASS Hot firing after 0s (within 1m)']);
    expect(code).to.equal(0);
    // A file given twice is loaded once, named as first given (the last spelling was kept).
    const only = await svc([
      'test',
      file,
      '--rules',
      recording,
      '--rules',
      recording.replace(/rec\.yml$/, './rec.yml'),
    ]);
    expect(only.stderr).to.equal(
      `error: ${file}: expect.alerts[0].alert: the rules file ${recording} has no alerting rule "Hot" (it has no alerting rules)\n`,
    );
  });

  it('warns of a rule group name in two --rules files, whose order promtool cannot fix', async () => {
    // promtool ranks group_eval_order by name alone: the two groups "g" ran in either order, and the alert on the
    // recorded series fired one evaluation later in some runs (1 in 8), with no word of why.
    const { scenario } = scenarioDir('svc-test-');
    const file = scenario('hot.yaml', HOT);
    const recording = scenario(
      'rec.yml',
      'groups:\n  - name: g\n    rules:\n      - {record: t:max, expr: max(temp)}\n',
    );
    const alerting = scenario(
      'alerts.yml',
      'groups:\n  - name: g\n    rules:\n      - {alert: Hot, expr: t:max > 5}\n',
    );
    const { stderr } = await svc(['test', file, '--rules', recording, '--rules', alerting]);
    expect(stderr).to.equal(
      `[warn] rule group "g" is in ${recording} and ${alerting}: promtool orders a unit test's groups by name alone, so these run in an order that changes from run to run, and an alert on a series one of them records can fire one evaluation (--interval) earlier or later between the probes of a test; give the groups different names\n`,
    );
  });

  it('samples csv_replay entries, their CSV read beside the scenario file', async () => {
    const { scenario } = scenarioDir('svc-test-');
    scenario('load.csv', 'Time,load\n0,0.5\n60,3\n120,0.5\n');
    const file = scenario(
      'replay.yaml',
      `version: 2
kind: runnable
scenarios:
  - {name: load, signal_type: metrics, rate: 1, duration: 3m, generator: {type: csv_replay, file: load.csv, repeat: false}}
expect:
  alerts: [{alert: HighLoad, firing_within: 2m}]
`,
    );
    const rules = scenario(
      'rules.yml',
      'groups:\n  - name: g\n    rules:\n      - {alert: HighLoad, expr: load > 2}\n',
    );
    const { code, stdout, stderr } = await svc(['test', file, '--rules', rules]);
    expect(stderr).to.equal('');
    expect(lines(stdout)).to.deep.equal(['PASS HighLoad firing after 1m (within 2m)']);
    expect(code).to.equal(0);
  });

  it('fails an expectation the alert misses, exit 1, and keeps a promtool test that fails the same way', async () => {
    const { scenario } = scenarioDir('svc-test-');
    const text = readFileSync('examples/alerts/link-flap.yaml', 'utf8').replace(
      'firing_within: 10m',
      'firing_within: 5m',
    );
    const { code, stdout, stderr } = await svc([
      'test',
      scenario('flap.yaml', text),
      '--rules',
      'examples/alerts/link-flap.rules.yml',
      '--keep',
    ]);
    expect(lines(stdout)).to.deep.equal(['FAIL LinkFlapping{ifName="eth0"} firing after 6m30s (not within 5m)']);
    expect(code).to.equal(1);
    const kept = keptTest(stderr);
    expect(existsSync(kept)).to.equal(true);
    expect(() => execFileSync('promtool', ['test', 'rules', kept], { stdio: 'pipe' })).to.throw();
  });

  it('ends quietly with the verdict when the reader of stdout goes away (EPIPE), as svc run does', async () => {
    const stderr = new PassThrough();
    let said = '';
    stderr.on('data', (chunk: Buffer) => (said += chunk));
    const { code } = await svc(example('link-flap'), { stdout: failingWritable('EPIPE: broken pipe'), stderr });
    expect(said).to.equal('');
    expect(code).to.equal(0);
  });

  it('tests the classic series of a histogram with native and classic buckets, warning that the native one is left out', async () => {
    const { scenario } = scenarioDir('svc-test-');
    const file = scenario(
      'both.yaml',
      `version: 2
kind: runnable
scenarios:
  - {name: lat, signal_type: histogram, rate: 1, duration: 5m, distribution: {type: uniform, min: 0, max: 1}, native: {}, buckets: [0.5], sink: {type: remote_write, url: 'http://127.0.0.1:1/api/v1/write'}}
expect:
  alerts: [{alert: Observed, firing_within: 2m}]
`,
    );
    const rules = scenario(
      'rules.yml',
      'groups:\n  - name: g\n    rules:\n      - {alert: Observed, expr: lat_count > 0}\n',
    );
    const { code, stdout, stderr } = await svc(['test', file, '--rules', rules, '--keep']);
    expect(lines(stdout)).to.deep.equal(['PASS Observed firing after 0s (within 2m)']);
    expect(stderr).to.match(
      /^\[warn\] lat: its native histogram is left out of the test \(promtool's unit test gets float series only\); its classic series are tested\n/,
    );
    expect(code).to.equal(0);
    // No float series stands for the native histogram (its count, under the bare name).
    const kept = readFileSync(keptTest(stderr), 'utf8');
    expect([...kept.matchAll(/- series: (\S+)/g)].map(([, series]) => series)).to.deep.equal([
      'lat_bucket{le="0.5"}',
      'lat_bucket{le="+Inf"}',
      'lat_sum',
      'lat_count',
    ]);
  });

  it('samples at --interval', async () => {
    await expectPasses(
      [...example('link-flap'), '--interval', '30s'],
      ['PASS LinkFlapping{ifName="eth0"} firing after 6m30s (within 10m)'],
    );
  });

  it('warns of a rule group with its own interval, which promtool evaluates at --interval like every group', async () => {
    const { scenario } = scenarioDir('svc-test-');
    const rules = scenario(
      'rules.yml',
      readFileSync('examples/alerts/link-flap.rules.yml', 'utf8')
        .replace('- name: network', '- name: network\n    interval: 1m')
        .concat('  - {name: same, interval: 15s, rules: []}\n  - {name: spelt, interval: 1m30s, rules: []}\n'),
    );
    const { code, stdout, stderr } = await svc(['test', 'examples/alerts/link-flap.yaml', '--rules', rules]);
    expect(lines(stdout)).to.deep.equal(['PASS LinkFlapping{ifName="eth0"} firing after 6m30s (within 10m)']);
    expect(lines(stderr)).to.deep.equal([
      `[warn] ${rules}: group "network" has interval: 1m, but svc test evaluates every group every 15s (--interval), as promtool does: the times of its alerts can differ from Prometheus's by up to 1m; give --interval 1m to test it as Prometheus evaluates it`,
      `[warn] ${rules}: group "spelt" has interval: 1m30s, but svc test evaluates every group every 15s (--interval), as promtool does: the times of its alerts can differ from Prometheus's by up to 1m30s; give --interval 1m30s to test it as Prometheus evaluates it`,
    ]);
    expect(code).to.equal(0);
  });

  it('refuses what it cannot test, naming the problem', async () => {
    const { scenario } = scenarioDir('svc-test-');
    const endless = scenario(
      'endless.yaml',
      readFileSync('examples/alerts/link-flap.yaml', 'utf8').replace('duration: 20m', ''),
    );
    const noExpect = scenario(
      'plain.yaml',
      readFileSync('examples/alerts/link-flap.yaml', 'utf8').replace(/expect:[\s\S]*/, ''),
    );
    // promtool would evaluate the rules at 1 920 001 steps to answer: it was stopped after 60 s, in words naming no field.
    const farDeadline = scenario(
      'far.yaml',
      readFileSync('examples/alerts/link-flap.yaml', 'utf8').replace('firing_within: 10m', 'firing_within: 8000h'),
    );
    const binary = scenario('rules.gz', 'rules\0\u0001');
    const nativeOnly = scenario(
      'native.yaml',
      `version: 2
kind: runnable
scenarios:
  - {name: nlat, signal_type: histogram, rate: 1, duration: 5m, distribution: {type: uniform, min: 0, max: 1}, native: {}, sink: {type: remote_write, url: 'http://127.0.0.1:1/api/v1/write'}}
expect:
  alerts: [{alert: NativeSeen, firing_within: 2m}]
`,
    );
    // The default encoder (metrics_text) writes no native histograms: the file is invalid, as svc run says.
    const nativeToText = scenario(
      'native-text.yaml',
      readFileSync(nativeOnly, 'utf8').replace(/, sink: \{[^}]*\}/, ''),
    );
    const cases: [string[], number, RegExp][] = [
      [
        ['test', nativeOnly, '--rules', 'examples/alerts/link-flap.rules.yml'],
        2,
        /svc test: nlat: a native histogram cannot be tested offline: promtool's unit test gets float series only \(promtool 2\.42 has no notation for native histograms\); give the entry classic buckets too, or test with --live/,
      ],
      [
        ['test', nativeToText, '--rules', 'examples/alerts/link-flap.rules.yml'],
        1,
        /^error: .*native-text\.yaml: scenarios\[0\] \(nlat\): native: the metrics_text encoder does not write native histograms \(remote_write and otlp do\); give buckets too, and it writes the classic ones\n$/,
      ],
      [['test', 'examples/alerts/link-flap.yaml'], 2, /missing --rules/],
      [
        ['test', farDeadline, '--rules', 'examples/alerts/link-flap.rules.yml'],
        1,
        /^error: .*far\.yaml: expect\.alerts\[0\]\.firing_within: 8000h is 1920001 rule evaluations at 15s \(--interval\): promtool evaluates every rule at each, and svc test asks for at most 100000: give a shorter firing_within or a longer --interval\n$/,
      ],
      [
        [...example('link-flap'), '--duration', '28h', '--interval', '1s'],
        1,
        /^error: examples\/alerts\/link-flap\.yaml: the scenario's samples and the 5m lookback after them are 101101 rule evaluations at 1s \(--interval\): .*at most 100000: give a shorter duration or a longer --interval\n$/,
      ],
      // Its resolves_within: 10s passes at --interval 1s (above); at the default 15s no evaluation could see it.
      [
        example('queue-backlog'),
        1,
        /^error: examples\/alerts\/queue-backlog\.yaml: expect\.alerts\[0\]\.resolves_within: shorter than the evaluation interval \(15s\)\n$/,
      ],
      [[...example('link-flap'), '--interval', '10ms'], 2, /--interval: expected from 1s to 1h, got "10ms"/],
      [[...example('link-flap'), '--interval', 'often'], 2, /--interval: /],
      [
        ['test', endless, '--rules', 'examples/alerts/link-flap.rules.yml'],
        2,
        /a backfill needs a finite duration on every entry; none on: ifOperStatus/,
      ],
      [
        ['test', noExpect, '--rules', 'examples/alerts/link-flap.rules.yml'],
        1,
        /^error: .*no expect\.alerts: nothing to test/,
      ],
      [
        ['test', 'examples/alerts/link-flap.yaml', '--rules', '/nonexistent/rules.yml'],
        1,
        /^error: --rules: \/nonexistent\/rules\.yml: cannot read the rules file \(no such file\)$/m,
      ],
      [
        ['test', 'examples/alerts/link-flap.yaml', '--rules', 'examples'],
        1,
        /^error: --rules: \/.*\/examples: cannot read the rules file \(it is a directory\)$/m,
      ],
      [
        ['test', 'examples/alerts/link-flap.yaml', '--rules', '/dev/zero'],
        1,
        /^error: --rules: \/dev\/zero: the text is larger than 16777216 bytes \(16 MiB\), the limit for a rules file$/m,
      ],
      [
        ['test', 'examples/alerts/link-flap.yaml', '--rules', binary],
        1,
        /^error: --rules: .*: not a text file \(it holds binary data\): give a YAML rules file$/m,
      ],
    ];
    for (const [argv, expectedCode, message] of cases) {
      const { code, stderr } = await svc(argv);
      expect(stderr, argv.join(' ')).to.match(message);
      expect(code, argv.join(' ')).to.equal(expectedCode);
    }
  });

  it('refuses flags that do not go together, naming the flags given, exit 2 (no backend is asked)', async () => {
    const file = 'examples/alerts/queue-backlog.yaml';
    const url = 'http://127.0.0.1:1';
    const rules = 'examples/alerts/link-flap.rules.yml';
    const cases: [string[], RegExp][] = [
      [['--live'], /--live needs --prometheus <url>/],
      [
        ['--live', '--prometheus', url, '--rules', rules],
        /--rules has no use with --live: .* of --prometheus evaluates/,
      ],
      [
        ['--live', '--prometheus', url, '--keep'],
        /--keep keeps the promtool test of a run on virtual time: --live writes/,
      ],
      [['--prometheus', url], /--prometheus and --alertmanager go with --live/],
      [
        ['--live', '--prometheus', 'ftp://user:pw@host/'],
        /--prometheus: expected an http\(s\) URL, got "ftp:\/\/user:\*\*\*@host\/"/,
      ],
      [
        ['--live', '--prometheus', url, '--alertmanager', 'not a url'],
        /--alertmanager: expected an http\(s\) URL, got "not a url"/,
      ],
      [['--live', '--prometheus', url, '--interval', '100ms'], /--interval: expected from 1s to 1h, got "100ms"/],
      [
        ['--prometheus-url', url, '--prometheus', url],
        /--prometheus-url is short for --live --prometheus <url>: give one/,
      ],
      [
        ['--prometheus-url', url, '--rules', rules],
        /--rules has no use with --prometheus-url: .* of --prometheus-url evaluates/,
      ],
      [['--prometheus-url', url, '--keep'], /virtual time: --prometheus-url writes none/],
      [['--prometheus-url', 'notaurl'], /^Usage Error: --prometheus-url: expected an http\(s\) URL, got "notaurl"/],
    ];
    for (const [flags, message] of cases) {
      const { code, stderr } = await svc(['test', file, ...flags]);
      expect(stderr, flags.join(' ')).to.match(message);
      expect(stderr, flags.join(' ')).not.to.contain('pw@');
      expect(code, flags.join(' ')).to.equal(2);
    }
  });

  it('refuses an expectation whose alert no rule of the rules file defines, naming it and the close name', async () => {
    const { scenario } = scenarioDir('svc-test-');
    const file = scenario(
      'typo.yaml',
      readFileSync('examples/alerts/error-burst.yaml', 'utf8').replace(
        /expect:[\s\S]*/,
        'expect:\n  alerts:\n    - {alert: HighErrorRate, firing_within: 20m}\n    - {alert: HighErorRate, firing_within: 20m}\n',
      ),
    );
    const { code, stdout, stderr } = await svc(['test', file, '--rules', 'examples/alerts/error-burst.rules.yml']);
    expect(stderr).to.equal(
      `error: ${file}: expect.alerts[1].alert: the rules file examples/alerts/error-burst.rules.yml has no alerting rule "HighErorRate" (did you mean HighErrorRate?) (its alerts: HighErrorRate)\n`,
    );
    expect(stdout).to.equal('');
    expect(code).to.equal(1);
  });

  it('says how to get promtool when it is not found, and ends then (no timer of the failed start left)', async function () {
    // Far below promtool's 60 s limit, which a timer left armed after the failed start made the process wait out.
    this.timeout(20_000);
    const { code, stderr } = await svc(example('link-flap'), {
      env: { ...process.env, PROMTOOL: '/nonexistent/promtool' },
    });
    expect(stderr).to.match(/^error: promtool not found \("\/nonexistent\/promtool"\): install Prometheus's promtool/);
    expect(code).to.equal(1);
  });

  it('removes the unit test, and the directory it made for it, once the verdict is in (without --keep)', async () => {
    const { dir, scenario } = scenarioDir('svc-test-');
    const seen = join(dir, 'unit-test-paths');
    const promtool = scenario('promtool', `#!/bin/sh\necho "$3" >> ${seen}\nexec promtool "$@"\n`);
    chmodSync(promtool, 0o755);
    await expectPasses(example('link-flap'), ['PASS LinkFlapping{ifName="eth0"} firing after 6m30s (within 10m)'], {
      env: { ...process.env, PROMTOOL: promtool },
    });
    const tests = lines(readFileSync(seen, 'utf8'));
    expect(tests).to.not.be.empty;
    expect(tests.map(dirname).filter(existsSync)).to.deep.equal([]);
  });

  it('on a stop signal, ends the promtool run and removes the unit test, exit 130', async () => {
    // The signal used to end the process where it stood, leaving the unit test (megabytes for a long scenario) in
    // the temporary directory.
    const { dir, scenario } = scenarioDir('svc-test-');
    const seen = join(dir, 'unit-test-path');
    const slow = scenario('slow-promtool', `#!/bin/sh\necho "$3" > ${seen}\nexec sleep 30\n`);
    chmodSync(slow, 0o755);
    const signals = new Subject<string>();
    const began = Date.now();
    const result = svc(example('link-flap'), { env: { ...process.env, PROMTOOL: slow }, signals });
    while (!existsSync(seen) || !readFileSync(seen, 'utf8')) await new Promise((resolve) => setTimeout(resolve, 50));
    signals.next('SIGINT');
    const { code, stdout, stderr } = await result;
    expect(stderr).to.equal('error: stopped by SIGINT: no expectation was decided\n');
    expect(stdout).to.equal('');
    expect(code).to.equal(130);
    expect(Date.now() - began).to.be.below(10_000);
    expect(existsSync(readFileSync(seen, 'utf8').trim())).to.equal(false);
  });

  it('says what a promtool that fails without a word did: its exit code', async () => {
    const { code, stderr } = await svc(example('link-flap'), { env: { ...process.env, PROMTOOL: '/bin/false' } });
    expect(stderr).to.equal('error: promtool refused the unit test: it exited with code 1 and printed nothing\n');
    expect(code).to.equal(1);
  });

  it('is ignored by svc run', async () => {
    const { code, stderr } = await svc(['run', '--dry-run', 'examples/alerts/error-burst.yaml']);
    expect(stderr).to.contain('Validation: OK (2 scenarios)');
    expect(code).to.equal(0);
  });
});
