import { expect } from 'chai';
import { Catalog } from '../../lib/catalog/index.js';
import { compileScenario } from '../../lib/compile/index.js';
import { loadScenario } from '../../lib/config/index.js';
import { directory } from '../support/directories.js';
import { compile, compileProblems, stepEntry } from '../support/plans.js';
import { metric } from '../support/scenarios.js';

const packed = (extra: Record<string, unknown> = {}) => ({
  signal_type: 'metrics',
  pack: 'http_server',
  rate: 2,
  ...extra,
});

const REDIS = `version: 2
kind: composable
name: redis
description: redis basics
shared_labels: { job: redis }
metrics:
  - name: redis_up
    generator: { type: constant, value: 1 }
  - name: redis_connected_clients
`;

describe('compile: packs', () => {
  it('expands a pack entry into one entry per metric, ids <entry id>.<metric>', () => {
    const plan = compile([packed({ id: 'web' })]);
    expect(plan.scenarios.map((e) => e.id)).to.deep.equal([
      'web.http_requests_total',
      'web.http_request_errors_total',
      'web.http_request_duration_p50_seconds',
      'web.http_request_duration_p99_seconds',
      'web.http_requests_in_flight',
    ]);
    expect(plan.scenarios.map((e) => e.name)).to.deep.equal(plan.scenarios.map((e) => e.id.slice('web.'.length)));
    expect(plan.plans[0]).to.deep.include({ label: 'scenarios[0] (web.http_requests_total)' });
    expect(plan.plans[0]!.pack).to.deep.equal({
      entry: 'web',
      pack: 'http_server',
      metric: 'http_requests_total',
      source: 'built-in',
    });
    for (const entry of plan.scenarios) {
      expect(entry).not.to.have.property('pack');
      expect(entry).not.to.have.property('overrides');
    }
  });

  it('gives every metric the entry fields: rate, duration, encoder, sink, schedules, phase_offset, jitter', () => {
    const plan = compile([
      packed({
        duration: '5s',
        encoder: { type: 'json_lines' },
        sink: { type: 'file', path: '/tmp/x' },
        phase_offset: '2s',
        gaps: { every: '10s', for: '1s' },
        jitter: 0.5,
      }),
    ]);
    for (const entry of plan.scenarios) {
      expect(entry).to.deep.include({
        rate: 2,
        duration: 5000,
        encoder: { type: 'json_lines' },
        sink: { type: 'file', path: '/tmp/x' },
        phase_offset: 2000,
        gaps: { every: 10_000, for: 1000 },
      });
      // Not the counters' (below).
      expect(entry.jitter).to.equal(entry.metric_type === 'counter' ? undefined : 0.5);
    }
  });

  it('takes generator, metric_type and help from the pack', () => {
    const [requests, , p50] = compile([packed()]).scenarios;
    expect(requests).to.deep.include({
      generator: { type: 'step', start: 0, step_size: 25 },
      metric_type: 'counter',
      help: 'Total HTTP requests served.',
    });
    expect(p50).to.deep.include({ metric_type: 'gauge', help: 'Median request latency.' });
  });

  it('merges labels: shared_labels, then the metric, then the entry, then the override', () => {
    const [requests, errors] = compile([
      packed({
        labels: { job: 'web', code: '201', team: 'shop' },
        overrides: { http_request_errors_total: { labels: { code: '503', slo: 'breached' } } },
      }),
    ]).scenarios;
    expect(requests!.labels).to.deep.equal({ job: 'web', code: '201', team: 'shop' });
    expect(errors!.labels).to.deep.equal({ job: 'web', code: '503', team: 'shop', slo: 'breached' });
  });

  it('replaces the generator of one metric by its override', () => {
    const plan = compile([
      packed({ overrides: { http_requests_in_flight: { generator: { type: 'constant', value: 99 } } } }),
    ]);
    expect(plan.scenarios.find((e) => e.id === 'http_server.http_requests_in_flight')).to.deep.include({
      generator: { type: 'constant', value: 99 },
      metric_type: 'gauge',
    });
    expect(plan.scenarios.find((e) => e.id === 'http_server.http_requests_total')!.generator).to.deep.equal({
      type: 'step',
      start: 0,
      step_size: 25,
    });
  });

  it('rejects an override naming a metric the pack does not have', () => {
    expect(compileProblems([packed({ id: 'web', overrides: { http_latency: { labels: { a: 'b' } } } })])).to.deep.equal(
      [
        'scenarios[0] (web): overrides.http_latency: the pack "http_server" has no metric "http_latency" (its metrics: http_requests_total, http_request_errors_total, http_request_duration_p50_seconds, http_request_duration_p99_seconds, http_requests_in_flight)',
      ],
    );
  });

  it("refuses a label a pack's metric brings that the entry's encoder cannot write (influx_lp: time)", () => {
    const overrides = { http_requests_in_flight: { labels: { time: 'x' } } };
    expect(compileProblems([packed({ id: 'web', encoder: { type: 'influx_lp' }, overrides })])).to.deep.equal([
      'scenarios[0] (web.http_requests_in_flight): labels.time: a label of the metric http_requests_in_flight of the pack "http_server": not allowed with the influx_lp encoder (InfluxDB refuses a point with a tag or field named time): give the label another name',
    ]);
    expect(compile([packed({ id: 'web', overrides })]).scenarios).to.have.length(5);
  });

  it('refuses a metric of a pack left without a label into the logstore sink, whose store refuses such a stream', () => {
    const sink = { type: 'logstore', url: 'http://loki:3100' };
    const overrides = { http_requests_in_flight: { labels: { job: '' } } };
    expect(compileProblems([packed({ id: 'web', sink, overrides })])).to.deep.equal([
      'scenarios[0] (web.http_requests_in_flight): labels: the metric http_requests_in_flight of the pack "http_server": the logstore sink needs at least one label (the log store refuses a stream without labels; an empty value, as job has, is no label): add one, e.g. labels: {job: <name>}',
    ]);
    expect(compile([packed({ id: 'web', sink })]).scenarios).to.have.length(5);
  });

  it('names a single flat entry `entry` in messages, as lib/config does', () => {
    const file = loadScenario(JSON.stringify(packed({ id: 'web', overrides: { nope: {} } })), {
      origin: 'body',
      format: 'json',
    });
    expect(() => compileScenario(file, { origin: 'body' })).to.throw(
      'body: entry (web): overrides.nope: the pack "http_server" has no metric "nope"',
    );
    const ok = compileScenario(
      loadScenario(JSON.stringify(packed({ id: 'web' })), { origin: 'body', format: 'json' }),
      { origin: 'body' },
    );
    expect(ok.plans[0]!.label).to.equal('entry (web.http_requests_total)');
  });

  it("rejects a pack name of the reference tool, naming svc's pack of the same source", () => {
    expect(compileProblems([packed({ pack: 'node_exporter_cpu', id: 'host' })])).to.deep.equal([
      `scenarios[0] (host): pack: no pack named "node_exporter_cpu": that is a built-in pack of the reference tool, which svc does not ship; svc's node_cpu models the same source with metrics of its own (docs/packs.md): write pack: node_cpu, or give the pack file by its path (./packs/<file>.yaml) or --catalog <dir> with the directory holding it`,
    ]);
    expect(compileProblems([packed({ pack: 'kube_state_metrics', id: 'k' })])).to.deep.equal([
      'scenarios[0] (k): pack: no pack named "kube_state_metrics": that is a built-in pack of the reference tool, which svc does not ship; give the pack file by its path (./packs/<file>.yaml) or --catalog <dir> with the directory holding it',
    ]);
  });

  it('rejects an unknown pack, suggesting --catalog', () => {
    expect(compileProblems([packed({ pack: 'redis' })])).to.deep.equal([
      'scenarios[0] (redis): pack: no pack named "redis" (built-in packs: node_cpu, node_memory, snmp_interface, http_server); for a pack file, give its path (./packs/<file>.yaml) or --catalog <dir> with the directory holding it',
    ]);
  });

  describe('with a catalog', () => {
    it('expands a catalog pack; a metric without generator is constant 0', async () => {
      const catalog = await Catalog.open(directory({ 'packs/redis.yaml': REDIS }));
      const plan = compile([packed({ pack: 'redis', id: 'cache' })], { catalog });
      expect(plan.scenarios.map((e) => [e.id, e.generator, e.labels])).to.deep.equal([
        ['cache.redis_up', { type: 'constant', value: 1 }, { job: 'redis' }],
        ['cache.redis_connected_clients', { type: 'constant', value: 0 }, { job: 'redis' }],
      ]);
      expect(plan.plans[0]!.pack!.source).to.match(/packs\/redis\.yaml$/);
    });

    it('derives the type of a metric the pack leaves untyped from its generator, override included', async () => {
      const catalog = await Catalog.open(directory({ 'packs/redis.yaml': REDIS }));
      const plan = compile(
        [
          packed({
            pack: 'redis',
            overrides: { redis_connected_clients: { generator: { type: 'step', step_size: 1 } } },
          }),
        ],
        { catalog },
      );
      expect(plan.scenarios.map((e) => e.metric_type)).to.deep.equal(['gauge', 'counter']);
      // A step counting down would write a falling counter: a gauge, as on an entry.
      const down = compile(
        [
          packed({
            pack: 'redis',
            overrides: { redis_connected_clients: { generator: { type: 'step', start: 100, step_size: -1 } } },
          }),
        ],
        { catalog },
      );
      expect(down.scenarios.map((e) => e.metric_type)).to.deep.equal(['gauge', 'gauge']);
    });

    it("gives a metric the noise of its alias as jitter; the entry's jitter replaces it, an override's generator too", async () => {
      const catalog = await Catalog.open(
        directory({
          'lat.yaml': `version: 2
kind: composable
name: lat
description: latency
metrics:
  - name: p50
    generator: { type: steady, center: 0.03, amplitude: 0.004, period: 5m, noise: 0.002, noise_seed: 7 }
  - name: up
`,
        }),
      );
      const noise = (extra: Record<string, unknown>) =>
        compile([packed({ pack: 'lat', ...extra })], { catalog }).scenarios.map((e) => [e.jitter, e.jitter_seed]);
      expect(noise({})).to.deep.equal([
        [0.002, 7],
        [undefined, 0],
      ]);
      expect(noise({ jitter: 0.5 })).to.deep.equal([
        [0.5, 0],
        [0.5, 0],
      ]);
      expect(noise({ overrides: { p50: { generator: { type: 'constant', value: 0.1 } } } })[0]).to.deep.equal([
        undefined,
        0,
      ]);
      expect(noise({ overrides: { p50: { generator: { type: 'steady', noise: 0.01 } } } })[0]).to.deep.equal([0.01, 0]);
    });

    it("gives a counter of the pack none of the entry's jitter, which would make its samples go down", () => {
      const plan = compile([packed({ pack: 'node_cpu', jitter: 0.5 })]);
      const jitter = Object.fromEntries(plan.scenarios.map((e) => [`${e.name} ${e.metric_type}`, e.jitter]));
      expect(jitter).to.include({
        'node_cpu_seconds_total counter': undefined,
        'node_load1 gauge': 0.5,
      });
    });

    it('finds built-in packs first', async () => {
      const catalog = await Catalog.open(
        directory({ 'http_server.yaml': REDIS.replace('name: redis', 'name: http_server') }),
      );
      expect(compile([packed()], { catalog }).plans[0]!.pack!.source).to.equal('built-in');
    });

    it('offers the close name of a mistyped pack, built-in or from the catalog', async () => {
      const catalog = await Catalog.open(directory({ 'packs/redis.yaml': REDIS }));
      for (const [typed, near] of [
        ['node_cpus', 'node_cpu'],
        ['rediss', 'redis'],
      ])
        expect(compileProblems([packed({ pack: typed })], { catalog })[0]).to.include(
          `pack: no pack named "${typed}" (did you mean ${near}?) (built-in packs:`,
        );
    });

    it('lists the packs of the catalog when the name is unknown', async () => {
      const catalog = await Catalog.open(directory({ 'packs/redis.yaml': REDIS }));
      expect(compileProblems([packed({ pack: 'mysql' })], { catalog })[0]).to.match(
        /^scenarios\[0\] \(mysql\): pack: no pack named "mysql" \(built-in packs: .*; the catalog .* has redis\); check the name, or give --catalog <dir>/,
      );
    });

    it('names SVC_CATALOG, not --catalog, in an unknown pack when the variable gave the directory', async () => {
      const catalog = await Catalog.open(directory({ 'packs/redis.yaml': REDIS }), undefined, 'SVC_CATALOG');
      expect(compileProblems([packed({ pack: 'mysql' })], { catalog })[0]).to.match(
        /; the catalog .* has redis\); check the name, or set SVC_CATALOG to the directory holding it$/,
      );
    });

    it('reports an invalid pack file with its own problems', async () => {
      const catalog = await Catalog.open(
        directory({ 'redis.yaml': REDIS.replace('  - name: redis_up\n', '  - name: redis-up\n') }),
      );
      expect(() => compile([packed({ pack: 'redis' })], { catalog })).to.throw(
        /redis\.yaml: metrics\[0\] \(redis-up\): name: expected a name matching/,
      );
    });
  });

  describe('after and packs', () => {
    it('lets after name an expanded metric by its id', () => {
      const plan = compile([
        packed({ id: 'web' }),
        metric({ id: 'alert', after: { ref: 'web.http_request_errors_total', op: '>', value: 1 } }),
      ]);
      expect(plan.scenarios.at(-1)!.clock_group).to.equal('chain_alert');
      // 0.25 a tick at 2/s: above 1 at tick 5 (1.25), 2.5 s after the file start.
      expect(plan.plans.at(-1)!.predictedStart).to.deep.include({ kind: 'after', at: 2500 });
    });

    it('makes every metric of a pack entry with after wait for the trigger', () => {
      const plan = compile([stepEntry('cpu'), packed({ id: 'web', after: { ref: 'cpu', op: '>', value: 2 } })]);
      for (const { entry, predictedStart } of plan.plans.slice(1)) {
        expect(entry.after).to.deep.equal({ ref: 'cpu', op: '>', value: 2 });
        expect(predictedStart).to.deep.include({ kind: 'after', at: 300 });
      }
    });

    it('tells once an after that can never hold for every metric of a pack entry, with how many it stops', () => {
      const metrics = compile([packed({ id: 'web' })]).scenarios.length;
      expect(metrics).to.be.above(1);
      expect(
        compileProblems([stepEntry('cpu'), packed({ id: 'web', after: { ref: 'cpu', op: '<', value: -1 } })]),
      ).to.deep.equal([
        `scenarios[1] (web, ${metrics} of its entries): after: cpu never goes below -1 (step from 0 by 1: moving away from -1), so this entry would never start`,
      ]);
    });

    it('rejects a ref to a metric the pack does not have', () => {
      expect(
        compileProblems([packed({ id: 'web' }), metric({ after: { ref: 'web.nope', op: '>', value: 1 } })]),
      ).to.deep.equal(['scenarios[1] (cpu): after.ref: no entry has id "web.nope"']);
    });

    it('rejects a circular wait through a pack, naming the path', () => {
      expect(
        compileProblems([
          packed({ id: 'web', after: { ref: 'alert', op: '>', value: 1 } }),
          metric({ id: 'alert', after: { ref: 'web.http_requests_total', op: '>', value: 1 } }),
        ]),
      ).to.deep.equal([
        'scenarios[0] (web.http_requests_total): after.ref: circular wait: web.http_requests_total → alert → web.http_requests_total',
      ]);
    });

    it('rejects an expanded id that another entry already has', () => {
      expect(compileProblems([packed({ id: 'web' }), metric({ id: 'web.http_requests_in_flight' })])).to.deep.equal([
        'scenarios[1] (web.http_requests_in_flight): id: duplicate id "web.http_requests_in_flight" (also scenarios[0])',
      ]);
    });
  });
});

describe('compile: pack metrics that share a name', () => {
  const CODES = `version: 2
kind: composable
name: codes
description: one metric, two label sets
metrics:
  - { name: http_requests_total, labels: { status: 200 }, generator: { type: constant, value: 1 } }
  - { name: http_requests_total, labels: { status: 500 }, generator: { type: constant, value: 2 } }
`;

  it('loads them, and gives each expansion its own id: <entry>.<metric>, <entry>.<metric>#2', async () => {
    const catalog = await Catalog.open(directory({ 'codes.yaml': CODES }));
    const plan = compile(
      [packed({ id: 'web', pack: 'codes', overrides: { http_requests_total: { labels: { env: 'prod' } } } })],
      { catalog },
    );
    expect(plan.scenarios.map((e) => [e.id, e.labels])).to.deep.equal([
      ['web.http_requests_total', { status: '200', env: 'prod' }],
      ['web.http_requests_total#2', { status: '500', env: 'prod' }],
    ]);
  });

  it('refuses an after or while naming the metric, which is several series, listing their ids', async () => {
    const catalog = await Catalog.open(directory({ 'codes.yaml': CODES }));
    const watching = (field: 'after' | 'while', ref: string) => [
      packed({ id: 'web', pack: 'codes' }),
      metric({ id: 'page', [field]: { ref, op: '>', value: 1 } }),
    ];
    for (const field of ['after', 'while'] as const) {
      expect(compileProblems(watching(field, 'web.http_requests_total'), { catalog })).to.deep.equal([
        `scenarios[1] (page): ${field}.ref: "web.http_requests_total" names 2 series (web.http_requests_total {status="200"}, web.http_requests_total#2 {status="500"}): give the id of the one to watch`,
      ]);
    }
    // Named by its id, the second series is watched (its value is 2: the condition holds at once).
    expect(compileProblems(watching('after', 'web.http_requests_total#2'), { catalog })).to.deep.equal([
      'scenarios[1] (page): after: web.http_requests_total#2 > 1 already holds at the first tick of web.http_requests_total#2 (value 2): the condition must become true later; to start at a fixed time use phase_offset',
    ]);
  });
});

describe('compile: pack metrics with ids', () => {
  const CPU = `version: 2
kind: composable
name: cpu
description: two modes of one counter
metrics:
  - { name: node_cpu_seconds_total, id: user, labels: { mode: user }, generator: { type: constant, value: 1 } }
  - { name: node_cpu_seconds_total, id: idle, labels: { mode: idle }, generator: { type: constant, value: 2 } }
  - { name: node_load1 }
`;
  const cpuPlan = async (extra: Record<string, unknown>, more: Record<string, unknown>[] = []) => {
    const catalog = await Catalog.open(directory({ 'cpu.yaml': CPU }));
    return { entries: [packed({ id: 'host', pack: 'cpu', ...extra }), ...more], catalog };
  };

  it('expand to <entry>.<metric>.<id>; overrides.<metric>.<id> changes that one, overrides.<metric> all of that name', async () => {
    const { entries, catalog } = await cpuPlan({
      overrides: {
        node_cpu_seconds_total: { labels: { env: 'prod' } },
        'node_cpu_seconds_total.idle': { generator: { type: 'constant', value: 9 } },
      },
    });
    // Both keys name the idle metric: one is refused, naming the other.
    expect(compileProblems(entries, { catalog })).to.deep.equal([
      'scenarios[0] (host): overrides["node_cpu_seconds_total.idle"]: overrides.node_cpu_seconds_total changes this metric too: keep one of the two (overrides.node_cpu_seconds_total changes every metric named node_cpu_seconds_total)',
    ]);
    const one = await cpuPlan({
      overrides: { 'node_cpu_seconds_total.idle': { generator: { type: 'constant', value: 9 } } },
    });
    expect(compile(one.entries, { catalog: one.catalog }).scenarios.map((e) => [e.id, e.generator])).to.deep.equal([
      ['host.node_cpu_seconds_total.user', { type: 'constant', value: 1 }],
      ['host.node_cpu_seconds_total.idle', { type: 'constant', value: 9 }],
      ['host.node_load1', { type: 'constant', value: 0 }],
    ]);
  });

  it('name a mistyped override key and the close one', async () => {
    const { entries, catalog } = await cpuPlan({ overrides: { 'node_cpu_seconds_total.idel': {} } });
    expect(compileProblems(entries, { catalog })).to.deep.equal([
      'scenarios[0] (host): overrides["node_cpu_seconds_total.idel"]: the pack "cpu" has no metric "node_cpu_seconds_total.idel" (did you mean node_cpu_seconds_total.idle?) (its metrics: node_cpu_seconds_total, node_cpu_seconds_total.user, node_cpu_seconds_total.idle, node_load1)',
    ]);
  });

  it('are watched by their id; a ref to the metric name lists them', async () => {
    const watching = (ref: string) => cpuPlan({}, [metric({ id: 'page', while: { ref, op: '>', value: 1 } })]);
    const named = await watching('host.node_cpu_seconds_total');
    expect(compileProblems(named.entries, { catalog: named.catalog })).to.deep.equal([
      'scenarios[1] (page): while.ref: "host.node_cpu_seconds_total" names 2 series (host.node_cpu_seconds_total.user {mode="user"}, host.node_cpu_seconds_total.idle {mode="idle"}): give the id of the one to watch',
    ]);
    const one = await watching('host.node_cpu_seconds_total.idle');
    expect(compile(one.entries, { catalog: one.catalog }).scenarios[3]!.while!.ref).to.equal(
      'host.node_cpu_seconds_total.idle',
    );
  });
});

describe('compile: the entry limit holds once packs are expanded', () => {
  it('refuses a file whose packs expand it past 500 entries, naming the entry that crosses the limit', () => {
    // http_server has 5 metrics: 100 pack entries are 500 entries, one more crosses the limit.
    const entries = Array.from({ length: 101 }, (_, i) => packed({ id: `web${i}` }));
    expect(compile(entries.slice(0, 100)).scenarios).to.have.length(500);
    expect(compileProblems(entries)).to.deep.equal([
      'scenarios[100] (web100): pack: the pack "http_server" brings this file to more than 500 entries once packs are expanded; the limit is 500',
    ]);
  });
});
