import { expect } from 'chai';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../lib/catalog/index.js';
import { directory, temporaryDirectory } from '../support/directories.js';
import { waitFor } from '../support/backends/ports.js';
import { spawnServerProcess, startServerProcess } from '../support/server-process.js';
import { testServer } from '../support/server.js';
import { HeldCloseSink } from '../support/sinks.js';
import { setImmediate } from 'node:timers/promises';

/** What a cluster deployment needs of svc-server (docs/deploy.md): readiness while draining, a catalog, autostart. */

const gaugeFile = (name: string, sink = '') => `version: 2
kind: runnable
name: ${name}
scenarios:
  - signal_type: metrics
    name: ${name.replace(/-/g, '_')}_ratio
    rate: 10
    generator: { type: constant, value: 1 }
    dynamic_labels: [{ key: pod, cardinality: 3 }]
${sink}`;

const post = (server: ReturnType<typeof testServer>, body: string, type = 'text/yaml') =>
  server.request({ method: 'POST', url: '/scenarios', headers: { 'content-type': type }, payload: body });

describe('svc-server in a deployment', () => {
  describe('GET /health?ready (readiness) while the server drains', () => {
    it('answers 200 until draining starts, then 503 draining, while GET /health (liveness) stays 200; open with an API key', async () => {
      const server = testServer({ apiKey: 'k' });
      const ready = () => server.request({ method: 'GET', url: '/health?ready' });
      expect((await ready()).statusCode).to.equal(200);
      expect((await ready()).json()).to.deep.equal({ status: 'ok' });

      await server.registry.stopAll();
      const draining = await ready();
      expect(draining.statusCode).to.equal(503);
      expect(draining.json().error).to.equal('draining');
      expect(draining.json().detail).to.match(/shutting down/);
      const live = await server.request({ method: 'GET', url: '/health' });
      expect([live.statusCode, live.json()]).to.deep.equal([200, { status: 'ok' }]);
    });

    it('waits, as it drains, for the flush of a scenario whose DELETE began before it', async () => {
      const sink = new HeldCloseSink();
      const server = testServer({ registry: { createSink: () => sink } });
      const { id } = (await post(server, gaugeFile('deleted'))).json();
      const deleting = server.request({ method: 'DELETE', url: `/scenarios/${id}` });
      await sink.closing;
      const stopping = server.registry.stopAll().then(() => sink.closes);
      // Before, the drain took only the scenarios still listed, and was over with this one's sink still open.
      expect(await Promise.race([stopping, setImmediate('flushing')])).to.equal('flushing');
      sink.finish();
      expect(await stopping).to.equal(1);
      expect((await deleting).statusCode).to.equal(200);
    });

    it('refuses new scenarios with 503 once draining started, so nothing starts that the flush would miss', async () => {
      const server = testServer();
      await server.registry.stopAll();
      const res = await post(server, gaugeFile('late'));
      expect(res.statusCode).to.equal(503);
      expect(res.json().error).to.equal('draining');
      expect(server.registry.list()).to.deep.equal([]);
    });

    it('refuses single events with 503 too: POST /events sends nothing once draining started', async () => {
      const server = testServer();
      const event = {
        signal_type: 'metrics',
        labels: {},
        metric: { name: 'late_total', value: 1 },
        encoder: { type: 'metrics_text' },
        sink: { type: 'stdout' },
      };
      expect((await server.postJson('/events', event)).statusCode).to.equal(200);
      await server.registry.stopAll();
      const res = await server.postJson('/events', event);
      expect(res.statusCode).to.equal(503);
      expect(res.json()).to.deep.equal({
        error: 'draining',
        detail: 'svc-server is shutting down: it flushes its scenarios and takes no new scenarios or events',
      });
      // Only the event sent before the drain opened a sink.
      expect(server.sinks).to.have.length(1);
    });
  });

  describe('a cap on the entries running at once (--max-entries)', () => {
    /** A file of `count` entries, each a gauge; `duration` ends them by themselves. */
    const entries = (count: number, duration = '') =>
      JSON.stringify({
        version: 2,
        kind: 'runnable',
        scenarios: Array.from({ length: count }, (_, i) => ({
          id: `e${i}`,
          signal_type: 'metrics',
          name: 'capped_ratio',
          rate: 10,
          generator: { type: 'constant', value: 1 },
          ...(duration && { duration }),
        })),
      });
    const postFile = (server: ReturnType<typeof testServer>, count: number, duration?: string) =>
      post(server, entries(count, duration), 'application/json');

    it('refuses a POST that would go past it whole: 429 too_many_entries naming the limit, the count and the flag', async () => {
      const server = testServer({ registry: { maxEntries: 3 } });
      expect((await postFile(server, 2)).statusCode).to.equal(201);
      const res = await postFile(server, 2);
      expect(res.statusCode).to.equal(429);
      expect(res.json()).to.deep.equal({
        error: 'too_many_entries',
        detail:
          'too many scenarios: this server runs at most 3 entries at once (--max-entries), 2 run now and this file has 2; none of its entries started. Stop some (DELETE /scenarios/{id}), or start the server with a higher --max-entries',
      });
      // None of the refused file's entries started, nor opened a sink.
      expect(server.registry.list()).to.have.length(2);
      expect(server.sinks).to.have.length(2);
      expect((await postFile(server, 1)).statusCode).to.equal(201);
    });

    it('counts running entries only: deleted and ended ones give their room back', async () => {
      const server = testServer({ registry: { maxEntries: 2 } });
      const [kept, deleted] = (await postFile(server, 2)).json().scenarios;
      expect((await postFile(server, 1)).statusCode).to.equal(429);
      await server.request({ method: 'DELETE', url: `/scenarios/${deleted.id}` });
      const ending = (await postFile(server, 1, '1s')).json();
      expect((await postFile(server, 1)).statusCode).to.equal(429);
      server.advance(1000);
      await server.registry.get(ending.id)!.run.done;
      // The ended entry stays listed (stopped) but runs no more.
      expect(server.registry.get(ending.id)).to.not.equal(undefined);
      expect((await postFile(server, 1)).statusCode).to.equal(201);
      expect(server.registry.get(kept.id)).to.not.equal(undefined);
    });

    it('bounds the ended entries it lists too: a start past it forgets those that ended first, logged', async () => {
      // Before, every ended entry stayed listed until deleted: a client posting short scenarios grew the server
      // without bound (11,340 ended entries of --max-entries 50: 400 MiB RSS).
      const server = testServer({ registry: { maxEntries: 3 } });
      const first = (await postFile(server, 1, '1s')).json();
      server.advance(500);
      const second = (await postFile(server, 1, '1s')).json();
      server.advance(1000);
      await Promise.all([first, second].map(({ id }) => server.registry.get(id)!.run.done));
      // Room left: both ended ones stay listed.
      const running = (await postFile(server, 1)).json();
      expect(server.registry.list().map(({ id }) => id)).to.deep.equal([first.id, second.id, running.id]);
      // A start of one entry needs the room of one: the first to end goes, the other stays.
      const { removals } = server.registry;
      const next = (await postFile(server, 1)).json();
      expect(server.registry.list().map(({ id }) => id)).to.deep.equal([second.id, running.id, next.id]);
      // Not a removal: its series left the exposition when it ended, so the one /scenarios/metrics keeps stays valid.
      expect(server.registry.removals).to.equal(removals);
      expect((await server.request({ method: 'GET', url: `/scenarios/${first.id}` })).statusCode).to.equal(404);
      expect(server.logs.filter((line) => line.scenario === first.id).at(-1)).to.include({
        msg: 'scenario forgotten: it had ended, and the scenarios listed were at --max-entries (3): a new one took its place',
        entry: 'e0',
      });
      // Only ended entries give way: past the running ones it is the 429 as before.
      expect((await postFile(server, 2)).statusCode).to.equal(429);
      expect(server.registry.get(second.id)).to.not.equal(undefined);
    });
  });

  describe('a catalog (--catalog)', () => {
    const dir = directory({
      'scenarios/checkout.yaml': gaugeFile('checkout'),
      'packs/tiny.yaml':
        'version: 2\nkind: composable\nname: tiny\ndescription: two gauges\nmetrics:\n  - name: tiny_up\n  - name: tiny_load\n',
    });

    it('resolves pack: <name> of a posted body in the catalog', async () => {
      const server = testServer({ deps: { catalog: await Catalog.open(dir) } });
      const res = await post(server, 'signal_type: metrics\npack: tiny\nrate: 1\n');
      expect(res.statusCode, res.body).to.equal(201);
      expect(res.json().scenarios.map((s: { name: string }) => s.name)).to.deep.equal(['tiny_up', 'tiny_load']);
    });

    it('starts the catalog scenario a body of @name names', async () => {
      const server = testServer({ deps: { catalog: await Catalog.open(dir) } });
      const res = await post(server, '@checkout\n', 'text/plain');
      expect(res.statusCode, res.body).to.equal(201);
      expect(res.json()).to.include({ name: 'checkout_ratio', status: 'running' });
    });

    it('422 naming the catalog for an unknown @name, and naming --catalog and SVC_CATALOG when the server has none', async () => {
      const withCatalog = await post(testServer({ deps: { catalog: await Catalog.open(dir) } }), '@nope');
      expect(withCatalog.statusCode).to.equal(422);
      expect(withCatalog.json().detail).to.match(/no scenario named "nope" in the catalog .*it has: checkout/);
      const without = await post(testServer(), '@checkout');
      expect(without.statusCode).to.equal(422);
      expect(without.json().detail).to.match(
        /needs a catalog: give --catalog <dir> or set SVC_CATALOG \(the directory/,
      );
    });
  });

  describe('svc-server --catalog DIR --autostart @name,… (and SVC_CATALOG, SVC_AUTOSTART)', function () {
    this.timeout(30_000);

    /** A directory laid out as Kubernetes mounts a ConfigMap: each file a link into a hidden, timestamped directory. */
    function configMapDir(files: Record<string, string>): string {
      const dir = temporaryDirectory('svc-configmap-');
      mkdirSync(join(dir, '..2024_01_01_00_00_00.1'));
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, '..2024_01_01_00_00_00.1', name), text);
      symlinkSync('..2024_01_01_00_00_00.1', join(dir, '..data'));
      for (const name of Object.keys(files)) symlinkSync(join('..data', name), join(dir, name));
      return dir;
    }

    it('starts the named scenarios at boot from a ConfigMap-shaped directory, file sinks below the file root', async () => {
      const root = temporaryDirectory('svc-root-');
      const catalog = configMapDir({
        'checkout.yaml': gaugeFile('checkout', `    sink: { type: file, path: checkout.prom }\n`),
        'search.yaml': gaugeFile('search'),
      });
      const server = await startServerProcess({
        args: ['--autostart', '@checkout,@search'],
        env: { SVC_CATALOG: catalog, SVC_FILE_ROOT: root },
        quiet: true,
      });
      try {
        const listed = (await (await fetch(`${server.base}/scenarios`)).json()) as {
          scenarios: { name: string; status: string }[];
        };
        expect(listed.scenarios.map((s) => `${s.name} ${s.status}`).sort()).to.deep.equal([
          'checkout_ratio running',
          'search_ratio running',
        ]);
        server.child.kill('SIGTERM');
        expect(await server.exited).to.equal(0);
        expect(readFileSync(join(root, 'checkout.prom'), 'utf8')).to.match(/^checkout_ratio\{pod="pod_0"\} 1 \d{13}\n/);
      } finally {
        server.kill();
      }
    });

    it('reads SVC_AUTOSTART too', async () => {
      const catalog = directory({ 'search.yaml': gaugeFile('search') });
      const server = await startServerProcess({
        args: ['--catalog', catalog],
        env: { SVC_AUTOSTART: '@search' },
        quiet: true,
      });
      try {
        const listed = (await (await fetch(`${server.base}/scenarios`)).json()) as { scenarios: { name: string }[] };
        expect(listed.scenarios.map((s) => s.name)).to.deep.equal(['search_ratio']);
      } finally {
        server.kill();
      }
    });

    const exitOf = async (args: string[], env: Record<string, string> = {}) => {
      const child = spawnServerProcess({ args, env });
      let out = '';
      let err = '';
      child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { code, out, err };
    };

    it('exits 2 for --autostart without a catalog, a name without @, or a catalog that is not a directory', async () => {
      const catalog = directory({ 'search.yaml': gaugeFile('search') });
      const cases = await Promise.all([
        exitOf(['--autostart', '@search']),
        exitOf(['--catalog', catalog, '--autostart', 'search']),
        exitOf(['--catalog', '/no/such/dir']),
      ]);
      expect(cases.map((c) => c.code)).to.deep.equal([2, 2, 2]);
      expect(cases[0]!.err).to.match(/--autostart: .*needs a catalog: give --catalog <dir>/);
      expect(cases[1]!.err).to.match(
        /--autostart: expected catalog references @name separated by commas, got "search"/,
      );
      expect(cases[2]!.err).to.match(/catalog directory not found/);
      for (const c of cases) expect(c.out).to.equal('');
    });

    it('--shard i/N (SVC_SHARD): N servers running the same scenario together expose every series exactly once', async () => {
      const catalog = directory({
        'fleet.yaml': `${gaugeFile('fleet')}  - signal_type: metrics\n    name: fleet_info\n    rate: 10\n    generator: { type: constant, value: 1 }\n`,
      });
      const start = (args: string[], env: Record<string, string> = {}) =>
        startServerProcess({ args: ['--catalog', catalog, '--autostart', '@fleet', ...args], env, quiet: true });
      // Whole; shard 0 of 2 by flag; shard 1 of 2 by environment.
      const servers = await Promise.all([start([]), start(['--shard', '0/2']), start([], { SVC_SHARD: '1/2' })]);
      try {
        // Each server's series, once all of its share has appeared (rate 10, three pods: 300 ms).
        const series = (base: string, count: number) =>
          waitFor(`${count} series`, async () => {
            const res = await fetch(`${base}/scenarios/metrics`);
            const names =
              res.status === 200
                ? (await res.text())
                    .split('\n')
                    .filter((line) => line && !line.startsWith('#'))
                    .map((line) => line.split(' ')[0]!)
                : [];
            return names.length >= count ? names : undefined;
          });
        const [whole, first, second] = await Promise.all([
          series(servers[0]!.base, 4),
          series(servers[1]!.base, 2),
          series(servers[2]!.base, 2),
        ]);
        expect(whole!.sort()).to.deep.equal([
          'fleet_info',
          'fleet_ratio{pod="pod_0"}',
          'fleet_ratio{pod="pod_1"}',
          'fleet_ratio{pod="pod_2"}',
        ]);
        // fleet_ratio (position 0): pods 0 and 2 on shard 0, pod 1 on shard 1; fleet_info (position 1): shard 1.
        expect([first!.sort(), second!.sort()]).to.deep.equal([
          ['fleet_ratio{pod="pod_0"}', 'fleet_ratio{pod="pod_2"}'],
          ['fleet_info', 'fleet_ratio{pod="pod_1"}'],
        ]);
      } finally {
        for (const server of servers) server.kill();
      }
    });

    it('exits 2 naming --shard or SVC_SHARD for a shard that is not ORDINAL/COUNT, saying so when the pod index label is missing', async () => {
      const cases = await Promise.all([
        // Kubernetes before 1.28 sets no apps.kubernetes.io/pod-index label: SVC_POD_INDEX reads as empty.
        exitOf([], { SVC_SHARD: '/3' }),
        exitOf(['--shard', '3/3']),
        exitOf(['--shard', '0/1001']),
        // Typed, not read from a pod label: no word of Kubernetes.
        exitOf(['--shard', '/3']),
      ]);
      expect(cases.map((c) => c.code)).to.deep.equal([2, 2, 2, 2]);
      expect(cases[0]!.err).to.include(
        'SVC_SHARD: expected ORDINAL/COUNT, whole numbers with ORDINAL below COUNT and COUNT from 1 to 1000 (a pod\'s index and the replica count), got "/3": ORDINAL is empty (on Kubernetes before 1.28 no pod has the label apps.kubernetes.io/pod-index it is read from)',
      );
      expect(cases[1]!.err).to.match(/--shard: .*got "3\/3"/);
      expect(cases[2]!.err).to.match(/COUNT from 1 to 1000/);
      expect(cases[3]!.err).to.match(/--shard: .*got "\/3"\n/);
      expect(cases[3]!.err).not.to.include('pod-index');
    });

    it('--max-entries (SVC_MAX_ENTRIES): exits 2 naming it out of 1 to 1000000; 10000 by default, as the listening line says', async () => {
      const cases = await Promise.all([
        exitOf(['--max-entries', '0']),
        exitOf(['--max-entries', '1e7']),
        exitOf([], { SVC_MAX_ENTRIES: 'many' }),
      ]);
      expect(cases.map((c) => c.code)).to.deep.equal([2, 2, 2]);
      expect(cases[0]!.err).to.include('--max-entries: expected an integer from 1 to 1000000, got "0"');
      expect(cases[1]!.err).to.include('--max-entries: expected an integer from 1 to 1000000, got "1e7"');
      expect(cases[2]!.err).to.include('SVC_MAX_ENTRIES: expected an integer from 1 to 1000000, got "many"');
      const [byDefault, set] = await Promise.all([
        startServerProcess(),
        startServerProcess({ env: { SVC_MAX_ENTRIES: '5' } }),
      ]);
      try {
        const listening = (server: typeof set) =>
          waitFor('the listening line', () =>
            server
              .stderr()
              .split('\n')
              .filter(Boolean)
              .map((line) => JSON.parse(line) as { msg: string; max_entries?: number })
              .find((line) => line.msg === 'svc-server listening'),
          );
        expect((await listening(byDefault)).max_entries).to.equal(10_000);
        expect((await listening(set)).max_entries).to.equal(5);
      } finally {
        byDefault.kill();
        set.kill();
      }
    });

    it('exits 1 before listening when the autostart scenarios have more entries than --max-entries', async () => {
      const catalog = directory({ 'search.yaml': gaugeFile('search'), 'checkout.yaml': gaugeFile('checkout') });
      const { code, out, err } = await exitOf([
        '--catalog',
        catalog,
        '--autostart',
        '@search,@checkout',
        '--max-entries',
        '1',
      ]);
      expect([code, out]).to.deep.equal([1, '']);
      expect(err).to.include(
        'error: --autostart: its scenarios have 2 entries, more than --max-entries 1: raise --max-entries or start fewer',
      );
    });

    it('exits 1 before listening, naming the reference, when an autostart scenario is unknown or refused', async () => {
      const catalog = directory({
        'search.yaml': gaugeFile('search'),
        'filed.yaml': gaugeFile('filed', `    sink: { type: file, path: out.prom }\n`),
      });
      const [unknown, refused] = await Promise.all([
        exitOf(['--catalog', catalog, '--autostart', '@search,@nope']),
        exitOf(['--catalog', catalog, '--autostart', '@filed']),
      ]);
      expect([unknown.code, refused.code]).to.deep.equal([1, 1]);
      // The reference named once: the catalog's own message began with it too (`@nope: @nope: no scenario …`).
      expect(unknown.err).to.match(/^error: --autostart @nope: no scenario named "nope"/m);
      expect(refused.err).to.match(/^error: --autostart @filed: .*file sinks are disabled on this server/m);
      expect(unknown.out + refused.out).to.equal('');
    });
  });
});
