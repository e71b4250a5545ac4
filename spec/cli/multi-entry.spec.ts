import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { of, Subject } from 'rxjs';
import { svc, lines, STOPPED, scenarioDir } from '../support/cli.js';
import { temporaryDirectory } from '../support/directories.js';

const { scenario } = scenarioDir('svc-multi-');
const CATALOG = 'examples/catalog';

describe('svc run: several entries', () => {
  it('--dry-run shows when each entry starts, computed crossings, and the clock groups', async () => {
    const result = await svc(['run', '--dry-run', 'examples/after-chain.yaml']);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.match(
      /entry 1: cpu\n[\s\S]*clock group: +chain_alert \(automatic\)\n +starts: +at the file start\n/,
    );
    expect(result.stderr).to.include(
      "starts:       when cpu > 4 (+ 200ms delay): cpu's tick 5 (value 5) 500ms after it starts → 700ms after the file start",
    );
    expect(result.stderr).to.include(
      "starts:       when alert > 2: alert's tick 3 (value 3) 300ms after it starts → 1s after the file start",
    );
    expect(result.stderr).to.include(
      'starts:       when latency_seconds > 0.8: decided at run time (latency_seconds has jitter ±0.05)',
    );
    expect(result.stderr).to.include(
      'clock groups:\n  chain_alert (automatic: linked by after): cpu, alert, page; start_time now\n',
    );
    expect(result.stderr).to.include(
      '  chain_latency_seconds (automatic: linked by after): latency_seconds, rollback; start_time now\n',
    );
    expect(result.stderr.trimEnd().split('\n').at(-1)).to.equal('Validation: OK (5 scenarios)');
  });

  it('--dry-run describes a while gate: condition, delays and snap_to', async () => {
    const result = await svc(['run', '--dry-run', 'examples/while-gate.yaml']);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include(
      '  while:        link_up < 1 (opens 5s after it holds, closes 10s after it stops), snap_to 0 on close\n',
    );
  });

  it('--dry-run shows the generated ids of entries that share a name', async () => {
    const path = scenario(
      'shared-name.yaml',
      `version: 2
kind: runnable
defaults: { signal_type: metrics, rate: 1, generator: { type: constant, value: 1 } }
scenarios:
  - { name: up, labels: { instance: a } }
  - { name: up, labels: { instance: b } }
`,
    );
    const result = await svc(['run', '--dry-run', path]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include('entry 1: up\n');
    expect(result.stderr).to.include('entry 2: up#2\n');
  });

  it('--dry-run shows phase offsets and explicit groups', async () => {
    const result = await svc(['run', '--dry-run', 'examples/phase-offsets.yaml']);
    expect(result.code).to.equal(0);
    expect(result.stderr).to.include('starts:       500ms after the file start (phase offset)');
    expect(result.stderr).to.include('clock groups:\n  rollout: web-1, web-2, web-3; start_time now\n');
  });

  it('runs an after chain: each entry starts at its computed time and writes from there', async () => {
    const result = await svc(['run', 'examples/after-chain.yaml', '--duration', '1s']);
    expect(result.code, result.stderr).to.equal(0);
    const first = (name: string) =>
      Number(
        lines(result.stdout)
          .find((l) => l.startsWith(`${name} `))!
          .split(' ')[2],
      );
    // A triggered entry starts when the event loop gets to its trigger: on a loaded machine that is
    // late by tens of ms (the exact times are pinned in virtual time, spec/compile and spec/runtime).
    expect(first('alert') - first('cpu')).to.be.within(700, 800);
    // page counts from alert's own start: alert's tick 3 is 300 ms after alert's tick 0.
    expect(first('page') - first('alert')).to.be.within(300, 400);
    const stopped = lines(result.stderr).filter((l) => STOPPED.test(l));
    expect(stopped.map((l) => STOPPED.exec(l)![1])).to.deep.equal([
      'cpu',
      'alert',
      'page',
      'latency_seconds',
      'rollback',
    ]);
    for (const line of stopped) expect(Number(STOPPED.exec(line)![3]), line).to.equal(10);
  });

  it('says which entries never started: a condition that did not happen before the entry it watches ended', async () => {
    const file = scenario(
      'never.yaml',
      `version: 2
kind: runnable
defaults: { signal_type: metrics, rate: 20, duration: 300ms }
scenarios:
  - name: cpu
    generator: { type: constant, value: 10 }
    jitter: 1
  - name: alert
    generator: { type: constant, value: 1 }
    after: { ref: cpu, op: '>', value: 50 }
`,
    );
    const result = await svc(['run', file]);
    expect(result.code, result.stderr).to.equal(0);
    const err = lines(result.stderr);
    expect(err).to.include('[info] alert: never started (cpu > 50 did not happen before cpu ended)');
    const alert = err.find((l) => l.startsWith('[progress] alert  STOPPED'))!;
    expect(alert).to.match(STOPPED);
    expect(STOPPED.exec(alert)![3]).to.equal('0');
    expect(err.indexOf('[info] alert: never started (cpu > 50 did not happen before cpu ended)')).to.be.lessThan(
      err.indexOf(alert),
    );
    expect(lines(result.stdout).every((l) => l.startsWith('cpu '))).to.equal(true);
  });

  it('says that an entry never started because the entry it watches failed first', async () => {
    const file = scenario(
      'failed-first.yaml',
      `version: 2
kind: runnable
defaults: { signal_type: metrics, rate: 20, duration: 10s }
scenarios:
  - name: cpu
    generator: { type: step, start: 0, step_size: 1 }
    sink: { type: tcp, address: "127.0.0.1:1", retry: { max_attempts: 1 } }
    on_sink_error: fail
  - name: alert
    generator: { type: constant, value: 1 }
    after: { ref: cpu, op: '>', value: 100 }
`,
    );
    const result = await svc(['run', file]);
    expect(result.code, result.stderr).to.equal(1);
    // Before: 'cpu > 100 did not happen before the run ended', though cpu had failed within a second of 10s.
    expect(lines(result.stderr)).to.include('[info] alert: never started (cpu > 100 did not happen before cpu failed)');
  });

  for (const workers of ['1', '2'])
    it(`says that a signal stopped the run during the delay of an after entry whose condition happened, --workers ${workers}`, async () => {
      const file = scenario(
        `delayed-${workers}.yaml`,
        `version: 2
kind: runnable
defaults: { signal_type: metrics, rate: 20 }
scenarios:
  - name: cpu
    generator: { type: step, start: 0, step_size: 1 }
    dynamic_labels: [{ key: core, cardinality: 2 }]
  - name: alert
    generator: { type: constant, value: 1 }
    after: { ref: cpu, op: '>', value: 2, delay: 1h }
`,
      );
      // The signal once cpu wrote 20 ticks of its 2 series, past 2 (workers take a while to load).
      const signals = new Subject<string>();
      let written = 0;
      const stdout = new Writable({
        write(chunk, _encoding, done) {
          written += String(chunk).split('\n').length - 1;
          if (written >= 40) signals.next('SIGINT');
          done();
        },
      });
      const result = await svc(['run', file, '--workers', workers], { signals, stdout });
      expect(result.code, result.stderr).to.equal(0);
      // Before: 'cpu > 2 did not happen before the run ended', though cpu had passed 2 in its first second.
      expect(lines(result.stderr)).to.include(
        '[info] alert: never started (cpu > 2 happened, but the run was stopped during its delay of 1h00m00s)',
      );
    });

  it('says that a signal stopped the run before an entry without a phase offset started (workers still loading)', async () => {
    const file = scenario(
      'early-stop.yaml',
      `version: 2
kind: runnable
defaults: { signal_type: metrics, rate: 20, generator: { type: constant, value: 1 } }
scenarios:
  - { name: up, dynamic_labels: [{ key: pod, cardinality: 2 }] }
`,
    );
    // The signal comes at once: the workers have not even loaded.
    const result = await svc(['run', file, '--workers', '2'], { signals: of('SIGINT') });
    expect(result.code, result.stderr).to.equal(0);
    expect(lines(result.stderr)).to.include('[info] up: never started (the run stopped before it started)');
  });

  it('says which entries a signal stopped during their phase offset', async () => {
    const file = scenario(
      'offset.yaml',
      `version: 2
kind: runnable
defaults: { signal_type: metrics, rate: 20, generator: { type: constant, value: 1 } }
scenarios:
  - name: now
  - name: later
    phase_offset: 1h
`,
    );
    const signals = new Subject<string>();
    setTimeout(() => signals.next('SIGINT'), 200);
    const result = await svc(['run', file], { signals });
    expect(result.code, result.stderr).to.equal(0);
    const err = lines(result.stderr);
    expect(err).to.include('[info] later: never started (the run stopped during its phase offset)');
    expect(err.filter((l) => l.startsWith('[info]'))).to.deep.equal([
      '[info] SIGINT: stopping: flushing what the sinks still hold (a receiver that does not answer is given up after 10s); a second Ctrl-C quits at once, losing it',
      '[info] later: never started (the run stopped during its phase offset)',
    ]);
    expect(STOPPED.exec(err.find((l) => l.startsWith('[progress] later  STOPPED'))!)![3]).to.equal('0');
  });

  it('runs a pack entry with overrides: one series per metric, ids <entry>.<metric>', async () => {
    const result = await svc(['run', 'examples/pack.yaml', '--duration', '1s']);
    expect(result.code, result.stderr).to.equal(0);
    const out = lines(result.stdout);
    expect(out.filter((l) => l.startsWith('http_request_errors_total{')).map((l) => l.split(' ')[1])).to.deep.equal([
      '0',
      '5',
    ]);
    expect(out).to.satisfy((all: string[]) =>
      all.some((l) =>
        l.startsWith('http_request_duration_p99_seconds{instance="web-1:8080",job="http",slo="breached"} 1.2 '),
      ),
    );
    expect(out).to.satisfy((all: string[]) => all.some((l) => l.startsWith('error_alert 1 ')));
    const ids = lines(result.stderr)
      .filter((l) => STOPPED.test(l))
      .map((l) => STOPPED.exec(l)![1]);
    expect(ids).to.include.members(['web.http_requests_total', 'host.node_load1', 'error_alert']);
    expect(ids).to.have.length(12);
  });

  it('rejects every multi-entry mistake with a validation message, exit 1', async () => {
    const cases: [string, string][] = [
      [
        `  - { name: a, generator: { type: constant, value: 5 }, after: { ref: b, op: '>', value: 1 } }
  - { name: b, generator: { type: constant, value: 5 }, after: { ref: a, op: '>', value: 1 } }`,
        'scenarios[0] (a): after.ref: circular wait: a → b → a',
      ],
      [
        `  - { name: a, generator: { type: constant, value: 5 }, after: { ref: nope, op: '>', value: 1 } }`,
        'scenarios[0] (a): after.ref: no entry has id "nope"',
      ],
      [
        `  - { name: a, generator: { type: constant, value: 5 }, after: { ref: a, op: '>', value: 1 } }`,
        'scenarios[0] (a): after.ref: an entry cannot wait for itself',
      ],
      [
        `  - { name: a, generator: { type: constant, value: 5 } }
  - { name: b, generator: { type: constant, value: 5 }, phase_offset: 1s, after: { ref: a, op: '>', value: 1 } }`,
        'scenarios[1] (b): after: not allowed together with phase_offset',
      ],
      [
        `  - { name: a, generator: { type: constant, value: 5 } }
  - { name: b, generator: { type: constant, value: 5 }, after: { ref: a, op: '>', value: 9 } }`,
        'scenarios[1] (b): after: a never goes above 9 (constant 5), so this entry would never start',
      ],
      [
        `  - { name: a, generator: { type: constant, value: 5 } }
  - { name: b, generator: { type: constant, value: 5 }, after: { ref: a, op: '>', value: 1 } }`,
        'scenarios[1] (b): after: a > 1 already holds at the first tick of a (value 5)',
      ],
      [
        `  - { name: a, clock_group: x, generator: { type: step, step_size: 1 } }
  - { name: b, clock_group: y, generator: { type: constant, value: 5 }, after: { ref: a, op: '>', value: 1 } }`,
        'scenarios[1] (b): clock_group: "y", but scenarios[0] (a) that its after.ref names is in "x": entries linked by after share one clock group: name the same clock_group on both, or drop one',
      ],
      [
        `  - { id: p, pack: nope }`,
        'scenarios[0] (p): pack: no pack named "nope" (built-in packs: node_cpu, node_memory, snmp_interface, http_server); for a pack file, give its path (./packs/<file>.yaml) or --catalog <dir>',
      ],
      [
        `  - { id: p, pack: node_cpu, overrides: { node_load2: { labels: { a: b } } } }`,
        'scenarios[0] (p): overrides.node_load2: the pack "node_cpu" has no metric "node_load2"',
      ],
    ];
    for (const [entries, message] of cases) {
      const file = scenario(
        'bad.yaml',
        `version: 2\nkind: runnable\ndefaults: { signal_type: metrics, rate: 1 }\nscenarios:\n${entries}\n`,
      );
      for (const argv of [
        ['run', file],
        ['run', '--dry-run', file],
      ]) {
        const result = await svc(argv);
        expect(result.code, message).to.equal(1);
        expect(result.stderr, message).to.include(message);
        expect(result.stdout).to.equal('');
      }
      expect((await svc(['run', '--dry-run', file])).stderr, message).to.include('Validation: FAILED');
    }
  });
});

describe('svc catalog', () => {
  it('list: a table of the catalog files and the built-in packs', async () => {
    const result = await svc(['catalog', 'list', '--catalog', CATALOG]);
    expect(result.code, result.stderr).to.equal(0);
    const rows = lines(result.stdout);
    expect(rows[0]).to.match(/^NAME +KIND +SIZE +SOURCE +DESCRIPTION$/);
    expect(rows).to.satisfy((all: string[]) =>
      all.some((r) =>
        /^checkout-incident +runnable +2 entries +examples\/catalog\/scenarios\/checkout-incident\.yaml +redis rejects connections/.test(
          r,
        ),
      ),
    );
    expect(rows).to.satisfy((all: string[]) =>
      all.some((r) => /^redis +pack +5 metrics +examples\/catalog\/packs\/redis\.yaml +redis_exporter basics/.test(r)),
    );
    expect(rows).to.satisfy((all: string[]) =>
      all.some((r) => /^node_cpu +pack +6 metrics +built-in +node_exporter CPU/.test(r)),
    );
  });

  it('list --json', async () => {
    const result = await svc(['catalog', 'list', '--catalog', CATALOG, '--json']);
    expect(result.code).to.equal(0);
    const listed = JSON.parse(result.stdout) as {
      catalog: string;
      items: { name: string; kind: string; source: string; size: number }[];
    };
    expect(listed.catalog).to.equal(CATALOG);
    expect(listed.items.map((i) => [i.name, i.kind, i.size])).to.deep.equal([
      ['checkout-incident', 'runnable', 2],
      ['redis', 'pack', 5],
      ['node_cpu', 'pack', 6],
      ['node_memory', 'pack', 6],
      ['snmp_interface', 'pack', 6],
      ['http_server', 'pack', 5],
    ]);
  });

  it('list without --catalog shows the built-in packs and says so', async () => {
    const result = await svc(['catalog', 'list']);
    expect(result.code).to.equal(0);
    expect(lines(result.stdout)).to.have.length(5);
    expect(result.stderr).to.include('no --catalog given: built-in packs only');
  });

  it('list marks invalid files and packs hidden by a built-in one', async () => {
    const dir = temporaryDirectory('svc-cat-');
    writeFileSync(join(dir, 'broken.yaml'), 'version: 2\nkind: runnable\nscenarios: []\n');
    writeFileSync(
      join(dir, 'mine.yaml'),
      'version: 2\nkind: composable\nname: node_cpu\ndescription: my cpu\nmetrics: [{ name: up }]\n',
    );
    const result = await svc(['catalog', 'list', '--catalog', dir]);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.match(
      /broken +invalid +- +.*broken\.yaml +.*scenarios: expected at least one entry, got an empty list/,
    );
    expect(result.stdout).to.match(
      /node_cpu +pack +1 metric +.*mine\.yaml +my cpu \(hidden by the built-in pack of that name\)/,
    );
  });

  it('show @name prints the file as written', async () => {
    const result = await svc(['catalog', 'show', '@checkout-incident', '--catalog', CATALOG]);
    expect(result.code, result.stderr).to.equal(0);
    expect(lines(result.stdout)[0]).to.equal(
      '# examples/catalog/scenarios/checkout-incident.yaml: runnable, redis rejects connections, then checkout errors climb',
    );
    expect(result.stdout).to.include('    pack: redis\n');
  });

  it('show @name of a built-in pack prints it in the pack file shape', async () => {
    const result = await svc(['catalog', 'show', '@snmp_interface']);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.include('kind: composable\nname: snmp_interface\n');
    expect(result.stdout).to.include('  - name: ifHCInOctets\n');
  });

  it('show of an unknown name, or without a catalog, exits 1 suggesting --catalog', async () => {
    const unknown = await svc(['catalog', 'show', '@nope', '--catalog', CATALOG]);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include(
      'error: @nope: nothing named "nope" in the catalog examples/catalog (it has: checkout-incident, redis) nor among the built-in packs; check the name, or give --catalog <dir>',
    );
    const bare = await svc(['catalog', 'show', '@redis']);
    expect(bare.code).to.equal(1);
    expect(bare.stderr).to.include('and no --catalog was given');
  });

  it('a missing catalog directory exits 1 suggesting --catalog, for every command', async () => {
    for (const argv of [
      ['catalog', 'list', '--catalog', 'no/such/dir'],
      ['catalog', 'show', '@x', '--catalog', 'no/such/dir'],
      ['run', '@x', '--catalog', 'no/such/dir'],
    ]) {
      const result = await svc(argv);
      expect(result.code, argv.join(' ')).to.equal(1);
      expect(result.stderr, argv.join(' ')).to.include(
        'error: no/such/dir: catalog directory not found: give --catalog <dir>',
      );
    }
  });

  it('is listed by svc --help', async () => {
    const result = await svc(['--help']);
    expect(result.stdout + result.stderr)
      .to.include('catalog list')
      .and.include('catalog show');
  });
});

describe('svc run @name', () => {
  it('runs a catalog scenario, its packs from the catalog and the built-in ones', async () => {
    const result = await svc([
      'run',
      '@checkout-incident',
      '--catalog',
      CATALOG,
      '--rate',
      '10',
      '--duration',
      '500ms',
    ]);
    expect(result.code, result.stderr).to.equal(0);
    const ids = lines(result.stderr)
      .filter((l) => STOPPED.test(l))
      .map((l) => STOPPED.exec(l)![1]);
    expect(ids).to.include.members([
      'cache.redis_up',
      'cache.redis_rejected_connections_total',
      'api.http_requests_total',
    ]);
    // api waits for redis_rejected_connections_total > 5: its tick 2 (200 ms), then 1 s.
    const first = (name: string) =>
      Number(
        lines(result.stdout)
          .find((l) => l.startsWith(`${name}{`))!
          .split(' ')
          .at(-1),
      );
    expect(first('http_requests_total') - first('redis_up')).to.be.within(1200, 1240);
  });

  it('--dry-run of @name shows the catalog file and the computed start', async () => {
    const result = await svc(['run', '--dry-run', '--scenario', '@checkout-incident', '--catalog', CATALOG]);
    expect(result.code, result.stderr).to.equal(0);
    expect(lines(result.stderr)[0]).to.equal(
      'scenario: examples/catalog/scenarios/checkout-incident.yaml (version 2, kind runnable)',
    );
    expect(result.stderr).to.include(
      'pack:         redis (examples/catalog/packs/redis.yaml), metric redis_up of entry cache',
    );
    expect(result.stderr).to.include('→ 2s after the file start');
  });

  it('metrics --scenario takes @name too', async () => {
    const result = await svc(['metrics', '--dry-run', '--scenario', '@checkout-incident', '--catalog', CATALOG]);
    expect(result.code, result.stderr).to.equal(0);
  });

  it('exits 1 with a clear error: no --catalog, an unknown name, a pack', async () => {
    const none = await svc(['run', '@checkout-incident']);
    expect(none.code).to.equal(1);
    expect(none.stderr).to.include(
      'error: @checkout-incident: a catalog reference needs a catalog: give --catalog <dir>',
    );
    const unknown = await svc(['run', '@nope', '--catalog', CATALOG]);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include(
      'error: @nope: no scenario named "nope" in the catalog examples/catalog (it has: checkout-incident); check the name, or give --catalog <dir>',
    );
    const pack = await svc(['run', '@redis', '--catalog', CATALOG]);
    expect(pack.code).to.equal(1);
    expect(pack.stderr).to.include(
      '"redis" is a pack (examples/catalog/packs/redis.yaml), not a scenario: use it from an entry with pack: redis',
    );
  });

  it('a file using a catalog pack needs --catalog, and says so', async () => {
    const file = scenario(
      'uses-redis.yaml',
      'version: 2\nkind: runnable\nscenarios:\n  - { signal_type: metrics, pack: redis, rate: 10, duration: 200ms }\n',
    );
    const without = await svc(['run', file]);
    expect(without.code).to.equal(1);
    expect(without.stderr).to.include('pack: no pack named "redis"').and.include('or --catalog <dir>');
    const withCatalog = await svc(['run', file, '--catalog', CATALOG]);
    expect(withCatalog.code, withCatalog.stderr).to.equal(0);
    expect(lines(withCatalog.stdout).filter((l) => l.startsWith('redis_up{job="redis"} 1 '))).to.have.length(2);
  });
});
