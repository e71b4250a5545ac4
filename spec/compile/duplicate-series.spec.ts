import { expect } from 'chai';
import { loadScenario } from '../../lib/config/index.js';
import { compileScenario } from '../../lib/compile/index.js';
import { scenarioFromDocument } from '../../lib/config/load.js';
import { duplicateSeriesWarnings, fileWriters } from '../../lib/compile/duplicate-series.js';
import { Catalog } from '../../lib/catalog/index.js';
import { SplitMix64 } from '../../lib/random.js';
import { prepareAutostart } from '../../lib/server/autostart.js';
import { scenarioDir, svc } from '../support/cli.js';
import { testServer } from '../support/server.js';
import { directory } from '../support/directories.js';

/** A runnable file of `entries` (YAML flow mappings), each at rate 1 for 10s into one file unless it says. */
const file = (...entries: string[]) => `version: 2
kind: runnable
defaults: {rate: 1, duration: 10s, sink: {type: file, path: out.prom}}
scenarios:
${entries.map((entry) => `  - ${entry}`).join('\n')}
`;

/** A metrics entry `id` of `cpu` with `fields` added (`labels: {host: a}`). */
const cpu = (id: string, fields = 'labels: {host: a}') =>
  `{id: ${id}, signal_type: metrics, name: cpu, generator: {type: constant, value: 1}, ${fields}}`;

/** The duplicate-series warnings of a file, as `<entry>: <the series and destination>` (the advice cut off). */
const clashes = (text: string, format: 'yaml' | 'json' = 'yaml') => {
  const plan = compileScenario(loadScenario(text, { origin: 't.yaml', format }), { origin: 't.yaml' });
  return duplicateSeriesWarnings(fileWriters(plan, Date.parse('2026-01-01T00:00:00Z'))).map(
    ({ name, warning }) => `${name}: ${warning.slice(0, warning.indexOf(', at times'))}`,
  );
};

const ADVICE =
  ', at times that overlap: a store keeps one sample per series and timestamp (Prometheus drops the others as duplicates or out of order) and dashboards show the two mixed; tell them apart with a label (labels: {source: b}) or another name, or give them times that do not overlap (phase_offset, duration)';

describe('duplicateSeriesWarnings: two entries writing one series into one destination', () => {
  it('warns of the later entry, naming the earlier, the series and the destination', () => {
    expect(clashes(file(cpu('a'), cpu('b'), cpu('c')))).to.deep.equal([
      'b: writes the same series as a: cpu{host="a"} into file out.prom',
      'c: writes the same series as a: cpu{host="a"} into file out.prom',
    ]);
  });

  it('does not warn of entries told apart by a label value, a label only one has, a name or the destination', () => {
    expect(clashes(file(cpu('a'), cpu('b', 'labels: {host: b}')))).to.deep.equal([]);
    expect(clashes(file(cpu('a'), cpu('b', 'labels: {host: a, phase: two}')))).to.deep.equal([]);
    expect(clashes(file(cpu('a'), cpu('b', 'sink: {type: file, path: other.prom}')))).to.deep.equal([]);
    expect(
      clashes(file(cpu('a'), `{id: b, signal_type: metrics, name: mem, generator: {type: constant, value: 1}}`)),
    ).to.deep.equal([]);
  });

  it('counts a label of an empty value as no label, as every encoder and store does', () => {
    expect(clashes(file(cpu('a', 'labels: {host: a, zone: ""}'), cpu('b')))).to.deep.equal([
      'b: writes the same series as a: cpu{host="a"} into file out.prom',
    ]);
    const zones = (values: string) => `labels: {host: a, zone: z}, dynamic_labels: [{key: zone, values: [${values}]}]`;
    expect(clashes(file(cpu('a', zones('"", x')), cpu('b')))).to.deep.equal([
      'b: writes the same series as a: cpu{host="a"} into file out.prom',
    ]);
    expect(clashes(file(cpu('a', zones('""')), cpu('b')))).to.deep.equal([
      'b: writes the same series as a: cpu{host="a"} into file out.prom',
    ]);
    expect(clashes(file(cpu('a', zones('x')), cpu('b')))).to.deep.equal([]);
  });

  it('compares the destination of a sink kind: one remote write URL, one Kafka topic', () => {
    const rw = (url: string) => `sink: {type: remote_write, url: "${url}"}, encoder: {type: remote_write}`;
    expect(
      clashes(file(cpu('a', rw('http://prom:9090/api/v1/write')), cpu('b', rw('http://prom:9090/api/v1/write')))),
    ).to.deep.equal(['b: writes the same series as a: cpu into remote_write http://prom:9090/api/v1/write']);
    const tenant = (id: string) =>
      `sink: {type: remote_write, url: "http://mimir/api/v1/push", headers: {X-Scope-OrgID: ${id}}}, encoder: {type: remote_write}`;
    expect(clashes(file(cpu('a', tenant('one')), cpu('b', tenant('two'))))).to.deep.equal([]);
    expect(clashes(file(cpu('a', tenant('one')), cpu('b', tenant('one'))))).to.deep.equal([
      'b: writes the same series as a: cpu into remote_write http://mimir/api/v1/push (tenant one)',
    ]);
    const kafka = (topic: string) => `sink: {type: broker, brokers: "k:9092", topic: ${topic}}`;
    expect(clashes(file(cpu('a', kafka('m')), cpu('b', kafka('n'))))).to.deep.equal([]);
    expect(clashes(file(cpu('a', kafka('m')), cpu('b', kafka('m'))))).to.deep.equal([
      'b: writes the same series as a: cpu into broker k:9092 topic m',
    ]);
  });

  describe('time', () => {
    it('does not warn of two phases that follow each other (phase_offset at the first one’s end)', () => {
      expect(clashes(file(cpu('a'), cpu('b', 'labels: {host: a}, phase_offset: 10s')))).to.deep.equal([]);
      expect(clashes(file(cpu('a'), cpu('b', 'labels: {host: a}, phase_offset: 9s')))).to.have.length(1);
      // Without a duration the first one writes for ever.
      const forever = file(cpu('a'), cpu('b', 'labels: {host: a}, phase_offset: 1h')).replace('duration: 10s, ', '');
      expect(clashes(forever)).to.have.length(1);
    });

    it('reads a computed after crossing: warns only when the second phase starts before the first ends', () => {
      const step = `{id: a, signal_type: metrics, name: cpu, labels: {host: a}, generator: {type: step, start: 0, step_size: 1}}`;
      // Tick 6 (6s) crosses 5: plus 5s, at 11s, after a's end at 10s; plus 1s, at 7s, before it.
      const after = (delay: string) =>
        cpu('b', `labels: {host: a}, after: {ref: a, op: '>', value: 5, delay: ${delay}}`);
      expect(clashes(file(step, after('5s')))).to.deep.equal([]);
      expect(clashes(file(step, after('1s')))).to.deep.equal([
        'b: writes the same series as a: cpu{host="a"} into file out.prom',
      ]);
    });

    it('takes an after decided at run time (jitter) as starting as soon as it can', () => {
      const jittered = `{id: a, signal_type: metrics, name: cpu, labels: {host: a}, jitter: 1, generator: {type: step, start: 0, step_size: 1}}`;
      const after = (delay: string) =>
        cpu('b', `labels: {host: a}, after: {ref: a, op: '>', value: 5, delay: ${delay}}`);
      expect(clashes(file(jittered, after('10s')))).to.deep.equal([]);
      expect(clashes(file(jittered, after('5s')))).to.have.length(1);
    });

    it('does not warn of two entries gated by while on conditions that never hold together', () => {
      const load = `{id: load, signal_type: metrics, name: load, generator: {type: sine, amplitude: 50, period_secs: 60, offset: 50}}`;
      const gated = (id: string, gate: string) => cpu(id, `labels: {host: a}, while: {ref: load, ${gate}}`);
      const turns = (healthy: string, degraded: string) =>
        clashes(
          file(load, gated('healthy', `op: '<', value: ${healthy}`), gated('degraded', `op: '>', value: ${degraded}`)),
        );
      expect(turns('50', '50')).to.deep.equal([]);
      expect(turns('50, delay: {close: 2s, open: 3s}', '50, delay: {close: 3s, open: 2s}')).to.deep.equal([]);
      // Between 40 and 50 both are open; the healthy one stays open 10s after the load rose.
      expect(turns('50', '40')).to.have.length(1);
      expect(turns('50, delay: {close: 10s}', '50')).to.have.length(1);
      // The last sample snap_to writes after the gate closed.
      expect(turns('50, snap_to: 0', '50')).to.have.length(1);
      // Gated alike, or only one of them.
      expect(clashes(file(load, gated('a', `op: '<', value: 50`), gated('b', `op: '<', value: 50`)))).to.have.length(1);
      expect(clashes(file(load, gated('a', `op: '<', value: 50`), cpu('b')))).to.have.length(1);
    });

    it('compares timestamps: an absolute start_time stamps an ungrouped entry from it whatever its phase_offset', () => {
      const at = (time: string, more = '') => `labels: {host: a}, start_time: "${time}"${more}`;
      expect(
        clashes(
          file(cpu('a', at('2024-01-01T00:00:00Z')), cpu('b', at('2024-01-01T00:00:00Z', ', phase_offset: 10s'))),
        ),
      ).to.have.length(1);
      expect(clashes(file(cpu('a', at('2024-01-01T00:00:00Z')), cpu('b', at('2024-01-01T00:00:10Z'))))).to.deep.equal(
        [],
      );
      // In a clock group the phase offset moves the timestamps too.
      const grouped = ', clock_group: g';
      expect(
        clashes(
          file(
            cpu('a', at('2024-01-01T00:00:00Z', grouped)),
            cpu('b', at('2024-01-01T00:00:00Z', `${grouped}, phase_offset: 10s`)),
          ),
        ),
      ).to.deep.equal([]);
      // A backfill of yesterday and a live run of now.
      expect(clashes(file(cpu('a', 'labels: {host: a}, start_time: "-1d"'), cpu('b')))).to.deep.equal([]);
    });
  });

  describe('labels', () => {
    it('finds a label set a rotating label and a static one share, or none', () => {
      const pods = 'dynamic_labels: [{key: pod, cardinality: 10}]';
      expect(clashes(file(cpu('a', pods), cpu('b', 'labels: {pod: pod_3}')))).to.deep.equal([
        'b: writes the same series as a: cpu{pod="pod_3"} into file out.prom',
      ]);
      expect(clashes(file(cpu('a', pods), cpu('b', 'labels: {pod: pod_10}')))).to.deep.equal([]);
      expect(clashes(file(cpu('a', pods), cpu('b', 'labels: {pod: pod_03}')))).to.deep.equal([]);
    });

    it('finds the sets two counter ranges share, by their prefixes', () => {
      const pods = (prefix: string, n: number) => `dynamic_labels: [{key: pod, prefix: ${prefix}, cardinality: ${n}}]`;
      expect(clashes(file(cpu('a', pods('p', 20)), cpu('b', pods('p1', 5))))).to.deep.equal([
        'b: writes the same series as a: cpu{pod="p10"} into file out.prom',
      ]);
      expect(clashes(file(cpu('a', pods('p', 10)), cpu('b', pods('p1', 5))))).to.deep.equal([]);
      expect(clashes(file(cpu('a', pods('p', 10)), cpu('b', pods('q', 5))))).to.deep.equal([]);
      expect(
        clashes(file(cpu('a', `dynamic_labels: [{key: pod, values: [x, y]}]`), cpu('b', pods('y', 5)))),
      ).to.deep.equal([]);
      expect(
        clashes(file(cpu('a', `dynamic_labels: [{key: pod, values: [x, y3]}]`), cpu('b', pods('y', 5)))),
      ).to.deep.equal(['b: writes the same series as a: cpu{pod="y3"} into file out.prom']);
    });

    it('counts a cardinality spike as absent outside its window', () => {
      const spike = (label: string) =>
        `labels: {host: a}, cardinality_spikes: [{label: ${label}, every: 1m, for: 10s, cardinality: 5}]`;
      expect(clashes(file(cpu('a'), cpu('b', spike('user'))))).to.deep.equal([
        'b: writes the same series as a: cpu{host="a"} into file out.prom',
      ]);
      // Outside its window the spike's entry writes host="a", which the other never does.
      expect(clashes(file(cpu('a', 'labels: {host: a, user: x}'), cpu('b', spike('user'))))).to.deep.equal([]);
      expect(clashes(file(cpu('a', 'labels: {host: a, user: user_4}'), cpu('b', spike('user'))))).to.deep.equal([
        'b: writes the same series as a: cpu{host="a",user="user_4"} into file out.prom',
      ]);
    });

    it('knows the values of a random spike: its prefix and the hex of its seed, not anything after the prefix', () => {
      const random = (seed = 0) =>
        `labels: {host: a}, cardinality_spikes: [{label: user, every: 1m, for: 10s, cardinality: 5, strategy: random, seed: ${seed}}]`;
      const users = 'labels: {host: a}, dynamic_labels: [{key: user, prefix: user_, cardinality: 10}]';
      expect(clashes(file(cpu('a', random()), cpu('b', users)))).to.deep.equal([]);
      const value = `user_${new SplitMix64(0).hex(4)}`;
      expect(clashes(file(cpu('a', random()), cpu('b', `labels: {host: a, user: ${value}}`)))).to.deep.equal([
        `b: writes the same series as a: cpu{host="a",user="${value}"} into file out.prom`,
      ]);
      expect(
        clashes(file(cpu('a', random()), cpu('b', `labels: {host: a, user: user_0123456789abcdef}`))),
      ).to.deep.equal([]);
      expect(clashes(file(cpu('a', random()), cpu('b', random())))).to.have.length(1);
      // Outside their windows they write user x and y; inside, the values of their seeds.
      const seeded = (user: string, seed: number) => random(seed).replace('{host: a}', `{host: a, user: ${user}}`);
      expect(clashes(file(cpu('a', seeded('x', 0)), cpu('b', seeded('y', 7))))).to.deep.equal([]);
      expect(clashes(file(cpu('a', seeded('x', 0)), cpu('b', seeded('y', 0))))).to.have.length(1);
    });

    it('stays quick at cardinality 1,000,000 and with 500 entries of one name', () => {
      const million = 'dynamic_labels: [{key: pod, cardinality: 1000000}, {key: zone, values: [a, b, c]}]';
      const started = performance.now();
      expect(clashes(file(cpu('a', million), cpu('b', million)))).to.deep.equal([
        'b: writes the same series as a: cpu{pod="pod_0",zone="a"} into file out.prom',
      ]);
      const many = Array.from({ length: 500 }, (_, i) => ({
        id: `c${i}`,
        signal_type: 'metrics',
        name: 'cpu',
        rate: 1,
        labels: { host: `h${i}` },
        generator: { type: 'constant', value: 1 },
      }));
      expect(clashes(JSON.stringify({ version: 2, kind: 'runnable', scenarios: many }), 'json')).to.deep.equal([]);
      expect(performance.now() - started).to.be.below(5000);
    });

    it('stays quick when lists of 50,000 values meet counter ranges: a list is indexed once, not walked per pair', () => {
      const values = Array.from({ length: 50_000 }, (_, i) => `v${i}`);
      const entry = (id: string, more: object) => ({
        id,
        signal_type: 'metrics',
        name: 'cpu',
        rate: 1,
        generator: { type: 'constant', value: 1 },
        ...more,
      });
      const scenarios = [
        ...Array.from({ length: 50 }, (_, i) =>
          entry(`r${i}`, { dynamic_labels: [{ key: 'pod', prefix: `w${i}_`, cardinality: 10 }] }),
        ),
        // Each its own copy of the list (entries given one list by defaults share it, and it is indexed once).
        ...Array.from({ length: 50 }, (_, i) =>
          entry(`l${i}`, { dynamic_labels: [{ key: 'pod', values: [...values] }] }),
        ),
      ];
      // As a parsed document: its text would be over a POST's 1 MiB.
      const document = { version: 2, kind: 'runnable', scenarios };
      const plan = compileScenario(scenarioFromDocument(document, { origin: 't.json' }), { origin: 't.json' });
      const warnings = duplicateSeriesWarnings(fileWriters(plan, Date.now()));
      // The work is counted, not timed: each entry's list indexed once, the budget
      // covers more than a thousand pairs; a list walked for each pair of it and a range would cover a handful.
      const pairs = warnings
        .flatMap(({ warning }) => /stopped here, after ([\d,]+) pairs/.exec(warning)?.[1] ?? [])
        .map((counted) => Number(counted.replaceAll(',', '')));
      expect(pairs).to.have.length(1);
      expect(pairs[0]).to.be.above(1000);
      expect(warnings[0]).to.deep.include({ name: 'l1' });
      expect(warnings[0]!.warning).to.include('writes the same series as l0: cpu{pod="v0"}');
    });
  });

  it('compares the file’s entries with each other before the running ones, and says where a budget ran out', () => {
    const plan = compileScenario(
      loadScenario(file(cpu('a', 'labels: {pod: x}'), cpu('b', 'labels: {pod: x}')), { origin: 't.yaml' }),
      { origin: 't.yaml' },
    );
    const posted = fileWriters(plan, Date.parse('2026-01-01T00:00:00Z'));
    // More running writers of `cpu`, each its own pods, than one budget compares.
    const running = Array.from({ length: 150_000 }, (_, i) => ({
      ...posted[0]!,
      name: `r${i} (scenario s)`,
      labels: new Map([['pod', { absent: false, parts: [{ prefix: `s${i}_`, count: 10 }] }]]),
    }));
    const warnings = duplicateSeriesWarnings(posted, { running });
    expect(warnings.map(({ name }) => name)).to.deep.equal(['b', 'a']);
    expect(warnings[0]!.warning).to.include('writes the same series as a: cpu{pod="x"} into file out.prom');
    expect(warnings[1]!.warning).to.equal(
      'the check for entries that write one series stopped here, after 83,333 pairs: this entry and those after it were not compared with the entries running, and clashes among them are not warned of',
    );
  });

  it('still compares the entry a budget stopped at with the running ones: a running copy of it is warned of', () => {
    // More pairs of `cpu` entries, each its own pods, than one budget compares.
    const scenarios = Array.from({ length: 500 }, (_, i) => ({
      id: `e${i}`,
      signal_type: 'metrics',
      name: 'cpu',
      rate: 1,
      generator: { type: 'constant', value: 1 },
      dynamic_labels: [{ key: 'pod', values: [`a${i}`, `b${i}`] }],
    }));
    const text = JSON.stringify({
      version: 2,
      kind: 'runnable',
      defaults: { sink: { type: 'file', path: 'out.prom' } },
      scenarios,
    });
    const plan = compileScenario(loadScenario(text, { origin: 't.json', format: 'json' }), { origin: 't.json' });
    const posted = fileWriters(plan, Date.parse('2026-01-01T00:00:00Z'));
    // The lists are indexed (and charged) at the first check only: where a check stops, from the second on.
    duplicateSeriesWarnings(posted);
    const [stopped] = duplicateSeriesWarnings(posted);
    expect(stopped!.warning).to.include('the check for entries that write one series stopped here');
    const copy = posted.find(({ name }) => name === stopped!.name)!;
    const warnings = duplicateSeriesWarnings(posted, { running: [{ ...copy, name: `${copy.name} (scenario s)` }] });
    const clash = warnings.find(
      ({ name, warning }) => name === copy.name && warning.includes('writes the same series'),
    );
    expect(clash?.warning).to.include(`writes the same series as ${copy.name} (scenario s)`);
  });

  it('keeps a random spike’s values for one check only, not in the running entry’s writer for every POST after', () => {
    const plan = compileScenario(loadScenario(file(cpu('a')), { origin: 't.yaml' }), { origin: 't.yaml' });
    const [posted] = fileWriters(plan, Date.parse('2026-01-01T00:00:00Z'));
    // 200,000 random users running, made and indexed, spend more than a budget; without them, 1,000 posted do not.
    const spiking = (name: string, seed: number, count: number) => ({
      ...posted!,
      name,
      labels: new Map([['user', { absent: false, parts: [{ prefix: 'user_', count, seed }] }]]),
    });
    const running = [spiking('r (scenario s)', 1, 200_000)];
    const check = () => duplicateSeriesWarnings([spiking('a', 2, 1_000)], { running }).map(({ warning }) => warning);
    const first = check();
    expect(first).to.have.length(1);
    expect(first[0]).to.include('the check for entries that write one series stopped here');
    expect(check()).to.deep.equal(first);
  });

  describe('signals', () => {
    const histogram = (id: string, more = '') =>
      `{id: ${id}, signal_type: histogram, name: lat, distribution: {type: exponential, rate: 1}${more}}`;

    it('warns of histograms and summaries of one name, and of a gauge named as one of their samples', () => {
      expect(clashes(file(histogram('a'), histogram('b')))).to.deep.equal([
        'b: writes the same series as a: lat into file out.prom',
      ]);
      const summary = `{id: s, signal_type: summary, name: lat, distribution: {type: exponential, rate: 1}}`;
      // Their _sum and _count.
      expect(clashes(file(histogram('a'), summary))).to.deep.equal([
        's: writes the same series as a: lat into file out.prom',
      ]);
      const gauge = `{id: g, signal_type: metrics, name: lat_count, generator: {type: constant, value: 1}}`;
      expect(clashes(file(histogram('a'), gauge))).to.deep.equal([
        'g: writes the same series as a: lat_count into file out.prom',
      ]);
      expect(
        clashes(file(histogram('a', ', labels: {route: x}'), histogram('b', ', labels: {route: y}'))),
      ).to.deep.equal([]);
      // A summary's quantile samples carry `quantile`, which a gauge of its name lacks: lat{quantile="0.5"} is not lat.
      const latGauge = `{id: g, signal_type: metrics, name: lat, generator: {type: constant, value: 1}}`;
      expect(clashes(file(summary, latGauge))).to.deep.equal([]);
      // A native histogram's `lat` has no `quantile`, but its `_sum` is the summary's.
      const rw = ', encoder: {type: remote_write}, sink: {type: remote_write, url: "http://prom/w"}';
      expect(clashes(file(summary.replace('}}', `}${rw}}`), histogram('n', `, native: {}${rw}`)))).to.deep.equal([
        'n: writes the same series as s: lat into remote_write http://prom/w',
      ]);
      expect(
        clashes(file(summary, latGauge.replace('name: lat,', 'name: lat, labels: {quantile: "0.5"},'))),
      ).to.deep.equal(['g: writes the same series as s: lat{quantile="0.5"} into file out.prom']);
    });

    it('names a counter as its encoder does: OpenMetrics `_total` and `_created`, the others the name', () => {
      const counter = (encoder: string) =>
        `{id: a, signal_type: metrics, name: req, encoder: {type: ${encoder}}, generator: {type: step, start: 0, step_size: 1}}`;
      const gauge = (name: string) =>
        `{id: b, signal_type: metrics, name: ${name}, generator: {type: constant, value: 1}}`;
      expect(clashes(file(counter('openmetrics'), gauge('req_total')))).to.deep.equal([
        'b: writes the same series as a: req_total into file out.prom',
      ]);
      expect(clashes(file(counter('openmetrics'), gauge('req_created')))).to.deep.equal([
        'b: writes the same series as a: req_created into file out.prom',
      ]);
      expect(clashes(file(counter('openmetrics'), gauge('req')))).to.deep.equal([]);
      // The text format and remote write write the counter `req` as `req`.
      expect(clashes(file(counter('metrics_text'), gauge('req_total')))).to.deep.equal([]);
      expect(clashes(file(counter('metrics_text'), gauge('req')))).to.deep.equal([
        'b: writes the same series as a: req into file out.prom',
      ]);
      const rw = (fields: string) =>
        `{${fields}, sink: {type: remote_write, url: "http://prom/w"}, encoder: {type: remote_write}}`;
      const rwCounter = rw('id: a, signal_type: metrics, name: req, generator: {type: step, start: 0, step_size: 1}');
      const rwGauge = rw('id: b, signal_type: metrics, name: req_total, generator: {type: constant, value: 1}');
      expect(clashes(file(rwCounter, rwGauge))).to.deep.equal([]);
    });

    it('does not look at metrics into a log store: it keeps both lines of one stream and timestamp', () => {
      const loki = `labels: {job: a}, sink: {type: logstore, url: "http://loki:3100"}`;
      expect(clashes(file(cpu('x', loki), cpu('y', loki)))).to.deep.equal([]);
    });

    it('does not look at logs and traces: a stream keeps every record, a trace store every span', () => {
      const logs = (id: string) =>
        `{id: ${id}, signal_type: logs, name: app, labels: {job: a}, log_generator: {type: template, templates: [{message: hi}]}}`;
      expect(clashes(file(logs('a'), logs('b')))).to.deep.equal([]);
      const traces = (id: string) =>
        `{id: ${id}, signal_type: traces, name: checkout, trace_generator: {services: {web: {}}, root: {service: web, operation: GET /, kind: server, duration: 10ms}}}`;
      expect(clashes(file(traces('a'), traces('b')))).to.deep.equal([]);
    });
  });

  it('svc prints it at --dry-run, and still validates', async () => {
    const { scenario } = scenarioDir('svc-dupes-');
    const result = await svc(['run', scenario('t.yaml', file(cpu('a'), cpu('b'))), '--dry-run']);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include(
      `[warn] b: writes the same series as a: cpu{host="a"} into file out.prom${ADVICE}\n`,
    );
    expect(result.stderr).to.include('Validation: OK (2 scenarios)');
  });

  describe('svc-server', () => {
    const post = (server: ReturnType<typeof testServer>, payload: string) =>
      server.request({ method: 'POST', url: '/scenarios', headers: { 'content-type': 'text/yaml' }, payload });
    const stdout = (...entries: string[]) =>
      file(...entries).replace('sink: {type: file, path: out.prom}', 'sink: {type: stdout}');

    it('answers it among the warnings of POST /scenarios: every entry also writes the aggregate scrape', async () => {
      const server = testServer();
      const res = await post(
        server,
        stdout(cpu('a'), cpu('b', 'labels: {host: a}, sink: {type: udp, address: "10.0.0.1:9"}')),
      );
      expect(res.statusCode).to.equal(201);
      expect(res.json().warnings).to.deep.equal([
        `b: writes the same series as a: cpu{host="a"} into svc-server GET /scenarios/metrics${ADVICE}`,
      ]);
    });

    it('compares each --autostart file with the files named before it', async () => {
      const catalog = await Catalog.open(directory({ 'web.yaml': stdout(cpu('a')), 'api.yaml': stdout(cpu('b')) }));
      const [web, api] = await prepareAutostart(['web', 'api'], catalog, undefined);
      expect(web!.warnings).to.deep.equal([]);
      expect(api!.warnings).to.deep.equal([
        { entry: 'b', text: `b: writes the same series as a (@web): cpu{host="a"} into stdout${ADVICE}` },
      ]);
    });

    it('names the --autostart files before it, not entries running, where a budget ran out comparing with them', async () => {
      // 400 entries of cpu each, each its own pods: more pairs across the two files than a budget compares.
      const many = (name: string) =>
        Array.from({ length: 400 }, (_, i) =>
          cpu(`${name}${i}`, `dynamic_labels: [{key: pod, prefix: ${name}${i}_, cardinality: 2}]`),
        );
      const catalog = await Catalog.open(
        directory({ 'web.yaml': stdout(...many('w')), 'api.yaml': stdout(...many('a')) }),
      );
      const [, api] = await prepareAutostart(['web', 'api'], catalog, undefined);
      expect(api!.warnings).to.have.length(1);
      expect(api!.warnings[0]!.text).to.match(
        /^a\d+: the check for entries that write one series stopped here, after [\d,]+ pairs: this entry and those after it were not compared with the --autostart scenarios named before this one, /,
      );
    });

    it('judges the aggregate scrape by run time: a backfill of yesterday and a live entry show there together', async () => {
      const res = await post(testServer(), stdout(cpu('a', 'labels: {host: a}, start_time: "-1d"'), cpu('b')));
      expect(res.json().warnings).to.deep.equal([
        `b: writes the same series as a: cpu{host="a"} into svc-server GET /scenarios/metrics${ADVICE}`,
      ]);
      // One after the other, they do not.
      const turns = stdout(cpu('a'), cpu('b', 'labels: {host: a}, phase_offset: 10s'));
      expect((await post(testServer(), turns)).json().warnings).to.equal(undefined);
    });

    it('compares a posted file with the scenarios running, not with those stopped', async () => {
      const server = testServer();
      const first = await post(server, stdout(cpu('a')));
      const id = first.json().id as string;
      expect(first.json().warnings).to.equal(undefined);
      const second = await post(server, stdout(cpu('b')));
      expect(second.json().warnings).to.deep.equal([
        `b: writes the same series as a (scenario ${id}): cpu{host="a"} into stdout${ADVICE}`,
      ]);
      expect((await post(server, stdout(cpu('c', 'labels: {host: c}')))).json().warnings).to.equal(undefined);
      // With a and b deleted, a third of their series clashes with none.
      for (const scenario of [id, second.json().id as string])
        expect((await server.request({ method: 'DELETE', url: `/scenarios/${scenario}` })).statusCode).to.equal(200);
      expect((await post(server, stdout(cpu('d')))).json().warnings).to.equal(undefined);
    });
  });
});
