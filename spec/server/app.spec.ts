import { expect } from 'chai';
import { settle } from '../support/clock.js';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { ScrapeBudget } from '../../lib/server/scrape.js';
import { testServer } from '../support/server.js';
import { spansFromJsonLines, traceProblems } from '../support/traces.js';
import { promtoolCheck } from '../support/promtool.js';
import { temporaryDirectory } from '../support/directories.js';

const gauge = (fields = '') => `signal_type: metrics
name: temp_celsius
rate: 10
generator: { type: constant, value: 21.5 }
labels: { room: lab }
help: Room temperature.
${fields}`;

const post = (server: ReturnType<typeof testServer>, body: string, type = 'text/yaml') =>
  server.request({ method: 'POST', url: '/scenarios', headers: { 'content-type': type }, payload: body });
const get = (server: ReturnType<typeof testServer>, url: string) => server.request({ method: 'GET', url });

function expectError(res: { statusCode: number; json(): any }, status: number, code: string, detail?: RegExp) {
  expect(res.statusCode, JSON.stringify(res.json())).to.equal(status);
  expect(res.json().error).to.equal(code);
  expect(res.json().detail).to.be.a('string').that.is.not.empty;
  if (detail) expect(res.json().detail).to.match(detail);
}

describe('HTTP API', () => {
  describe('GET /health', () => {
    it('answers ok', async () => {
      const res = await get(testServer(), '/health');
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.deep.equal({ status: 'ok' });
    });
  });

  describe('POST /scenarios', () => {
    it('starts a flat YAML entry: 201 with id, entry, name, status and no warnings key', async () => {
      const server = testServer();
      const res = await post(server, gauge());
      expect(res.statusCode).to.equal(201);
      const body = res.json();
      expect(body).to.have.keys('id', 'entry', 'name', 'status');
      expect(body.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // An entry without an id is known by its name.
      expect(body).to.include({ entry: 'temp_celsius', name: 'temp_celsius', status: 'running' });
    });

    it('starts a traces entry: its traces reach the sink as the clock runs, well-formed', async () => {
      const server = testServer();
      const traces = `signal_type: traces
name: checkout
rate: 10
duration: 1s
trace_generator:
  root: {service: frontend, operation: GET /checkout, kind: server,
         calls: [{service: payment, operation: POST /pay, kind: client, duration: 0.01}]}
`;
      const res = await post(server, traces);
      expect(res.statusCode, res.body).to.equal(201);
      server.advance(1000);
      await server.registry.get(res.json().id)!.run.done;
      const spans = spansFromJsonLines(server.sinks[0]!.text);
      expect(spans.filter((span) => span.parentSpanId === undefined)).to.have.length(10);
      expect(traceProblems(spans)).to.deep.equal([]);
    });

    it('tells entries of one metric apart by the entry id of the file: answer, list and detail', async () => {
      const server = testServer();
      const file = {
        version: 2,
        kind: 'runnable',
        scenarios: ['checkout', 'search', 'login', 'cart'].map((id) => ({
          id,
          signal_type: 'metrics',
          name: 'http_requests_total',
          rate: 1,
          generator: { type: 'step', start: 0, step_size: 1 },
        })),
      };
      const started = (await post(server, JSON.stringify(file), 'application/json')).json().scenarios;
      expect(started.map((s: { entry: string; name: string }) => `${s.entry} ${s.name}`)).to.deep.equal([
        'checkout http_requests_total',
        'search http_requests_total',
        'login http_requests_total',
        'cart http_requests_total',
      ]);
      const listed = (await get(server, '/scenarios')).json().scenarios;
      expect(listed.map((s: { id: string; entry: string }) => [s.id, s.entry])).to.deep.equal(
        started.map((s: { id: string; entry: string }) => [s.id, s.entry]),
      );
      expect((await get(server, `/scenarios/${started[2].id}`)).json()).to.include({
        entry: 'login',
        name: 'http_requests_total',
      });
    });

    it('starts entries that share a name without ids, each known by its generated id', async () => {
      const server = testServer();
      const body = `version: 2
kind: runnable
scenarios:
  - { signal_type: metrics, name: http_requests_total, rate: 1, generator: { type: constant, value: 1 }, labels: { status: 200 } }
  - { signal_type: metrics, name: http_requests_total, rate: 1, generator: { type: constant, value: 1 }, labels: { status: 500 } }
`;
      const res = await post(server, body);
      expect(res.statusCode, res.body).to.equal(201);
      expect(res.json().scenarios.map((s: { entry: string }) => s.entry)).to.deep.equal([
        'http_requests_total',
        'http_requests_total#2',
      ]);
      expect((await get(server, '/scenarios')).json().scenarios.map((s: { entry: string }) => s.entry)).to.deep.equal([
        'http_requests_total',
        'http_requests_total#2',
      ]);
    });

    it('starts a JSON v2 file with several entries: one scenario each', async () => {
      const file = {
        version: 2,
        kind: 'runnable',
        scenarios: ['a_total', 'b_total'].map((name) => ({
          signal_type: 'metrics',
          name,
          rate: 1,
          generator: { type: 'step', start: 0, step_size: 1 },
        })),
      };
      const res = await post(testServer(), JSON.stringify(file), 'application/json');
      expect(res.statusCode).to.equal(201);
      expect(res.json().scenarios.map((s: { name: string; status: string }) => `${s.name} ${s.status}`)).to.deep.equal([
        'a_total running',
        'b_total running',
      ]);
    });

    it('warns, without blocking, about loopback sink addresses', async () => {
      const res = await post(
        testServer(),
        gauge('sink: { type: http_push, url: "http://127.0.0.1:8428/api/v1/import/prometheus" }'),
      );
      expect(res.statusCode).to.equal(201);
      expect(res.json().warnings).to.have.length(1);
      expect(res.json().warnings[0]).to.match(/127\.0\.0\.1.*loopback.*svc-server host/);
    });

    it('400 for a body that is not YAML or JSON, or empty', async () => {
      expectError(await post(testServer(), 'name: [unclosed'), 400, 'malformed_body');
      expectError(await post(testServer(), '{"name": ', 'application/json'), 400, 'malformed_body');
      expectError(await post(testServer(), ''), 400, 'empty_body');
    });

    it('400 naming the nesting limit for deeply nested JSON, on both routes: JSON is parsed with the bounds of lib/config, never unbounded', async () => {
      const nested = `${'['.repeat(400_000)}${']'.repeat(400_000)}`;
      for (const url of ['/scenarios', '/events']) {
        const res = await testServer().request({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json' },
          payload: nested,
        });
        expectError(res, 400, 'malformed_body', /nests mappings and lists deeper than 64 levels/);
      }
    });

    it('422 naming the field for a body that fails validation', async () => {
      expectError(
        await post(testServer(), gauge().replace('rate: 10', 'rate: 0')),
        422,
        'validation_failed',
        /rate: expected a number greater than 0, got 0/,
      );
      expectError(await post(testServer(), gauge().replace('temp_celsius', '1bad')), 422, 'validation_failed', /name:/);
    });

    it('413 for a body over 1 MiB, 415 for another content type', async () => {
      expectError(await post(testServer(), `# ${'x'.repeat(1024 * 1024)}\n${gauge()}`), 413, 'payload_too_large');
      expectError(await post(testServer(), gauge(), 'application/xml'), 415, 'unsupported_media_type');
    });

    it('415, not empty_body, for a chunked body (no Content-Length) of another content type or none, on both routes', async () => {
      for (const url of ['/scenarios', '/preview']) {
        for (const type of [{ 'content-type': 'application/xml' }, {}]) {
          const headers = { ...type, 'transfer-encoding': 'chunked' };
          const res = await testServer().request({ method: 'POST', url, headers, payload: Readable.from([gauge()]) });
          expectError(res, 415, 'unsupported_media_type', /send text\/yaml or application\/json/);
        }
      }
    });

    it('400 for a body its Content-Encoding does not decode (not gzip, cut short, not brotli); a gzip body taken', async () => {
      const send = (encoding: string, payload: Buffer) =>
        testServer().request({
          method: 'POST',
          url: '/scenarios',
          headers: { 'content-type': 'text/yaml', 'content-encoding': encoding },
          payload,
        });
      const zipped = gzipSync(gauge());
      for (const [encoding, payload, why] of [
        ['gzip', Buffer.from('xx'), 'incorrect header check'],
        ['deflate', Buffer.from('xx'), 'incorrect header check'],
        ['gzip', zipped.subarray(0, 10), 'unexpected end of file'],
        ['br', Buffer.from('xxxxxxxx'), 'Decompression failed'],
      ] as const) {
        expectError(
          await send(encoding, payload),
          400,
          'malformed_body',
          new RegExp(`^request body is not valid ${encoding} data \\(its Content-Encoding\\): ${why}$`),
        );
      }
      expect((await send('gzip', zipped)).statusCode).to.equal(201);
    });

    it('500 when a worker cannot start, and nothing of the file is left running', async () => {
      const fileRoot = realpathSync(temporaryDirectory('svc-app-'));
      const server = testServer({ unbuildableSink: join(fileRoot, 'broken'), deps: { fileRoot } });
      const file = `version: 2\nkind: runnable\nscenarios:\n  - ${gauge().trimEnd().replace(/\n/g, '\n    ')}\n  - ${gauge('sink: { type: file, path: broken }').trimEnd().replace(/\n/g, '\n    ').replace('temp_celsius', 'other_celsius')}\n`;
      expectError(await post(server, file), 500, 'worker_failed', /cannot open .*\/broken/);
      expect(server.registry.list()).to.deep.equal([]);
      expect(server.sinks).to.have.length(1);
      await settle();
      expect(server.sinks[0]!.closed).to.equal(true);
    });
    it('expands built-in packs and wires after triggers like the CLI', async () => {
      const server = testServer();
      const file = {
        version: 2,
        kind: 'runnable',
        scenarios: [
          {
            id: 'load',
            signal_type: 'metrics',
            name: 'load_ratio',
            rate: 10,
            generator: { type: 'step', start: 0, step_size: 1 },
          },
          {
            signal_type: 'metrics',
            name: 'alerts_total',
            rate: 10,
            generator: { type: 'constant', value: 1 },
            after: { ref: 'load', op: '>', value: 4 },
          },
          { id: 'node', signal_type: 'metrics', pack: 'node_memory', rate: 1 },
        ],
      };
      const res = await post(server, JSON.stringify(file), 'application/json');
      expect(res.statusCode).to.equal(201);
      const names = res.json().scenarios.map((s: { name: string }) => s.name);
      expect(names.slice(0, 2)).to.deep.equal(['load_ratio', 'alerts_total']);
      expect(names.length).to.be.above(3);
      server.advance(1000);
      const stats = (name: string) => server.registry.list().find((s) => s.name === name)!.run.stats.totalEvents;
      // load crosses 4 at tick 5 (500 ms): alerts ticks at 500, 600, … 1000.
      expect([stats('load_ratio'), stats('alerts_total')]).to.deep.equal([11, 6]);
    });
  });

  describe('reading scenarios', () => {
    it('lists scenarios with status and degraded, inspects config, stats and elapsed time', async () => {
      const server = testServer();
      const { id } = (
        await post(server, gauge('gaps: { every: 10s, for: 2s }\nbursts: { every: 10s, for: 1s, multiplier: 2 }'))
      ).json();
      server.advance(500);
      const list = (await get(server, '/scenarios')).json();
      expect(list.scenarios).to.deep.equal([
        {
          id,
          entry: 'temp_celsius',
          name: 'temp_celsius',
          status: 'running',
          degraded: false,
          last_sink_error: null,
          signal_type: 'metrics',
          total_events: 11,
        },
      ]);
      const one = (await get(server, `/scenarios/${id}`)).json();
      expect(one).to.include({ id, name: 'temp_celsius', status: 'running', elapsed_ms: 500 });
      expect(one.config).to.include({ name: 'temp_celsius', rate: 10 });
      const stats = (await get(server, `/scenarios/${id}/stats`)).json();
      expect(stats).to.include({
        total_events: 11,
        errors: 0,
        consecutive_failures: 0,
        total_sink_failures: 0,
        last_sink_error: null,
        degraded: false,
        in_gap: false,
        in_burst: true,
      });
      expect(stats).to.have.property('bytes_emitted').above(0);
      expect(stats).to.have.property('current_rate').above(0);
      expect(stats).to.have.property('uptime', 0.5);
      expect(stats.last_successful_write_at).to.be.a('string');
      server.advance(8000);
      expect((await get(server, `/scenarios/${id}/stats`)).json()).to.include({ in_gap: true, in_burst: false });
    });

    it('reports gap and burst state on the entry clock, which starts after its phase offset', async () => {
      const server = testServer();
      const { id } = (
        await post(server, gauge('phase_offset: 1s\nbursts: { every: 10s, for: 1s, multiplier: 2 }'))
      ).json();
      const state = async () => {
        const { in_gap, in_burst } = (await get(server, `/scenarios/${id}/stats`)).json();
        return { in_gap, in_burst };
      };
      server.advance(500);
      expect(await state()).to.deep.equal({ in_gap: false, in_burst: false });
      server.advance(700);
      expect(await state()).to.deep.equal({ in_gap: false, in_burst: true });
      server.advance(1000);
      expect(await state()).to.deep.equal({ in_gap: false, in_burst: false });
    });

    it('404 in the envelope for an unknown id on every read route, and for unknown routes', async () => {
      const server = testServer();
      for (const url of ['/scenarios/nope', '/scenarios/nope/stats', '/scenarios/nope/metrics'])
        expectError(await get(server, url), 404, 'not_found');
      expectError(await server.request({ method: 'DELETE', url: '/scenarios/nope' }), 404, 'not_found');
      expectError(await get(server, '/nowhere'), 404, 'not_found', /GET \/nowhere/);
    });
  });

  describe('scraping', () => {
    it('drains recent events with timestamps under one HELP/TYPE block, 204 when empty', async () => {
      const server = testServer();
      const { id } = (await post(server, gauge('phase_offset: 1s'))).json();
      expect((await get(server, `/scenarios/${id}/metrics`)).statusCode).to.equal(204);
      server.advance(1250);
      const res = await get(server, `/scenarios/${id}/metrics?limit=2`);
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
      expect(res.body).to.equal(
        '# HELP temp_celsius Room temperature.\n# TYPE temp_celsius gauge\ntemp_celsius{room="lab"} 21.5 1100\ntemp_celsius{room="lab"} 21.5 1200\n',
      );
      expect((await get(server, `/scenarios/${id}/metrics`)).statusCode).to.equal(204);
    });

    it('answers HEAD as GET would without draining anything', async () => {
      const server = testServer();
      const { id } = (await post(server, gauge('phase_offset: 1s'))).json();
      server.advance(1250);
      const head = await server.request({ method: 'HEAD', url: `/scenarios/${id}/metrics?limit=2` });
      expect(head.statusCode).to.equal(200);
      expect(head.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
      expect(head.body).to.equal('');
      const res = await get(server, `/scenarios/${id}/metrics?limit=2`);
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-length']).to.equal(head.headers['content-length']);
      expect(res.body.split('\n').filter((line) => line.startsWith('temp'))).to.have.length(2);
    });

    it("shares the scrape budget among the scenarios, and gives a deleted one's share back", async () => {
      const server = testServer({ registry: { scrapeBudget: new ScrapeBudget(40) } });
      const [kept, deleted] = [(await post(server, gauge())).json().id, (await post(server, gauge())).json().id];
      const events = async (id: string) =>
        (await get(server, `/scenarios/${id}/metrics?limit=1000`)).body
          .split('\n')
          .filter((line) => line.startsWith('temp'));
      server.advance(5000);
      expect(await events(kept)).to.have.length(20);
      expect((await server.request({ method: 'DELETE', url: `/scenarios/${deleted}` })).statusCode).to.equal(200);
      server.advance(5000);
      expect(await events(kept)).to.have.length(40);
    });

    it('rejects a limit outside 1..1000, or not written in digits', async () => {
      const server = testServer();
      const { id } = (await post(server, gauge())).json();
      for (const limit of ['0', '1001', 'x', '2.5', '0x10', '1e2', '%2B5', '%20'])
        expectError(await get(server, `/scenarios/${id}/metrics?limit=${limit}`), 400, 'invalid_query', /limit/);
    });

    it('aggregates the latest value of every series, idempotently, without timestamps', async () => {
      const server = testServer();
      await post(server, gauge());
      await post(server, gauge().replace('room: lab', 'room: hall').replace('21.5', '19'));
      server.advance(300);
      const first = await get(server, '/scenarios/metrics');
      expect(first.body).to.equal(
        '# HELP temp_celsius Room temperature.\n# TYPE temp_celsius gauge\ntemp_celsius{room="lab"} 21.5\ntemp_celsius{room="hall"} 19\n',
      );
      expect((await get(server, '/scenarios/metrics')).body).to.equal(first.body);
    });

    it('answers scrapes from an exposition for as long as it took to build, when that took 100 ms or more', async () => {
      // A scraper asking more often than a large exposition takes to build (5 s for 170,000 series) kept the server
      // building for good, deaf to /health and every other request.
      const server = testServer();
      await post(server, gauge());
      server.advance(300);
      const list = server.registry.list.bind(server.registry);
      let builds = 0;
      let took = 2000;
      // Each build takes `took` ms of the server's clock, as a large one does.
      server.registry.list = () => {
        builds++;
        server.scheduler.frame += took;
        return list();
      };
      const first = (await get(server, '/scenarios/metrics')).body;
      await post(server, gauge().replace('room: lab', 'room: hall'));
      server.advance(1999);
      expect([(await get(server, '/scenarios/metrics')).body, builds]).to.deep.equal([first, 1]);
      server.advance(1);
      took = 99;
      const second = (await get(server, '/scenarios/metrics')).body;
      expect([second.includes('room="hall"'), builds]).to.deep.equal([true, 2]);
      // Built in under 100 ms: every scrape builds its own.
      await get(server, '/scenarios/metrics');
      expect(builds).to.equal(3);
    });

    /**
     * Scenarios of two rooms, lab (`id`) and hall, and builds that take 2 s of the server's clock (long enough to be
     * reused); `duringFirst` runs while the first build reads the scenarios.
     */
    async function twoRooms(duringFirst?: (server: ReturnType<typeof testServer>, id: string) => void) {
      const server = testServer();
      const { id } = (await post(server, gauge())).json();
      await post(server, gauge().replace('room: lab', 'room: hall'));
      server.advance(300);
      const list = server.registry.list.bind(server.registry);
      let first = true;
      server.registry.list = () => {
        server.scheduler.frame += 2000;
        const listed = list();
        if (first) duringFirst?.(server, id);
        first = false;
        return listed;
      };
      // The scrape answers with what it read.
      expect((await get(server, '/scenarios/metrics')).body).to.include('room="lab"');
      return { server, id };
    }
    const rooms = (text: string) => [text.includes('room="lab"'), text.includes('room="hall"')];

    it('forgets a reused exposition when a scenario is deleted: its series are not answered after, nor kept', async () => {
      const { server, id } = await twoRooms();
      expect((await server.request({ method: 'DELETE', url: `/scenarios/${id}` })).statusCode).to.equal(200);
      expect(rooms((await get(server, '/scenarios/metrics')).body)).to.deep.equal([false, true]);
    });

    it('does not keep a build during which a scenario was taken out (a DELETE, a failed POST rolled back)', async () => {
      const { server } = await twoRooms((during, id) => void during.registry.remove(id));
      expect(rooms((await get(server, '/scenarios/metrics')).body)).to.deep.equal([false, true]);
    });

    it('answers 200 with an empty text exposition when no scenario has a sample (Prometheus counts a 204 as down)', async () => {
      const res = await get(testServer(), '/scenarios/metrics');
      expect([res.statusCode, res.headers['content-type'], res.body]).to.deep.equal([
        200,
        'text/plain; version=0.0.4; charset=utf-8',
        '',
      ]);
    });

    it('scrapes span metrics sent over OTLP under the names and labels Prometheus reads', async () => {
      // Their OTLP names (traces.span.metrics.calls, service.name) made Prometheus refuse the whole scrape: the target
      // was down, every scenario's series lost ("invalid metric name: traces.span.metrics.calls").
      const server = testServer();
      const traces = `signal_type: traces
name: checkout
rate: 10
duration: 2s
sink: {type: otlp_grpc, endpoint: 127.0.0.1:4317}
span_metrics: {interval: 1s, exemplars: true}
trace_generator:
  root: {service: frontend, operation: GET /checkout, kind: server, duration: 0.01}
`;
      expect((await post(server, traces)).statusCode).to.equal(201);
      server.advance(1500);
      const text = (await get(server, '/scenarios/metrics')).body;
      const labels =
        'service_name="frontend",span_kind="SPAN_KIND_SERVER",span_name="GET /checkout",status_code="STATUS_CODE_UNSET"';
      expect(text).to.include(
        `# TYPE traces_span_metrics_calls_total counter\ntraces_span_metrics_calls_total{${labels}} 10\n`,
      );
      expect(text).to.include('# TYPE traces_span_metrics_duration_milliseconds histogram\n');
      expect(text).to.include(`traces_span_metrics_duration_milliseconds_bucket{le="10",${labels}} 10\n`);
      // It parses; lint only: no help text, and the connector's milliseconds (as Prometheus' OTLP translation names them).
      expect(promtoolCheck(text)).to.deep.equal({
        code: 3,
        problems: [
          'traces_span_metrics_calls_total no help text',
          'traces_span_metrics_duration_milliseconds no help text',
          'traces_span_metrics_duration_milliseconds use base unit "seconds" instead of "milliseconds"',
        ],
      });
      // The sink still gets them in OTLP's words, as the connector writes them.
      expect(server.sinks.map((sink) => sink.text).join('')).to.include('traces.span.metrics.calls');
    });

    it('writes one untyped block when scenarios share a name but not a type, and logs a warning', async () => {
      const server = testServer();
      await post(server, gauge('metric_type: gauge'));
      await post(server, gauge('metric_type: counter').replace('room: lab', 'room: hall'));
      server.advance(100);
      const text = (await get(server, '/scenarios/metrics')).body;
      expect(text.match(/^# TYPE .*/gm)).to.deep.equal(['# TYPE temp_celsius untyped']);
      expect(text).to.include('room="lab"').and.include('room="hall"');
      expect(server.logs.some((l) => l.level === 40 && /different types/.test(String(l.msg)))).to.equal(true);
    });

    it("keeps a sample that shares its name with a native histogram's row (which text cannot show)", async () => {
      const server = testServer();
      await post(
        server,
        'signal_type: histogram\nname: same\nrate: 2\ndistribution: { type: exponential, rate: 8 }\nobservations_per_tick: 5\nbuckets: [0.1]\nnative: { schema: 0 }\n',
      );
      await post(
        server,
        'signal_type: metrics\nname: same\nmetric_type: gauge\nrate: 2\ngenerator: { type: constant, value: 42 }\n',
      );
      server.advance(1000);
      const text = (await get(server, '/scenarios/metrics')).body;
      expect(text).to.match(/^same 42$/m);
      expect(text).to.match(/^same_count \d+$/m);
    });

    it('scrapes histograms as one family with bucket, sum and count rows', async () => {
      const server = testServer();
      await post(
        server,
        'signal_type: histogram\nname: latency_seconds\nrate: 1\ndistribution: { type: uniform, min: 0, max: 1 }\nbuckets: [0.5]\nobservations_per_tick: 10\n',
      );
      server.advance(10);
      expect((await get(server, '/scenarios/metrics')).body).to.match(
        /^# TYPE latency_seconds histogram\nlatency_seconds_bucket\{le="0\.5"\} \d+\nlatency_seconds_bucket\{le="\+Inf"\} 10\nlatency_seconds_sum [\d.]+\nlatency_seconds_count 10\n$/,
      );
    });
  });

  describe('DELETE /scenarios/{id}', () => {
    it('stops, flushes and forgets: then 404, and a second DELETE is 404', async () => {
      const server = testServer();
      const { id } = (await post(server, gauge())).json();
      server.advance(450);
      const res = await server.request({ method: 'DELETE', url: `/scenarios/${id}` });
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.include({ id, status: 'stopped', total_events: 5 });
      expect(server.sinks[0]!.text.split('\n').filter(Boolean)).to.have.length(5);
      expect(server.sinks[0]!.closed).to.equal(true);
      expect(server.logs.filter((line) => line.scenario === id).map((line) => line.msg)).to.include('scenario stopped');
      expect((await get(server, `/scenarios/${id}`)).statusCode).to.equal(404);
      expect((await server.request({ method: 'DELETE', url: `/scenarios/${id}` })).statusCode).to.equal(404);
      expect(server.registry.list()).to.deep.equal([]);
    });

    it('keeps an entry whose duration ended listed as stopped until deleted', async () => {
      const server = testServer();
      const { id } = (await post(server, gauge('duration: 200ms'))).json();
      server.advance(500);
      await settle();
      expect((await get(server, `/scenarios/${id}`)).json()).to.include({ status: 'stopped' });
      expect((await server.request({ method: 'DELETE', url: `/scenarios/${id}` })).json()).to.include({
        id,
        status: 'stopped',
        total_events: 2,
      });
    });

    // One line per event of a scenario's life: before, the DELETE of one that had ended logged "scenario stopped"
    // after its "scenario ended" (or "scenario failed") line, as if it had been running.
    for (const [how, options, end] of [
      ['ended', {}, 'scenario ended: 2 events'],
      [
        'failed',
        { failingSink: new Error('tcp sink: connection refused by 127.0.0.1:9') },
        'scenario failed: its sink delivered nothing: tcp sink: connection refused by 127.0.0.1:9',
      ],
    ] as const) {
      it(`logs no stop for the DELETE of a scenario that had ${how}: its end was logged`, async () => {
        const server = testServer(options);
        const { id } = (await post(server, gauge('duration: 200ms'))).json();
        server.advance(500);
        await settle();
        expect((await server.request({ method: 'DELETE', url: `/scenarios/${id}` })).statusCode).to.equal(200);
        const ends = server.logs
          .filter((line) => line.scenario === id && /^scenario /.test(String(line.msg)))
          .map((line) => line.msg);
        expect(ends).to.deep.equal([end]);
      });
    }

    it('stops the clock of an ended entry: uptime, elapsed_ms, current_rate and degraded stay as at its end', async () => {
      const server = testServer({ failingSink: new Error('tcp sink: connection refused by 127.0.0.1:9') });
      const { id } = (await post(server, gauge('duration: 2s'))).json();
      // Exactly to its end: the end is taken when its sink closed, which a virtual clock does not move past.
      server.advance(2000);
      await settle();
      const read = async () => {
        const one = (await get(server, `/scenarios/${id}`)).json();
        const listed = (await get(server, '/scenarios')).json().scenarios[0];
        const { uptime, current_rate, degraded } = one.stats;
        return {
          status: one.status,
          elapsed_ms: one.elapsed_ms,
          uptime,
          current_rate,
          degraded,
          listed: listed.degraded,
        };
      };
      const atEnd = await read();
      expect(atEnd).to.include({ status: 'failed', elapsed_ms: 2000, uptime: 2, degraded: false });
      expect(atEnd.current_rate).to.be.within(9, 10);
      // Before, all of them moved on as long as the entry stayed listed: uptime 62 s, a rate of about 0.8/s, degraded.
      server.advance(60_000);
      expect(await read()).to.deep.equal(atEnd);
      expect((await get(server, `/scenarios/${id}/stats`)).json()).to.include({
        uptime: 2,
        current_rate: atEnd.current_rate,
      });
    });

    it('answers the final statistics record: what the stop delivered or gave up is not lost with the id', async () => {
      const server = testServer({ failingSink: new Error('tcp sink: connection refused by 127.0.0.1:9') });
      const { id } = (await post(server, gauge())).json();
      server.advance(450);
      const { stats } = (await server.request({ method: 'DELETE', url: `/scenarios/${id}` })).json();
      expect(stats).to.include({
        dropped_events: 5,
        last_sink_error: 'tcp sink: connection refused by 127.0.0.1:9',
      });
    });
  });

  describe('methods', () => {
    it('405 in the envelope, with Allow, for a method no route takes, also one the router does not know', async () => {
      const server = testServer();
      for (const method of ['PUT', 'PATCH', 'PROPFIND', 'MKCOL']) {
        const res = await server.request({ method: method as 'GET', url: '/scenarios' });
        expectError(
          res,
          405,
          'method_not_allowed',
          new RegExp(`${method} is not allowed on /scenarios \\(allowed: POST, HEAD, GET\\)`),
        );
        expect(res.headers['content-type']).to.match(/^application\/json/);
        expect(res.headers.allow).to.equal('POST, HEAD, GET');
      }
    });

    it('answers OPTIONS 200 with Allow and no body, and HEAD on every GET route with its headers and no body', async () => {
      const server = testServer();
      const options = await server.request({ method: 'OPTIONS', url: '/scenarios' });
      expect(options.statusCode).to.equal(200);
      expect(options.headers.allow).to.equal('POST, HEAD, GET');
      expect(options.body).to.equal('');
      for (const url of ['/health', '/scenarios', '/scenarios/metrics', '/catalog', '/openapi.json']) {
        const [head, getAnswer] = await Promise.all(
          ['HEAD', 'GET'].map((method) => server.request({ method: method as 'GET', url })),
        );
        expect([head!.statusCode, head!.headers['content-type'], head!.body], url).to.deep.equal([
          getAnswer!.statusCode,
          getAnswer!.headers['content-type'],
          '',
        ]);
      }
    });

    it('reads no body on a route that takes none: a JSON one too large or not what its Content-Encoding says changes nothing', async () => {
      const server = testServer();
      for (const [encoding, payload] of [
        ['identity', `"${'x'.repeat(1024 * 1024)}"`],
        ['gzip', 'not gzip'],
      ] as const) {
        const headers = { 'content-type': 'application/json', 'content-encoding': encoding };
        for (const [method, url, status] of [
          ['GET', '/health', 200],
          ['GET', '/scenarios', 200],
          ['DELETE', '/scenarios/nope', 404],
        ] as const) {
          const res = await server.request({ method, url, headers, payload });
          expect(res.statusCode, `${method} ${url} ${encoding}: ${res.body}`).to.equal(status);
        }
      }
    });

    it('404 for a path with a trailing slash, naming the path without it, as Prometheus answers', async () => {
      const server = testServer();
      for (const [method, url, exact] of [
        ['GET', '/scenarios/', '/scenarios'],
        ['POST', '/scenarios/', '/scenarios'],
        ['GET', '/health/', '/health'],
        ['POST', '/events//', '/events'],
      ] as const)
        expectError(
          await server.request({ method, url }),
          404,
          'not_found',
          new RegExp(`^no route for ${method} ${url}: paths take no trailing slash \\(${exact}\\)$`),
        );
      expect(server.sinks).to.have.length(0);
      expect((await get(server, '/scenarios')).statusCode).to.equal(200);
    });

    it('404 for any method on a path no route takes', async () => {
      for (const method of ['GET', 'PROPFIND'])
        expectError(
          await testServer().request({ method: method as 'GET', url: '/nowhere' }),
          404,
          'not_found',
          /no route/,
        );
    });
  });

  describe('errors nobody expected', () => {
    it('become a logged 500 in the envelope, and the server keeps serving', async () => {
      const server = testServer();
      server.registry.page = () => {
        throw new Error('boom');
      };
      expectError(await get(server, '/scenarios'), 500, 'internal_error');
      expect(server.logs.some((l) => l.level === 50)).to.equal(true);
      expect((await get(server, '/health')).statusCode).to.equal(200);
    });
  });
});
