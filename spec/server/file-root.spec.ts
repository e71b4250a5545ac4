import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import fsPromises from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { Catalog } from '../../lib/catalog/index.js';
import { fileSink } from '../../lib/sinks/file.js';
import { prepareAutostart } from '../../lib/server/autostart.js';
import { rootHolding } from '../../lib/server/file-root.js';
import { ScenarioStore } from '../../lib/server/state.js';
import { createSink } from '../../lib/sinks/index.js';
import { selfSigned } from '../support/certificate.js';
import { metric } from '../support/scenarios.js';
import { testServer } from '../support/server.js';
import { temporaryDirectory } from '../support/directories.js';

const entry = (path: string) => ({
  signal_type: 'metrics',
  name: 'depth',
  rate: 10,
  generator: { type: 'constant', value: 1 },
  sink: { type: 'file', path },
});
/** An entry `name` writing `path` with `encoder`. */
const writer = (name: string, encoder: string, path: string) =>
  metric({ name, encoder: { type: encoder }, sink: { type: 'file', path } });
const event = (path: string) => ({
  signal_type: 'metrics',
  labels: {},
  metric: { name: 'deploys_total', value: 3 },
  encoder: { type: 'metrics_text' },
  sink: { type: 'file', path },
});

type Server = ReturnType<typeof testServer>;
const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
const postScenario = (server: Server, path: string) =>
  server.request({ method: 'POST', url: '/scenarios', ...json(entry(path)) });
const postEvent = (server: Server, path: string) =>
  server.request({ method: 'POST', url: '/events', ...json(event(path)) });

/** A file root with a subdirectory, and next to it a directory outside the root. */
function layout() {
  const base = realpathSync(temporaryDirectory('svc-root-'));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'precious.txt'), 'keep me\n');
  symlinkSync(outside, join(root, 'out-dir'));
  symlinkSync(join(outside, 'precious.txt'), join(root, 'out-file'));
  symlinkSync(join(outside, 'not-yet'), join(root, 'dangling'));
  symlinkSync(join(root, 'sub'), join(root, 'in-dir'));
  return { root, outside };
}

describe('file sinks on the server (design: server safety)', () => {
  it('are refused with 422 file_sink_disabled, naming --file-root, when the server has no file root', async () => {
    const server = testServer();
    for (const res of [await postScenario(server, '/tmp/x.prom'), await postEvent(server, '/tmp/x.prom')]) {
      expect(res.statusCode, res.body).to.equal(422);
      expect(res.json().error).to.equal('file_sink_disabled');
      expect(res.json().detail).to.match(/sink\.path: .*--file-root DIR.*SVC_FILE_ROOT/);
    }
    expect(server.registry.list()).to.deep.equal([]);
    expect(server.sinks).to.deep.equal([]);
  });

  it('write below the file root: relative paths land there, absolute ones and symlinks that stay inside are taken', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    // A name beginning with two dots is a file like any other, not a way out (it was refused below the root itself).
    for (const path of ['sub/a.prom', join(root, 'b.prom'), 'in-dir/c.prom', `${root}/sub/../d.prom`, '..e.prom']) {
      expect((await postScenario(server, path)).statusCode, path).to.equal(201);
    }
    const paths = server.registry.list().map((scenario) => (scenario.run.entry.sink as { path: string }).path);
    expect(paths).to.deep.equal([
      join(root, 'sub/a.prom'),
      join(root, 'b.prom'),
      join(root, 'sub/c.prom'),
      join(root, 'd.prom'),
      join(root, '..e.prom'),
    ]);
  });

  it('refuse with 422 file_sink_outside_root any path that leaves the root, by .. or by a symlink', async () => {
    const { root, outside } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    const escapes = [
      '../outside/x.prom',
      '/etc/passwd',
      join(outside, 'x.prom'),
      'out-dir/x.prom',
      'out-file',
      'out-file/x',
      'dangling',
      'sub/../../outside/x',
      '.',
      root,
      'sub/nul\u0000.prom',
    ];
    for (const path of escapes) {
      for (const res of [await postScenario(server, path), await postEvent(server, path)]) {
        expect(res.statusCode, `${path}: ${res.body}`).to.equal(422);
        expect(res.json().error, path).to.equal('file_sink_outside_root');
        expect(res.json().detail, path).to.match(/sink\.path: .* is not a file below the file root/);
      }
    }
    expect(server.registry.list()).to.deep.equal([]);
    expect(readFileSync(join(outside, 'precious.txt'), 'utf8')).to.equal('keep me\n');
  });

  it('refuse with 422 file_sink_not_a_file a named pipe below the root (opening it would wait for a reader)', async () => {
    const { root } = layout();
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const server = testServer({ deps: { fileRoot: root } });
    for (const res of [await postScenario(server, 'pipe'), await postEvent(server, 'pipe')]) {
      expect(res.statusCode, res.body).to.equal(422);
      expect(res.json().error).to.equal('file_sink_not_a_file');
      expect(res.json().detail).to.match(/sink\.path: pipe is a named pipe \(FIFO\), not a file$/);
    }
    expect(server.registry.list()).to.deep.equal([]);
  });

  it('refuse with 422 naming them the entries of a scenario writing one file with openmetrics and another encoder', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    const scenarios = [writer('cpu', 'openmetrics', 'mixed.om'), writer('mem', 'json_lines', 'mixed.om')];
    const body = { version: 2, kind: 'runnable', scenarios };
    const res = await server.postJson('/scenarios', body);
    expect(res.statusCode, res.body).to.equal(422);
    expect(res.json()).to.deep.equal({
      error: 'file_sink_cannot_open',
      detail: `cpu, mem: sink.path: cannot open mixed.om: the entries write it with encodings that cannot share a file (cpu as openmetrics, mem as json_lines): a file of openmetrics holds nothing but its lines up to its "# EOF". Give them different paths`,
    });
    expect(server.registry.list()).to.deep.equal([]);
  });

  it('refuse with 422 entries writing one file by two paths (one through a symlink), named as the first entry names it', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    // `in-dir` links to `sub`: the paths differ, from the root as from the server's directory, the file written not.
    const scenarios = [writer('cpu', 'openmetrics', 'sub/mixed.om'), writer('mem', 'json_lines', 'in-dir/mixed.om')];
    const res = await server.postJson('/scenarios', { version: 2, kind: 'runnable', scenarios });
    expect(res.statusCode, res.body).to.equal(422);
    expect(res.json()).to.deep.equal({
      error: 'file_sink_cannot_open',
      detail: `cpu, mem: sink.path: cannot open sub/mixed.om: the entries write it with encodings that cannot share a file (cpu as openmetrics, mem as json_lines): a file of openmetrics holds nothing but its lines up to its "# EOF". Give them different paths`,
    });
    expect(server.registry.list()).to.deep.equal([]);
  });

  it('refuse with 422 a scenario writing with json_lines a file another scenario writes now with openmetrics', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    // The running scenario's sink (the test server's scenarios write to memory).
    const live = fileSink({ path: join(root, 'live.om'), realPath: true, encoder: 'openmetrics', trailer: '# EOF\n' });
    try {
      const body = { version: 2, kind: 'runnable', scenarios: [writer('mem', 'json_lines', 'live.om')] };
      const res = await server.postJson('/scenarios', body);
      expect(res.statusCode, res.body).to.equal(422);
      expect(res.json()).to.deep.equal({
        error: 'file_sink_cannot_open',
        detail:
          'mem: sink.path: cannot open live.om: another sink of this process writes it now as openmetrics, and json_lines cannot share a file with it: a file of openmetrics holds nothing but its lines up to its "# EOF". Give this sink another path, or write into it once the other is done',
      });
      expect(server.registry.list()).to.deep.equal([]);
    } finally {
      await live.close();
    }
  });

  it('refuse at the request a file sink that cannot open: 422 naming sink.path, not a 201 whose scenario then fails', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    const refusals = [
      [
        'missing/x.prom',
        'file_sink_cannot_open',
        `sink.path: cannot open missing/x.prom: the directory ${root}/missing does not exist`,
      ],
      ['sub', 'file_sink_not_a_file', 'sink.path: sub is a directory, not a file'],
      // Not a file `new-dir` made in the root: the final `/` said a directory.
      [
        'new-dir/',
        'file_sink_cannot_open',
        'sink.path: cannot open new-dir/: it ends with /, which names a directory; path must name a file',
      ],
      // A regular file as its directory: the root's check took it as outside the root, the write check let it pass.
      [
        'notes.txt/x.prom',
        'file_sink_cannot_open',
        `sink.path: cannot open notes.txt/x.prom: a part of ${root}/notes.txt is a file, not a directory`,
      ],
    ] as const;
    writeFileSync(join(root, 'notes.txt'), 'a file, not a directory\n');
    for (const [path, code, detail] of refusals) {
      const [scenario, event] = [await postScenario(server, path), await postEvent(server, path)];
      for (const res of [scenario, event]) {
        expect(res.statusCode, `${path}: ${res.body}`).to.equal(422);
        expect(res.json().error, path).to.equal(code);
      }
      expect(scenario.json().detail).to.equal(`depth: ${detail}`);
      expect(event.json().detail).to.equal(detail);
    }
    expect(server.registry.list()).to.deep.equal([]);
  });

  it('POST /events writes the checked path through a real file sink', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root, createSink: (config) => createSink(config) } });
    const res = await postEvent(server, 'sub/event.prom');
    expect(res.statusCode, res.body).to.equal(200);
    expect(readFileSync(join(root, 'sub/event.prom'), 'utf8')).to.equal('deploys_total 3 0\n');
  });
});

describe("file sinks into the server's own directories below the file root (--state, --catalog)", () => {
  it('are refused with 422 file_sink_cannot_open: a kept scenario or a catalog file is not written over', async () => {
    const { root } = layout();
    mkdirSync(join(root, 'state'));
    writeFileSync(join(root, 'state', 'kept.json'), '{"kept": true}\n');
    mkdirSync(join(root, 'catalog'));
    writeFileSync(join(root, 'catalog', 'web.yaml'), 'name: web\ndescription: a pack\nmetrics:\n  - name: hits\n');
    const state = await ScenarioStore.open(join(root, 'state'));
    const catalog = await Catalog.open(join(root, 'catalog'));
    const server = testServer({ deps: { fileRoot: root, state, catalog } });
    const inState = 'it is in the --state directory, where the server keeps the scenarios it starts again';
    const inCatalog = 'it is in the --catalog directory, whose .yaml, .yml and .json files the server reads';
    for (const [path, why] of [
      ['state/kept.json', inState],
      ['state/new.prom', inState],
      ['./sub/../state/kept.json', inState],
      ['catalog/web.yaml', inCatalog],
      ['catalog/deeper/new.JSON', inCatalog],
    ]) {
      const scenario = await postScenario(server, path);
      expect(scenario.statusCode, scenario.body).to.equal(422);
      expect(scenario.json()).to.deep.equal({
        error: 'file_sink_cannot_open',
        detail: `depth: sink.path: cannot open ${path}: ${why}`,
      });
      const event = await postEvent(server, path);
      expect(event.json(), path).to.deep.equal({
        error: 'file_sink_cannot_open',
        detail: `sink.path: cannot open ${path}: ${why}`,
      });
    }
    expect(readFileSync(join(root, 'state', 'kept.json'), 'utf8')).to.equal('{"kept": true}\n');
    expect((await postScenario(server, 'sub/out.prom')).statusCode).to.equal(201);
    // A file the catalog does not read may be written there: a file root inside the catalog stays usable.
    for (const path of ['catalog/out.prom', 'catalog/.out.yaml'])
      expect((await postScenario(server, path)).statusCode, path).to.equal(201);
  });

  it('are resolved once, not at every POST (they are set at start, as the file root is)', async () => {
    const { root } = layout();
    const [stateDir, catalogDir] = [join(root, 'state'), join(root, 'catalog')];
    mkdirSync(catalogDir);
    const state = await ScenarioStore.open(stateDir);
    const realpath = fsPromises.realpath;
    const resolved: string[] = [];
    fsPromises.realpath = ((...args: Parameters<typeof realpath>) => {
      if (args[0] === stateDir || args[0] === catalogDir) resolved.push(String(args[0]));
      return realpath(...args);
    }) as typeof realpath;
    syncBuiltinESMExports();
    let server: ReturnType<typeof testServer>;
    try {
      // As svc-server opens it: whether it lies below the root is asked of its real path, not resolved again later.
      const catalog = await Catalog.open(catalogDir, undefined, '--catalog', await rootHolding(catalogDir, root));
      server = testServer({ deps: { fileRoot: root, state, catalog } });
      for (const path of ['sub/a.prom', 'sub/b.prom'])
        expect((await postScenario(server, path)).statusCode).to.equal(201);
      expect((await postEvent(server, 'sub/c.prom')).statusCode).to.equal(200);
    } finally {
      fsPromises.realpath = realpath;
      syncBuiltinESMExports();
    }
    expect(resolved.sort()).to.deep.equal([catalogDir, stateDir]);
    expect((await postScenario(server, 'state/x.json')).json().error).to.equal('file_sink_cannot_open');
  });

  it('are refused to an --autostart scenario too, naming it', async () => {
    const { root } = layout();
    mkdirSync(join(root, 'catalog'));
    writeFileSync(join(root, 'catalog', 'own.yaml'), JSON.stringify({ ...entry('catalog/out.yaml'), name: 'own' }));
    const catalog = await Catalog.open(join(root, 'catalog'));
    const state = await ScenarioStore.open(join(root, 'state'));
    const error = await prepareAutostart(['own'], catalog, root, state).catch((e: unknown) => e);
    expect((error as Error).message).to.equal(
      '--autostart @own: own: sink.path: cannot open catalog/out.yaml: it is in the --catalog directory, whose .yaml, .yml and .json files the server reads',
    );
  });
});

describe('a catalog below the file root (design: server safety)', () => {
  /** A catalog below the root holding links to files outside it, and scenarios reading CSVs beside them. */
  async function linkedCatalog() {
    const { root, outside } = layout();
    const dir = join(root, 'catalog');
    mkdirSync(dir);
    const scenario = (name: string, more: object = {}) =>
      JSON.stringify({ ...entry('sub/out.prom'), name, description: `${name}'s own words`, ...more });
    writeFileSync(join(outside, 'secret.yaml'), scenario('secret'));
    symlinkSync(join(outside, 'secret.yaml'), join(dir, 'secret.yaml'));
    writeFileSync(join(root, 'sub', 'inner.yaml'), scenario('inner'));
    symlinkSync(join(root, 'sub', 'inner.yaml'), join(dir, 'inner.yaml'));
    const csv = 'Time,load\n1,0.5\n2,0.75\n';
    writeFileSync(join(outside, 'secret.csv'), csv);
    symlinkSync(join(outside, 'secret.csv'), join(dir, 'linked.csv'));
    writeFileSync(join(dir, 'own.csv'), csv);
    for (const name of ['linked', 'own'])
      writeFileSync(
        join(dir, `${name}.yaml`),
        scenario(name, { generator: { type: 'csv_replay', file: `${name}.csv` } }),
      );
    return { root, dir, outside };
  }

  it('reads no catalog file through a link leading out of the root: it is listed invalid, saying why', async () => {
    const { root, dir, outside } = await linkedCatalog();
    expect(await rootHolding(dir, root)).to.equal(root);
    expect(await rootHolding(outside, root)).to.equal(undefined);
    const catalog = await Catalog.open(dir, undefined, '--catalog', await rootHolding(dir, root));
    const server = testServer({ deps: { fileRoot: root, catalog } });
    const items = (await server.request({ method: 'GET', url: '/catalog' })).json().items;
    expect(items.map(({ name, kind, description }: Record<string, string>) => [name, kind, description])).to.deep.equal(
      [
        ['inner', 'runnable', "inner's own words"],
        ['linked', 'runnable', "linked's own words"],
        ['own', 'runnable', "own's own words"],
        ['secret', 'invalid', null],
      ],
    );
    expect(catalog.find('secret')?.problems).to.deep.equal([
      `${join(dir, 'secret.yaml')}: not read: it leads out of the file root ${root} the catalog lies below (a symbolic link)`,
    ]);
    // The same directory as the CLI's catalog, below no file root, follows its links.
    expect((await Catalog.open(dir)).find('secret')?.description).to.equal("secret's own words");
  });

  it("reads a catalog scenario's CSV beside it only below the root: a link out of it is 422 csv_replay_outside_root", async () => {
    const { root, dir } = await linkedCatalog();
    const catalog = await Catalog.open(dir, undefined, '--catalog', root);
    const server = testServer({ deps: { fileRoot: root, catalog } });
    const post = (name: string) =>
      server.request({ method: 'POST', url: '/scenarios', headers: { 'content-type': 'text/plain' }, payload: name });
    expect((await post('@linked')).json()).to.deep.equal({
      error: 'csv_replay_outside_root',
      detail: `csv_replay file ${join(dir, 'linked.csv')}: not a file below the file root ${root}`,
    });
    expect((await post('@own')).statusCode).to.equal(201);
    const error = await prepareAutostart(['linked'], catalog, root).catch((e: unknown) => e);
    expect((error as Error).message).to.equal(
      `--autostart @linked: csv_replay file ${join(dir, 'linked.csv')}: not a file below the file root ${root}`,
    );
  });
});

describe("a broker sink's tls.ca_cert on the server (design: server safety)", () => {
  const broker = (caCert: string, brokers: string) => ({
    type: 'broker',
    brokers,
    topic: 't',
    tls: { enabled: true, ca_cert: caCert },
  });
  const post = (server: Server, caCert: string, brokers = 'kafka.example:9093') => [
    server.request({ method: 'POST', url: '/scenarios', ...json({ ...entry('x'), sink: broker(caCert, brokers) }) }),
    server.request({ method: 'POST', url: '/events', ...json({ ...event('x'), sink: broker(caCert, brokers) }) }),
  ];

  it('is read only below the file root, as a csv_replay file is: its path leads out, or there is no root, 422', async () => {
    const { root, outside } = layout();
    const confined = testServer({ deps: { fileRoot: root } });
    for (const path of ['/etc/passwd', join(outside, 'precious.txt'), 'out-file', '../outside/precious.txt']) {
      for (const res of await Promise.all(post(confined, path))) {
        expect(res.statusCode, `${path}: ${res.body}`).to.equal(422);
        expect(res.json().error, path).to.equal('ca_cert_outside_root');
        expect(res.json().detail, path).to.include(`sink.tls.ca_cert: ${path}: not a file below the file root ${root}`);
      }
    }
    for (const res of await Promise.all(post(testServer(), '/etc/ssl/ca.pem'))) {
      expect(res.statusCode, res.body).to.equal(422);
      expect(res.json().error).to.equal('ca_cert_disabled');
      expect(res.json().detail).to.match(/sink\.tls\.ca_cert: \/etc\/ssl\/ca\.pem: .*--file-root DIR/);
    }
    expect(confined.registry.list()).to.deep.equal([]);
  });

  it('refuses a named pipe with 422 ca_cert_not_a_file (reading it stopped the whole server, /health included)', async () => {
    const { root } = layout();
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const server = testServer({ deps: { fileRoot: root } });
    for (const res of await Promise.all(post(server, 'pipe'))) {
      expect(res.statusCode, res.body).to.equal(422);
      expect(res.json().error).to.equal('ca_cert_not_a_file');
      expect(res.json().detail).to.match(/sink\.tls\.ca_cert: pipe: it is a named pipe \(FIFO\), not a file$/);
    }
  });

  it('below the root, the sink reads the checked path', async () => {
    const { root } = layout();
    const checked = join(root, 'sub/ca.pem');
    writeFileSync(checked, selfSigned(root).pem);
    // The event's sink is a real one, to a port where no broker listens: it reads the certificate before connecting.
    const server = testServer({ deps: { fileRoot: root, createSink: undefined } });
    const [scenario, sent] = await Promise.all(post(server, 'in-dir/ca.pem', '127.0.0.1:1'));
    expect(scenario.statusCode, scenario.body).to.equal(201);
    const [started] = server.registry.list();
    expect((started!.run.entry.sink as { tls: { ca_cert: string } }).tls.ca_cert).to.equal(checked);
    // The event's sink read the certificate and went on to connect.
    expect(sent.statusCode, sent.body).to.equal(502);
    expect(sent.json().detail).to.match(/^broker sink: connection refused by 127\.0\.0\.1:1: /);
    // Gone after the check: the sink names the path it opened, the checked one.
    const undo = afterCheckOf(checked, () => unlinkSync(checked));
    const gone = await server
      .request({
        method: 'POST',
        url: '/events',
        ...json({ ...event('x'), sink: broker('in-dir/ca.pem', '127.0.0.1:1') }),
      })
      .finally(undo);
    expect(gone.statusCode, gone.body).to.equal(502);
    expect(gone.json().detail).to.match(new RegExp(`^broker sink: cannot read tls\\.ca_cert ${checked}: `));
  });
});

/**
 * Runs `swap` once, right after the server's first `stat` of `path`, the path it confined below the root (its real
 * path, found by realpath), before anything opens it: the moment someone writing below the root would have to hit;
 * the rest of the check sees what they put there. Undo with the function returned.
 */
function afterCheckOf(path: string, swap: () => void): () => void {
  const stat = fsPromises.stat;
  let swapped = false;
  fsPromises.stat = (async (...args: Parameters<typeof stat>) => {
    try {
      return await stat(...args);
    } finally {
      // Once: a second swap would fail (the link is there), and its error would be the stat's.
      if (args[0] === path && !swapped) {
        swapped = true;
        swap();
      }
    }
  }) as typeof stat;
  syncBuiltinESMExports();
  return () => {
    fsPromises.stat = stat;
    syncBuiltinESMExports();
  };
}

describe('a path checked below the file root and swapped for a symbolic link before it is opened (design: server safety)', () => {
  /** A root whose `sub` holds `precious.txt` as the outside does; `swapSub` makes `sub` a link to the outside. */
  function swappable() {
    const { root, outside } = layout();
    writeFileSync(join(root, 'sub/precious.txt'), 'inside\n');
    const swapSub = () => {
      renameSync(join(root, 'sub'), join(root, 'sub-was'));
      symlinkSync(outside, join(root, 'sub'));
    };
    return { root, outside, swapSub };
  }

  it('a file sink of POST /events writes nothing outside: the opened file is not the one checked, 502', async () => {
    const { root, outside, swapSub } = swappable();
    const server = testServer({ deps: { fileRoot: root, createSink: undefined } });
    const undo = afterCheckOf(join(root, 'sub/precious.txt'), swapSub);
    const res = await postEvent(server, 'sub/precious.txt').finally(undo);
    expect(res.statusCode, res.body).to.equal(502);
    expect(res.json().detail).to.include('is no longer the file checked below the file root');
    expect(readFileSync(join(outside, 'precious.txt'), 'utf8')).to.equal('keep me\n');
  });

  it("a scenario's file sink does not truncate the file a link put in its place leads to", async () => {
    const { root, outside } = layout();
    const server = testServer({ deps: { fileRoot: root }, registry: { createSink: undefined } });
    const swap = () => symlinkSync(join(outside, 'precious.txt'), join(root, 'a.prom'));
    const undo = afterCheckOf(join(root, 'a.prom'), swap);
    const res = await postScenario(server, 'a.prom').finally(undo);
    expect(res.statusCode, res.body).to.equal(201);
    // The swap happened after the check, and the sink refused the file it found.
    expect(lstatSync(join(root, 'a.prom')).isSymbolicLink()).to.equal(true);
    const [scenario] = server.registry.list();
    await scenario!.run.stop();
    expect(scenario!.run.stats.lastSinkError).to.include('is no longer the file checked below the file root');
    expect(readFileSync(join(outside, 'precious.txt'), 'utf8')).to.equal('keep me\n');
  });

  it('a csv_replay file is not read from outside the root: 422 naming the file and the change', async () => {
    const { root, swapSub } = swappable();
    const server = testServer({ deps: { fileRoot: root } });
    const generator = { type: 'csv_replay', file: 'sub/precious.txt' };
    const undo = afterCheckOf(join(root, 'sub/precious.txt'), swapSub);
    const res = await server
      .request({ method: 'POST', url: '/scenarios', ...json({ ...entry('x.prom'), generator }) })
      .finally(undo);
    expect(res.statusCode, res.body).to.equal(422);
    expect(res.json().error).to.equal('validation_failed');
    expect(res.json().detail).to.include('is no longer the file checked below the file root');
    expect(res.body).not.to.include('keep me');
  });
});
