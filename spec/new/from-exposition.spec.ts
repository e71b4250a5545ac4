import { expect } from 'chai';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { looksLikeExposition, parseExposition } from '../../lib/new/exposition.js';
import { MAX_LISTED_VALUES, MAX_PROFILED_FAMILIES, scenarioFromExposition } from '../../lib/new/from-exposition.js';
import { readExposition } from '../../lib/new/read-exposition.js';
import { SCHEMA_MODELINE } from '../../lib/new/modeline.js';
import { loadScenario } from '../../lib/config/load.js';
import { LOCAL_YAML_BUDGET } from '../../lib/language/limits.js';
import type { Entry } from '../../lib/config/types.js';
import { lines, scenarioDir, svc } from '../support/cli.js';
import { testServer } from '../support/server.js';
import { startPrometheus } from '../support/backends/prometheus.js';

const readAt = new Date('2026-01-01T00:00:00Z');
const origin = 'http://admin:***@127.0.0.1/metrics';

/** The entries of the scenario reproducing `text`, loaded as svc run loads them. */
function profiled(text: string): Entry[] {
  return [
    ...loadScenario(scenarioFromExposition(text, { origin, readAt }), {
      origin: 'profile',
      yamlBudget: LOCAL_YAML_BUDGET,
    }).scenarios,
  ];
}

/** The values a rotating label takes, and how many distinct ones. */
function rotating(entry: Entry, key: string): { values: string[]; distinct: number } {
  const label = entry.dynamic_labels.find((l) => l.key === key);
  expect(label, `${entry.name}: no rotating label ${key}`).to.not.equal(undefined);
  const values =
    label!.form === 'list'
      ? [...label!.values]
      : Array.from({ length: label!.cardinality }, (_, i) => `${label!.prefix}${i}`);
  return { values, distinct: new Set(values).size };
}

/** Serves `listener` on a free 127.0.0.1 port. */
async function serve(listener: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('looksLikeExposition: a saved scrape told from a CSV', () => {
  it('takes a first sample line of the text format or OpenMetrics, and no CSV header', () => {
    const texts = [
      'up 1\n',
      'up{a="1",b="2"} 1 1700000000\n',
      'x_bucket{le="0.1"} 10 # {trace_id="a",span_id="b"} 0.05 1700000000.123\n',
      '# TYPE up gauge\nup 1\n',
      'time,value\n1700000000,1\n',
      // A name and a value with no blank between them is no sample line.
      'up1\n',
      'value\n1\n',
    ];
    expect(texts.map(looksLikeExposition)).to.deep.equal([true, true, true, true, false, false, false]);
  });
});

describe('parseExposition: the Prometheus text format', () => {
  it('reads HELP and TYPE, escaped help and label values, timestamps, special values, and groups suffixed samples in their family', () => {
    const { families, skipped } = parseExposition(
      [
        '# HELP http_requests_total The total number of HTTP requests.\\nSecond line, \\\\ kept.',
        '# TYPE http_requests_total counter',
        'http_requests_total{method="post",code="200"} 1027 1395066363000',
        'http_requests_total{ method = "get" , code="400", } 3',
        '# A plain comment',
        '# TYPE latency histogram',
        'latency_bucket{le="0.5"} 1',
        'latency_bucket{le="+Inf"} 2',
        'latency_sum 0.8',
        'latency_count 2',
        'msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9',
        '\tspaced_out   -Inf  ',
        'nan_gauge NaN',
      ].join('\n'),
    );
    expect(skipped).to.equal(0);
    expect(families.map((f) => [f.name, f.type, f.samples.length])).to.deep.equal([
      ['http_requests_total', 'counter', 2],
      ['latency', 'histogram', 4],
      ['msdos_file_access_time_seconds', 'untyped', 1],
      ['spaced_out', 'untyped', 1],
      ['nan_gauge', 'untyped', 1],
    ]);
    expect(families[0]!.help).to.equal('The total number of HTTP requests.\nSecond line, \\ kept.');
    expect(families[0]!.samples[1]).to.deep.equal({
      name: 'http_requests_total',
      labels: { method: 'get', code: '400' },
      value: 3,
    });
    expect(families[2]!.samples[0]!.labels).to.deep.equal({
      path: 'C:\\DIR\\FILE.TXT',
      error: 'Cannot find file:\n"FILE.TXT"',
    });
    expect(families[3]!.samples[0]!.value).to.equal(-Infinity);
    expect(families[4]!.samples[0]!.value).to.be.NaN;
  });

  it("groups OpenMetrics' counter samples (_total, _created) under their family, and reads unknown as untyped", () => {
    const { families } = parseExposition(
      '# TYPE jobs counter\njobs_total 3\njobs_created 1.7e9\n# TYPE thing unknown\nthing 1\n# EOF\n',
    );
    expect(families.map((f) => [f.name, f.type, f.samples.map((s) => s.name)])).to.deep.equal([
      ['jobs', 'counter', ['jobs_total', 'jobs_created']],
      ['thing', 'untyped', ['thing']],
    ]);
  });

  it('reads OpenMetrics samples with exemplars and timestamps in seconds, and info and stateset families as gauges', () => {
    const { families, skipped, firstSkipped } = parseExposition(
      [
        '# TYPE rpc histogram',
        '# UNIT rpc seconds',
        'rpc_bucket{le="0.1"} 10 # {trace_id="abc123"} 0.05 1700000000.123',
        'rpc_bucket{le="+Inf"} 25 1700000100.5 # {trace_id="d#f"} 0.3',
        'rpc_count 25',
        'rpc_sum 5.5',
        '# TYPE temp gauge',
        'temp{room="#1"} 21.5 1700000100.250',
        '# HELP build Build info',
        '# TYPE build info',
        'build_info{version="1.2.3"} 1',
        '# TYPE state stateset',
        'state{state="running"} 1',
        'state{state="stopped"} 0',
        '# EOF',
      ].join('\n'),
    );
    expect({ skipped, firstSkipped }).to.deep.equal({ skipped: 0, firstSkipped: undefined });
    expect(families.map((f) => [f.name, f.type, f.help, f.samples.map((s) => [s.name, s.value])])).to.deep.equal([
      [
        'rpc',
        'histogram',
        undefined,
        [
          ['rpc_bucket', 10],
          ['rpc_bucket', 25],
          ['rpc_count', 25],
          ['rpc_sum', 5.5],
        ],
      ],
      ['temp', 'gauge', undefined, [['temp', 21.5]]],
      ['build_info', 'gauge', 'Build info', [['build_info', 1]]],
      [
        'state',
        'gauge',
        undefined,
        [
          ['state', 1],
          ['state', 0],
        ],
      ],
    ]);
    expect(families[1]!.samples[0]!.labels).to.deep.equal({ room: '#1' });
  });

  it('skips and counts the lines that break the format, naming the first, and keeps the rest', () => {
    const { families, skipped, firstSkipped } = parseExposition(
      'up 1\nup{job="a" 1\n# TYPE x frobnicator\ndown two\n{"utf8.name"} 1\nlast 2\n',
    );
    expect(families.map((f) => f.name)).to.deep.equal(['up', 'last']);
    expect(skipped).to.equal(4);
    expect(firstSkipped).to.equal('line 2: expected , or } after the label job');
  });
});

describe('scenarioFromExposition: what becomes what', () => {
  it('writes the modeline first and says where the text came from, masked as given', () => {
    const text = scenarioFromExposition('up 1\n', { origin, readAt });
    expect(text.split('\n')[0]).to.equal(SCHEMA_MODELINE);
    expect(text).to.include(`read from ${origin} at 2026-01-01T00:00:00.000Z`);
  });

  it('reproduces a counter as a step counter climbing at the rate its age gives, labels with one value static, with several rotating', () => {
    const [counter] = profiled(
      [
        '# HELP jobs_total Jobs done.',
        '# TYPE jobs_total counter',
        'jobs_total{queue="fast",zone="eu"} 7200',
        'jobs_total{queue="slow",zone="eu"} 3600',
        '# TYPE process_start_time_seconds gauge',
        `process_start_time_seconds ${readAt.getTime() / 1000 - 3600}`,
      ].join('\n'),
    );
    expect(counter).to.deep.include({
      name: 'jobs_total',
      signal_type: 'metrics',
      metric_type: 'counter',
      help: 'Jobs done.',
      labels: { zone: 'eu' },
      rate: 2,
    });
    // A mean of 5400 after an hour: 1.5/s a series; each series is written once a second at rate 2.
    expect(counter!.generator).to.deep.equal({ type: 'step', start: 3600, step_size: 0.75 });
    expect(rotating(counter!, 'queue')).to.deep.equal({ values: ['fast', 'slow'], distinct: 2 });
  });

  it("draws as many observations a tick as keep each histogram's and summary's _count climbing at the rate read", () => {
    const histogram = (name: string, counts: readonly number[]) =>
      [
        `# TYPE ${name} histogram`,
        ...counts.flatMap((count, i) => [
          `${name}_bucket{le="1",path="/${i}"} ${count}`,
          `${name}_bucket{le="+Inf",path="/${i}"} ${count}`,
          `${name}_count{path="/${i}"} ${count}`,
          `${name}_sum{path="/${i}"} ${count / 2}`,
        ]),
      ].join('\n');
    const entries = profiled(
      [
        histogram('lat', [1000, 3000]),
        histogram('busy', [2e9]),
        '# TYPE rpc summary',
        'rpc{quantile="0.5"} 1',
        'rpc_count 5',
        'rpc_sum 5',
        '# TYPE process_start_time_seconds gauge',
        `process_start_time_seconds ${readAt.getTime() / 1000 - 100}`,
      ].join('\n'),
    );
    // 2000 observations a series in 100 s: 20/s, each series written once a second; a summary's quantiles
    // are those of one tick's observations: never fewer than 100; and never more than svc draws.
    expect(
      entries.filter((e) => e.signal_type !== 'metrics').map((e) => [e.name, e.rate, e.observations_per_tick]),
    ).to.deep.equal([
      ['lat', 2, 20],
      ['busy', 1, 10_000],
      ['rpc', 1, 100],
    ]);
  });

  it('dates counters by their _created samples, and leaves the families of creation times out', () => {
    const text = scenarioFromExposition(
      `# TYPE a_total counter\na_total 100\n# TYPE a_created gauge\na_created ${readAt.getTime() / 1000 - 10}\n`,
      { origin, readAt },
    );
    expect(text).to.include('counting for 10 s (its _created samples)').and.include('Not reproduced: a_created');
    expect(loadScenario(text, { origin: 'profile' }).scenarios.map((e) => [e.name, e.generator])).to.deep.equal([
      ['a_total', { type: 'step', start: 100, step_size: 10 }],
    ]);
  });

  it('reproduces a gauge over its range (uniform), or its one value (constant); untyped keeps its type', () => {
    const [gauge, constant] = profiled(
      '# TYPE temp gauge\ntemp{room="a"} 19\ntemp{room="b"} 21.5\nversion_info{v="1.2"} 1\n',
    );
    expect(gauge).to.deep.include({
      metric_type: 'gauge',
      generator: { type: 'uniform', min: 19, max: 21.5, seed: 0 },
    });
    expect(constant).to.deep.include({
      metric_type: 'untyped',
      generator: { type: 'constant', value: 1 },
      labels: { v: '1.2' },
    });
  });

  it('keeps every label cardinality: up to the list limit as lists whose cycles share no factor, beyond it as counter values', () => {
    const many = MAX_LISTED_VALUES + 5;
    const series = [];
    for (let i = 0; i < many; i++)
      series.push(`wide{user="u${i}",code="${200 + (i % 2)}",method="${['get', 'put', 'post', 'head'][i % 4]}"} 1`);
    const [wide] = profiled(series.join('\n'));
    expect(rotating(wide!, 'user').distinct).to.equal(many);
    expect(wide!.dynamic_labels.find((l) => l.key === 'user')).to.include({ form: 'counter', cardinality: many });
    const code = rotating(wide!, 'code');
    const method = rotating(wide!, 'method');
    expect([code.distinct, method.distinct]).to.deep.equal([2, 4]);
    // Cycles of 2 and 5 (4 values, one repeated): every code meets every method.
    expect([code.values.length, method.values.length]).to.deep.equal([2, 5]);
    const pairs = new Set(Array.from({ length: 10 }, (_, n) => `${code.values[n % 2]}/${method.values[n % 5]}`));
    expect(pairs.size).to.equal(8);
  });

  it('reproduces a histogram with the bounds read and a distribution of the mean read: exponential when right-skewed or unresolved, else normal', () => {
    const histogram = (buckets: string, sum: number) =>
      [
        '# TYPE lat histogram',
        ...buckets.split(' ').map((b) => `lat_bucket{le="${b.split(':')[0]}",path="/a"} ${b.split(':')[1]}`),
        `lat_sum{path="/a"} ${sum}`,
        'lat_count{path="/a"} 100',
      ].join('\n');
    // Half the observations at most 0.1, mean 0.2: right-skewed.
    const [skewed] = profiled(histogram('0.1:50 0.2:80 0.5:95 1:100 +Inf:100', 20));
    expect(skewed).to.deep.include({
      signal_type: 'histogram',
      metric_type: 'histogram',
      buckets: [0.1, 0.2, 0.5, 1],
      distribution: { type: 'exponential', rate: 5 },
      labels: { path: '/a' },
    });
    // Every observation below 0.1, mean 0.001: the buckets cannot place the median; the exponential stays positive.
    const [coarse] = profiled(histogram('0.1:100 1:100 +Inf:100', 0.1));
    expect(coarse!.distribution).to.deep.equal({ type: 'exponential', rate: 1000 });
    // The median in (0.2, 0.3], the mean 0.22: a normal of that mean, its spread from the 90th percentile.
    const [symmetric] = profiled(histogram('0.1:10 0.2:45 0.3:90 0.4:100 +Inf:100', 22));
    const [median, p90] = [0.2 + (0.1 * 5) / 45, 0.3];
    expect(symmetric!.distribution).to.deep.equal({
      type: 'normal',
      mean: 0.22,
      stddev: Number(((p90 - median) / 1.2816).toPrecision(4)),
    });
  });

  it('reproduces a summary with the quantiles read strictly between 0 and 1, and its labels without `quantile`', () => {
    const [summary] = profiled(
      [
        '# TYPE rpc summary',
        ...['0:1', '0.5:2', '0.9:3', '0.99:9', '1:12'].map(
          (q) => `rpc{quantile="${q.split(':')[0]}",svc="x"} ${q.split(':')[1]}`,
        ),
        'rpc_sum{svc="x"} 300',
        'rpc_count{svc="x"} 100',
      ].join('\n'),
    );
    expect(summary).to.deep.include({
      signal_type: 'summary',
      quantiles: [0.5, 0.9, 0.99],
      labels: { svc: 'x' },
      distribution: { type: 'exponential', rate: 0.3333 },
    });
    expect(summary!.dynamic_labels).to.deep.equal([]);
    expect(
      scenarioFromExposition('# TYPE rpc summary\nrpc{quantile="0"} 1\nrpc{quantile="0.5"} 2\nrpc{quantile="1"} 3\n', {
        origin,
        readAt,
      }),
    ).to.include('Not written: quantile 0, 1 (svc writes quantiles strictly between 0 and 1).');
  });

  it(`writes at most ${MAX_PROFILED_FAMILIES} families and names those left out; a family without a finite value is left out with why`, () => {
    const text = scenarioFromExposition(
      `${Array.from({ length: MAX_PROFILED_FAMILIES + 2 }, (_, i) => `m${i} ${i}`).join('\n')}\nbroken NaN\n`,
      { origin, readAt },
    );
    const entries = loadScenario(text, { origin: 'profile', yamlBudget: LOCAL_YAML_BUDGET }).scenarios;
    expect(entries).to.have.length(MAX_PROFILED_FAMILIES);
    expect(text).to.include(`Left out 3 families past the first ${MAX_PROFILED_FAMILIES}: m200, m201, broken.`);
    expect(scenarioFromExposition('x NaN\ny 1\n', { origin, readAt })).to.include(
      'Left out x: no finite value (only NaN or ±Inf).',
    );
    expect(() => scenarioFromExposition('# only comments\n', { origin, readAt })).to.throw(
      `--from: ${origin}: no metric family with a finite value to reproduce`,
    );
  });

  it('puts the sink and encoder asked for in defaults, the sink with placeholders', () => {
    const [entry] = loadScenario(scenarioFromExposition('up 1\n', { origin, readAt, sink: 'remote_write' }), {
      origin: 'profile',
    }).scenarios;
    expect(entry!.sink).to.deep.include({ type: 'remote_write', url: 'http://127.0.0.1:9090/api/v1/write' });
    expect(entry!.encoder.type).to.equal('remote_write');
  });

  it('labels every entry into a log store with a job named after the source, as a scrape adds job: unlabelled families validate', () => {
    const exposition = '# TYPE up gauge\nup 1\n# TYPE reqs counter\nreqs{method="get"} 3\n';
    const jobs = (from: string) =>
      loadScenario(scenarioFromExposition(exposition, { origin: from, readAt, sink: 'logstore' }), {
        origin: 'profile',
      }).scenarios.map((entry) => [entry.name, entry.sink.type, entry.labels]);
    expect(jobs(origin)).to.deep.equal([
      ['up', 'logstore', { job: '127.0.0.1' }],
      ['reqs', 'logstore', { job: '127.0.0.1', method: 'get' }],
    ]);
    expect(jobs('/data/node-scrape.txt')[0]).to.deep.equal(['up', 'logstore', { job: 'node-scrape' }]);
    expect(profiled(exposition).map((entry) => entry.labels)).to.deep.equal([{}, { method: 'get' }]);
  });
});

describe('readExposition: one GET', () => {
  let target: { url: string; server: Server };
  const seen: (string | undefined)[] = [];
  before(async () => {
    target = await serve((request: IncomingMessage, response: ServerResponse) => {
      seen.push(request.headers.authorization);
      if (request.url === '/denied') return void response.writeHead(401, 'Unauthorized').end();
      response
        .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
        .end(`# accept: ${request.headers.accept}\nup 1\n`);
    });
  });
  after(() => target.server.close());

  it('sends the credentials of the URL as Basic auth and asks for text', async () => {
    const { text } = await readExposition(`${target.url.replace('//', '//admin:s%3Acret@')}/metrics`);
    expect(text).to.equal('# accept: text/plain\nup 1\n');
    expect(seen.at(-1)).to.equal(`Basic ${Buffer.from('admin:s:cret').toString('base64')}`);
  });

  it('svc new --from: an encoder the validator refuses for the families read is a usage error naming the field (exit 2)', async () => {
    const result = await svc(['new', '--from', `${target.url}/metrics`, '--encoder', 'syslog']);
    expect(result.code, result.stderr).to.equal(2);
    expect(result.stderr.split('\n')[0]).to.match(
      /^Usage Error: --encoder syslog: scenarios\[0\] \(up\): encoder\.type: syslog encodes logs only, not a metrics entry .*\(value from defaults\)$/,
    );
  });

  it('fails with the status, or the network error, naming the URL with its password masked', async () => {
    const denied = `${target.url.replace('//', '//admin:s3cret@')}/denied`;
    const error = await readExposition(denied).catch((e: Error) => e);
    expect((error as Error).message).to.equal(
      `--from: cannot read ${target.url.replace('//', '//admin:***@')}/denied: HTTP 401 Unauthorized`,
    );
    const closed = await serve(() => undefined);
    await new Promise((resolve) => closed.server.close(resolve));
    const refused = await readExposition(closed.url.replace('//', '//admin:s3cret@')).catch((e: Error) => e);
    expect((refused as Error).message).to.match(
      /^--from: cannot read http:\/\/admin:\*\*\*@127\.0\.0\.1:\d+: connect ECONNREFUSED/,
    );
    const plain = `${target.url.replace('http://', 'https://')}/metrics`;
    const tls = await readExposition(plain).catch((e: Error) => e);
    expect((tls as Error).message).to.equal(
      `--from: cannot read ${plain}: the server at ${new URL(plain).host} does not answer in TLS: is it an http:// URL?`,
    );
  });

  it('says that an answer the server closed mid-body was cut off, and after how much', async () => {
    const cut = await serve((_, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      response.write('# TYPE up gauge\nup 1\n', () => response.socket?.destroy());
    });
    const error = await readExposition(`${cut.url}/metrics`).catch((e: Error) => e);
    cut.server.close();
    expect((error as Error).message).to.equal(
      `--from: cannot read ${cut.url}/metrics: the answer was cut off after 21 bytes: other side closed`,
    );
  });

  it('says that fetch refuses a port browsers block, rather than "bad port"', async () => {
    const error = await readExposition('http://127.0.0.1:6000/metrics').catch((e: Error) => e);
    expect((error as Error).message).to.equal(
      '--from: cannot read http://127.0.0.1:6000/metrics: fetch refuses port 6000 (one of the ports browsers block, such as 6000 and 6665 to 6669): serve it on another port',
    );
  });
});

describe('svc new --from: profiling a real exposition', () => {
  const { dir, scenario } = scenarioDir('svc-new-from-');

  it("reproduces svc-server's own scrape endpoint: names, types and label cardinalities kept; it validates and runs; the password is never shown", async () => {
    const server = testServer();
    const posted = await server.request({
      method: 'POST',
      url: '/scenarios',
      headers: { 'content-type': 'text/yaml' },
      payload: [
        'version: 2',
        'kind: runnable',
        'scenarios:',
        '  - { signal_type: metrics, name: jobs_done_total, help: Jobs done., rate: 10, generator: { type: step, start: 0, step_size: 1 }, dynamic_labels: [{ key: queue, values: [fast, slow, bulk] }] }',
        '  - { signal_type: metrics, name: room_temperature_celsius, rate: 10, generator: { type: sine, amplitude: 5, period_secs: 10, offset: 20 }, labels: { site: lab }, dynamic_labels: [{ key: room, cardinality: 4 }] }',
        '  - { signal_type: histogram, name: request_duration_seconds, rate: 10, distribution: { type: exponential, rate: 5 }, buckets: [0.05, 0.1, 0.25, 0.5, 1], dynamic_labels: [{ key: method, values: [get, post] }] }',
        '',
      ].join('\n'),
    });
    expect(posted.statusCode, posted.body).to.equal(201);
    server.advance(2000);
    const authorizations: (string | undefined)[] = [];
    const served = await serve((request, response) => {
      authorizations.push(request.headers.authorization);
      void server.handler(request, response);
    });
    try {
      const file = join(dir, 'reproduced.yaml');
      const url = `${served.url.replace('//', '//admin:s3cret@')}/scenarios/metrics`;
      const made = await svc(['new', '--from', url, '-o', file]);
      expect(made.code, made.stderr).to.equal(0);
      expect(authorizations).to.deep.equal([`Basic ${Buffer.from('admin:s3cret').toString('base64')}`]);
      const text = readFileSync(file, 'utf8');
      for (const shown of [made.stdout, made.stderr, text]) expect(shown).to.not.include('s3cret');
      expect(text).to.include(served.url.replace('//', '//admin:***@'));

      const entries = loadScenario(text, { origin: file }).scenarios;
      expect(entries.map((e) => [e.name, e.signal_type, e.metric_type])).to.deep.equal([
        ['jobs_done_total', 'metrics', 'counter'],
        ['room_temperature_celsius', 'metrics', 'gauge'],
        ['request_duration_seconds', 'histogram', 'histogram'],
      ]);
      const [jobs, rooms, durations] = entries;
      expect(jobs!.help).to.equal('Jobs done.');
      expect(jobs!.generator!.type).to.equal('step');
      expect(rotating(jobs!, 'queue').distinct).to.equal(3);
      expect(rooms!.labels).to.deep.equal({ site: 'lab' });
      expect(rotating(rooms!, 'room')).to.deep.equal({ values: ['room_0', 'room_1', 'room_2', 'room_3'], distinct: 4 });
      expect(rooms!.generator).to.include({ type: 'uniform' });
      expect(durations!.buckets).to.deep.equal([0.05, 0.1, 0.25, 0.5, 1]);
      expect(rotating(durations!, 'method').distinct).to.equal(2);

      const run = await svc(['run', file, '--duration', '1s', '--quiet']);
      expect(run.code, run.stderr).to.equal(0);
      const written = lines(run.stdout);
      for (const queue of ['fast', 'slow', 'bulk'])
        expect(written.some((line) => line.startsWith(`jobs_done_total{queue="${queue}"} `))).to.equal(true);
      expect(written.some((line) => line.startsWith('room_temperature_celsius{room="room_3",site="lab"} '))).to.equal(
        true,
      );
      expect(
        written.some((line) => line.startsWith('request_duration_seconds_bucket{le="+Inf",method="post"} ')),
      ).to.equal(true);
    } finally {
      served.server.close();
      await server.registry.stopAll();
    }
  });

  it("reproduces Prometheus' own /metrics: every family it keeps validates, and the scenario runs", async () => {
    const prometheus = await startPrometheus({});
    try {
      // A second handler in its request histogram.
      await prometheus.query('up');
      const file = scenario('prometheus.yaml', '');
      const made = await svc(['new', '--from', `${prometheus.url}/metrics`, '-o', file, '--force']);
      expect(made.code, made.stderr).to.equal(0);
      const text = readFileSync(file, 'utf8');
      const entries = loadScenario(text, { origin: file, yamlBudget: LOCAL_YAML_BUDGET }).scenarios;
      const byName = new Map(entries.map((entry) => [entry.name, entry]));
      expect(byName.get('prometheus_http_requests_total')).to.deep.include({ metric_type: 'counter' });
      expect(byName.get('go_goroutines')).to.deep.include({ metric_type: 'gauge' });
      expect(byName.get('prometheus_http_request_duration_seconds')).to.deep.include({ signal_type: 'histogram' });
      expect(rotating(byName.get('prometheus_http_request_duration_seconds')!, 'handler').distinct).to.be.above(1);
      expect(byName.get('go_gc_duration_seconds')).to.deep.include({ signal_type: 'summary' });
      const run = await svc([
        'run',
        file,
        '--duration',
        '500ms',
        '--quiet',
        '--sink',
        'file',
        '--endpoint',
        join(dir, 'prometheus.out'),
      ]);
      expect(run.code, run.stderr).to.equal(0);
    } finally {
      await prometheus.stop();
    }
  });
});
