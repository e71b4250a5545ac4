import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { linkSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import fsPromises from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { Catalog } from '../../lib/catalog/index.js';
import { prepareAutostart } from '../../lib/server/autostart.js';
import { metric } from '../support/scenarios.js';
import { heldTurn, testServer } from '../support/server.js';
import { temporaryDirectory } from '../support/directories.js';
import { HeldCloseSink, MemorySink } from '../support/sinks.js';

const entry = (file: string) => ({
  signal_type: 'metrics',
  name: 'load',
  rate: 1,
  generator: { type: 'csv_replay', file },
});
type Server = ReturnType<typeof testServer>;
const post = (server: Server, file: string) =>
  server.request({
    method: 'POST',
    url: '/scenarios',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(entry(file)),
  });

/** A file root holding load.csv, a CSV outside it, and a symlink leading there. */
function layout() {
  const base = realpathSync(temporaryDirectory('svc-csv-root-'));
  const [root, outside] = [join(base, 'root'), join(base, 'outside')];
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  const csv = 'Time,load\n1,0.5\n2,0.75\n';
  writeFileSync(join(root, 'sub', 'load.csv'), csv);
  writeFileSync(join(outside, 'secret.csv'), csv);
  symlinkSync(join(outside, 'secret.csv'), join(root, 'link.csv'));
  return { root, outside };
}

/** How many times `path` is looked at (fs.promises.stat) while `run` runs. */
async function looksAt(path: string, run: () => Promise<void>): Promise<number> {
  const stat = fsPromises.stat;
  let looks = 0;
  fsPromises.stat = ((...args: Parameters<typeof stat>) => {
    if (args[0] === path) looks++;
    return stat(...args);
  }) as typeof stat;
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    fsPromises.stat = stat;
    syncBuiltinESMExports();
  }
  return looks;
}

/** What `--autostart @a,@b` and `--autostart @b,@a` say of the catalog's scenarios: `started`, or the error. */
function bothOrders(catalog: Catalog, root: string, a: string, b: string): Promise<string[]> {
  return Promise.all(
    [
      [a, b],
      [b, a],
    ].map((names) =>
      prepareAutostart(names, catalog, root).then(
        () => 'started',
        (error: Error) => error.message,
      ),
    ),
  );
}

describe('csv_replay on the server (files read only below --file-root)', () => {
  it('is refused with 422 csv_replay_disabled, naming --file-root, when the server has no file root', async () => {
    const { root } = layout();
    const server = testServer();
    const res = await post(server, join(root, 'sub', 'load.csv'));
    expect(res.statusCode, res.body).to.equal(422);
    expect(res.json().error).to.equal('csv_replay_disabled');
    expect(res.json().detail).to.match(/csv_replay file .*load\.csv: .*--file-root DIR.*SVC_FILE_ROOT/);
    expect(server.registry.list()).to.deep.equal([]);
  });

  it('reads a CSV below the file root, relative paths from the root', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    for (const file of ['sub/load.csv', join(root, 'sub', 'load.csv')])
      expect((await post(server, file)).statusCode, file).to.equal(201);
  });

  it('refuses with 422 csv_replay_outside_root a path that leaves the root, by .. or by a symlink', async () => {
    const { root, outside } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    for (const file of ['../outside/secret.csv', join(outside, 'secret.csv'), 'link.csv', '/etc/passwd']) {
      const res = await post(server, file);
      expect(res.statusCode, file).to.equal(422);
      expect(res.json().error, file).to.equal('csv_replay_outside_root');
    }
  });

  it('refuses with 422 csv_replay_not_a_file a named pipe below the root, at once (reading it would wait for a writer)', async () => {
    const { root } = layout();
    execFileSync('mkfifo', [join(root, 'pipe.csv')]);
    const server = testServer({ deps: { fileRoot: root } });
    const res = await post(server, 'pipe.csv');
    expect(res.statusCode).to.equal(422);
    expect(res.json()).to.deep.equal({
      error: 'csv_replay_not_a_file',
      detail: 'csv_replay file pipe.csv: it is a named pipe (FIFO), not a file',
    });
  });

  it('answers a broken CSV with 422, naming the file, line and column', async () => {
    const { root } = layout();
    writeFileSync(join(root, 'bad.csv'), 'Time,load\n1,0.5\n2,x\n');
    const res = await post(testServer({ deps: { fileRoot: root } }), 'bad.csv');
    expect(res.statusCode).to.equal(422);
    expect(res.json()).to.include({
      error: 'validation_failed',
      detail: `${join(root, 'bad.csv')}: line 3, column 2 (load): expected a finite decimal number (NaN, infinities and values beyond ±1.8e308 are not replayed), got "x"`,
    });
  });
});

describe('replay log files on the server (read only below --file-root, as csv_replay files)', () => {
  const postReplay = (server: Server, file: string) =>
    server.request({
      method: 'POST',
      url: '/scenarios',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ signal_type: 'logs', name: 'app', rate: 1, log_generator: { type: 'replay', file } }),
    });

  it('is refused with 422 replay_file_disabled without a file root, and read below one', async () => {
    const { root } = layout();
    writeFileSync(join(root, 'sub', 'app.log'), 'GET /a 200\n');
    const refused = await postReplay(testServer(), join(root, 'sub', 'app.log'));
    expect(refused.statusCode, refused.body).to.equal(422);
    expect(refused.json().error).to.equal('replay_file_disabled');
    expect(refused.json().detail).to.match(/^replay file .*app\.log: .*--file-root DIR/);
    expect((await postReplay(testServer({ deps: { fileRoot: root } }), 'sub/app.log')).statusCode).to.equal(201);
  });

  it('refuses with 422 replay_file_outside_root a path that leaves the root, and replay_file_not_a_file a pipe', async () => {
    const { root, outside } = layout();
    execFileSync('mkfifo', [join(root, 'pipe.log')]);
    const server = testServer({ deps: { fileRoot: root } });
    for (const file of ['../outside/secret.csv', join(outside, 'secret.csv'), 'link.csv', '/etc/passwd']) {
      const res = await postReplay(server, file);
      expect(res.statusCode, file).to.equal(422);
      expect(res.json().error, file).to.equal('replay_file_outside_root');
    }
    expect((await postReplay(server, 'pipe.log')).json()).to.deep.equal({
      error: 'replay_file_not_a_file',
      detail: 'replay file pipe.log: it is a named pipe (FIFO), not a file',
    });
  });
});

describe('a file sink onto a file the posted scenario reads (below --file-root)', () => {
  it('is refused with 422 file_sink_cannot_open naming the entry, sink.path and the file, nothing started', async () => {
    const { root } = layout();
    writeFileSync(join(root, 'sub', 'app.log'), 'GET /a 200\n');
    writeFileSync(join(root, 'sub', 'web.yaml'), 'name: web\ndescription: a pack\nmetrics:\n  - name: hits\n');
    symlinkSync(join(root, 'sub', 'load.csv'), join(root, 'sub', 'inner-link.csv'));
    const server = testServer({ deps: { fileRoot: root } });
    const entries = [
      { name: 'load', signal_type: 'metrics', rate: 1, generator: { type: 'csv_replay', file: 'sub/load.csv' } },
      { name: 'app', signal_type: 'logs', rate: 1, log_generator: { type: 'replay', file: 'sub/app.log' } },
      { pack: './sub/web.yaml', signal_type: 'metrics', rate: 1 },
    ];
    for (const [path, input] of [
      ['sub/load.csv', `the csv_replay file ${join(root, 'sub', 'load.csv')}`],
      ['./sub/../sub/inner-link.csv', `the csv_replay file ${join(root, 'sub', 'load.csv')}`],
      ['sub/app.log', `the replay file ${join(root, 'sub', 'app.log')}`],
      ['sub/web.yaml', `the pack file ${join(root, 'sub', 'web.yaml')}`],
    ]) {
      const scenarios = entries.map((entry, i) => (i === 0 ? { ...entry, sink: { type: 'file', path } } : entry));
      const res = await server.postJson('/scenarios', { version: 2, kind: 'runnable', scenarios });
      expect(res.statusCode, res.body).to.equal(422);
      expect(res.json(), path).to.deep.equal({
        error: 'file_sink_cannot_open',
        detail: `load: sink.path: cannot open ${path}: it is ${input} the scenario reads, which writing would overwrite`,
      });
    }
    expect(server.registry.list()).to.deep.equal([]);
  });
});

describe('a file sink onto a file a running scenario reads (below --file-root)', () => {
  it('is refused with 422 file_sink_cannot_open naming the running scenario, until it is deleted', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    const reader = await post(server, 'sub/load.csv');
    expect(reader.statusCode, reader.body).to.equal(201);
    const { id } = reader.json();
    const writer = (path: string) => metric({ name: 'out', sink: { type: 'file', path } });
    const event = {
      signal_type: 'metrics',
      labels: {},
      metric: { name: 'deploys_total', value: 3 },
      encoder: { type: 'metrics_text' },
      sink: { type: 'file', path: 'sub/../sub/load.csv' },
    };
    const read = `the csv_replay file ${join(root, 'sub', 'load.csv')} that running scenario ${id} (load) reads`;
    const refused = await server.postJson('/scenarios', writer('sub/load.csv'));
    expect(refused.json()).to.deep.equal({
      error: 'file_sink_cannot_open',
      detail: `out: sink.path: cannot open sub/load.csv: it is ${read}, which writing would overwrite`,
    });
    expect((await server.postJson('/events', event)).json()).to.deep.equal({
      error: 'file_sink_cannot_open',
      detail: `sink.path: cannot open sub/../sub/load.csv: it is ${read}, which writing would overwrite`,
    });
    expect(readFileSync(join(root, 'sub', 'load.csv'), 'utf8')).to.equal('Time,load\n1,0.5\n2,0.75\n');
    expect((await server.request({ method: 'DELETE', url: `/scenarios/${id}` })).statusCode).to.equal(200);
    expect((await server.postJson('/scenarios', writer('sub/load.csv'))).statusCode).to.equal(201);
  });

  it('names only the scenarios of its file still running, a few of them, as the readers', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    const others = Array.from({ length: 5 }, (_, i) => metric({ name: `other${i}` }));
    const scenarios = [{ ...entry('sub/load.csv'), sink: { type: 'stdout' } }, ...others];
    const posted = await server.postJson('/scenarios', { version: 2, kind: 'runnable', scenarios });
    expect(posted.statusCode, posted.body).to.equal(201);
    const ids = (posted.json().scenarios as { id: string }[]).map(({ id }) => id);
    expect((await server.request({ method: 'DELETE', url: `/scenarios/${ids[0]}` })).statusCode).to.equal(200);
    const refused = await server.postJson(
      '/scenarios',
      metric({ name: 'out', sink: { type: 'file', path: 'sub/load.csv' } }),
    );
    const running = ids.slice(1, 4).map((id, i) => `${id} (other${i})`);
    expect(refused.json()).to.deep.equal({
      error: 'file_sink_cannot_open',
      detail: `out: sink.path: cannot open sub/load.csv: it is the csv_replay file ${join(root, 'sub', 'load.csv')} that the running scenarios ${running.join(', ')} and 2 more, started together, read, which writing would overwrite`,
    });
  });

  it('looks at each file the running scenarios read once for a POST, not once for each of its file sinks', async () => {
    const { root } = layout();
    // Only a sink onto a file that exists is compared with them.
    for (let i = 0; i < 5; i++) writeFileSync(join(root, `out${i}.prom`), '');
    const server = testServer({ deps: { fileRoot: root } });
    expect((await post(server, 'sub/load.csv')).statusCode).to.equal(201);
    const scenarios = Array.from({ length: 5 }, (_, i) =>
      metric({ name: `out${i}`, sink: { type: 'file', path: `out${i}.prom` } }),
    );
    const looks = await looksAt(join(root, 'sub', 'load.csv'), async () => {
      const posted = await server.postJson('/scenarios', { version: 2, kind: 'runnable', scenarios });
      expect(posted.statusCode, posted.body).to.equal(201);
    });
    expect(looks).to.equal(1);
  });

  it('is refused to an --autostart scenario writing the file another --autostart scenario reads, in either order', async () => {
    // Before, both started: the writer emptied the reader's CSV, and the reader did not start again at the next start.
    const { root } = layout();
    const dir = join(root, 'catalog');
    mkdirSync(dir);
    writeFileSync(join(dir, 'reader.yaml'), JSON.stringify({ ...entry('../sub/load.csv'), name: 'reader' }));
    writeFileSync(
      join(dir, 'writer.yaml'),
      JSON.stringify(metric({ name: 'writer', sink: { type: 'file', path: 'sub/load.csv' } })),
    );
    const catalog = await Catalog.open(dir, undefined, '--catalog', root);
    const refusals = await bothOrders(catalog, root, 'reader', 'writer');
    const refusal = `--autostart @writer: writer: sink.path: cannot open sub/load.csv: it is the csv_replay file ${join(root, 'sub', 'load.csv')} that --autostart @reader reads, which writing would overwrite`;
    expect(refusals).to.deep.equal([refusal, refusal]);
  });
});

describe('a scenario reading a file a running scenario writes (below --file-root)', () => {
  it('is refused with 422 file_being_written naming the file and its writer, until the writer is deleted', async () => {
    const { root } = layout();
    writeFileSync(join(root, 'sub', 'app.log'), 'GET /a 200\n');
    symlinkSync(join(root, 'sub', 'load.csv'), join(root, 'sub', 'link.csv'));
    // Another path of the same file, which no path resolved leads to: found by device and inode.
    linkSync(join(root, 'sub', 'load.csv'), join(root, 'sub', 'hard.csv'));
    const server = testServer({ deps: { fileRoot: root } });
    const writer = await server.postJson(
      '/scenarios',
      metric({ name: 'out', sink: { type: 'file', path: 'sub/load.csv' } }),
    );
    expect(writer.statusCode, writer.body).to.equal(201);
    const { id } = writer.json();
    const writes = `it is the file that running scenario ${id} (out) writes, which reading would take still growing, its last line perhaps cut. Read a copy, or start this scenario once nothing writes it`;
    for (const [file, read] of [
      ['sub/load.csv', `the csv_replay file ${join(root, 'sub', 'load.csv')}`],
      ['sub/link.csv', `the csv_replay file ${join(root, 'sub', 'load.csv')}`],
      ['sub/hard.csv', `the csv_replay file ${join(root, 'sub', 'hard.csv')}`],
    ])
      expect((await post(server, file)).json(), file).to.deep.equal({
        error: 'file_being_written',
        detail: `${read}: cannot read it: ${writes}`,
      });
    // Another file of the root is read as before.
    const app = { name: 'app', signal_type: 'logs', rate: 1, log_generator: { type: 'replay', file: 'sub/app.log' } };
    expect((await server.postJson('/scenarios', app)).statusCode).to.equal(201);
    expect(server.registry.unended().map((started) => started.name)).to.deep.equal(['out', 'app']);
    expect((await server.request({ method: 'DELETE', url: `/scenarios/${id}` })).statusCode).to.equal(200);
    expect((await post(server, 'sub/load.csv')).statusCode).to.equal(201);
  });

  it('is refused while a deleted writer flushes, and read once its DELETE is answered', async () => {
    const { root } = layout();
    const sink = new HeldCloseSink();
    const server = testServer({
      deps: { fileRoot: root },
      registry: { createSink: (entry) => (entry.sink.type === 'file' ? sink : new MemorySink()) },
    });
    const writer = await server.postJson(
      '/scenarios',
      metric({ name: 'out', sink: { type: 'file', path: 'sub/load.csv' } }),
    );
    expect(writer.statusCode, writer.body).to.equal(201);
    const { id } = writer.json();
    const deleting = server.request({ method: 'DELETE', url: `/scenarios/${id}` });
    await sink.closing;
    // Its last bytes are not written yet: before, it had left the writers as its flush began, and this was read.
    expect((await post(server, 'sub/load.csv')).json()).to.deep.equal({
      error: 'file_being_written',
      detail: `the csv_replay file ${join(root, 'sub', 'load.csv')}: cannot read it: it is the file that running scenario ${id} (out), being deleted, writes, which reading would take still growing, its last line perhaps cut. Read a copy, or start this scenario once nothing writes it`,
    });
    sink.finish();
    expect((await deleting).statusCode).to.equal(200);
    expect((await post(server, 'sub/load.csv')).statusCode).to.equal(201);
  });

  it('is refused when its writer, running as it was compiled, was deleted before its turn', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    const writer = await server.postJson(
      '/scenarios',
      metric({ name: 'out', sink: { type: 'file', path: 'sub/load.csv' } }),
    );
    const { id } = writer.json();
    const { registry } = server;
    // A turn held until the writer is gone, and the reader's ask for the next: compiled by then.
    const { queued, open, held } = heldTurn(registry);
    const reading = post(server, 'sub/load.csv');
    // An answer before its turn (a check moved before it) would not be this race.
    await Promise.race([queued, reading]);
    expect((await server.request({ method: 'DELETE', url: `/scenarios/${id}` })).statusCode).to.equal(200);
    open();
    await held;
    // What it read was written as it read it, perhaps cut: before, nothing wrote the file at its turn, and it started.
    expect((await reading).json()).to.deep.equal({
      error: 'file_being_written',
      detail: `the csv_replay file ${join(root, 'sub', 'load.csv')}: cannot read it: it is the file that scenario ${id} (out), ended since, wrote as it was read, which reading would take still growing, its last line perhaps cut. Read a copy, or start this scenario once nothing writes it`,
    });
    // Read again, with nothing writing it, it is started.
    expect((await post(server, 'sub/load.csv')).statusCode).to.equal(201);
    expect(registry.unended().map((started) => started.name)).to.deep.equal(['load']);
  });

  it('counts as its writers those started while its file was read, ended by its turn', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    const { registry } = server;
    let read!: () => void;
    const reading = registry.reading(() => new Promise<void>((resolve) => (read = resolve)));
    const writer = await server.postJson(
      '/scenarios',
      metric({ name: 'out', sink: { type: 'file', path: 'sub/load.csv' } }),
    );
    const { id } = writer.json();
    expect((await server.request({ method: 'DELETE', url: `/scenarios/${id}` })).statusCode).to.equal(200);
    read();
    const { wrote } = await reading;
    expect(registry.writes(wrote)).to.deep.equal([
      {
        path: join(root, 'sub', 'load.csv'),
        what: `the file that scenario ${id} (out), ended since, wrote as it was read`,
      },
    ]);
    // A compile that began once it was gone is not refused for it.
    expect((await registry.reading(async () => undefined)).wrote).to.deep.equal([]);
  });

  it('looks at a file it reads no more often with a writer running than without, its own file sinks compared too', async () => {
    /** How many times a POST reading load.csv and writing out.prom looks at load.csv, `writing` running or not. */
    async function looks(writing: boolean): Promise<number> {
      const { root } = layout();
      writeFileSync(join(root, 'out.prom'), '');
      const server = testServer({ deps: { fileRoot: root } });
      if (writing) {
        const writer = metric({ name: 'w', sink: { type: 'file', path: 'w.prom' } });
        expect((await server.postJson('/scenarios', writer)).statusCode).to.equal(201);
      }
      const reader = { ...entry('sub/load.csv'), sink: { type: 'file', path: 'out.prom' } };
      return looksAt(join(root, 'sub', 'load.csv'), async () => {
        const posted = await server.postJson('/scenarios', reader);
        expect(posted.statusCode, posted.body).to.equal(201);
      });
    }
    // Before, compared with the files written, then with its sinks' files, it was looked at once more.
    expect(await looks(true)).to.equal(await looks(false));
  });

  it('is answered 201 to one and 422 to the other of a reader and a writer posted at once, in either order', async () => {
    // Before, each was checked against the scenarios running as its check began: both started.
    for (const order of [
      ['reader', 'writer'],
      ['writer', 'reader'],
    ]) {
      const { root } = layout();
      const server = testServer({ deps: { fileRoot: root } });
      const writers = ['sub/load.csv', ...Array.from({ length: 20 }, (_, i) => `out${i}.prom`)].map((path, i) =>
        metric({ name: `out${i}`, sink: { type: 'file', path } }),
      );
      const posted = {
        reader: () => post(server, 'sub/load.csv'),
        // Its other sinks' checks keep it preparing while the reader is.
        writer: () => server.postJson('/scenarios', { version: 2, kind: 'runnable', scenarios: writers }),
      };
      const answers = await Promise.all(order.map((name) => posted[name as keyof typeof posted]()));
      const statuses = answers.map((res) => res.statusCode);
      expect(
        [...statuses].sort(),
        `${order}: ${answers.map((res) => res.json().error ?? res.statusCode)}`,
      ).to.deep.equal([201, 422]);
      const refused = answers.find((res) => res.statusCode === 422)!.json().error;
      expect(refused).to.be.oneOf(['file_sink_cannot_open', 'file_being_written']);
      expect(server.registry.unended()).to.have.length(refused === 'file_being_written' ? 21 : 1);
    }
  });

  it('names the writers of a file written by several running scenarios', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    const ids: string[] = [];
    for (const name of ['a', 'b'])
      ids.push(
        (await server.postJson('/scenarios', metric({ name, sink: { type: 'file', path: 'sub/load.csv' } }))).json().id,
      );
    expect((await post(server, 'sub/load.csv')).json()).to.deep.equal({
      error: 'file_being_written',
      detail: `the csv_replay file ${join(root, 'sub', 'load.csv')}: cannot read it: it is the file that the running scenarios ${ids[0]} (a), ${ids[1]} (b) write, which reading would take still growing, its last line perhaps cut. Read a copy, or start this scenario once nothing writes it`,
    });
  });
});

describe('--autostart scenarios writing one file (below --file-root)', () => {
  /** A catalog below a fresh file root, a file for each `encoders` entry: @name writing out.om as it says. */
  async function writers(encoders: Record<string, string>) {
    const { root } = layout();
    const dir = join(root, 'catalog');
    mkdirSync(dir);
    for (const [name, type] of Object.entries(encoders))
      writeFileSync(
        join(dir, `${name}.yaml`),
        JSON.stringify(metric({ encoder: { type }, sink: { type: 'file', path: 'out.om' } })),
      );
    return { root, catalog: await Catalog.open(dir, undefined, '--catalog', root) };
  }

  it('are refused with encodings that cannot share it, naming each entry and its scenario, in either order', async () => {
    // Before, both were prepared: the one started second failed as its sink opened, the server running half of them.
    const { root, catalog } = await writers({ om: 'openmetrics', json: 'json_lines' });
    const refusals = await bothOrders(catalog, root, 'om', 'json');
    const refusal = (ids: string, each: string) =>
      `--autostart: ${ids}: sink.path: cannot open out.om: the entries write it with encodings that cannot share a file (${each}): a file of openmetrics holds nothing but its lines up to its "# EOF". Give them different paths`;
    expect(refusals).to.deep.equal([
      refusal('cpu (@om), cpu (@json)', 'cpu (@om) as openmetrics, cpu (@json) as json_lines'),
      refusal('cpu (@json), cpu (@om)', 'cpu (@json) as json_lines, cpu (@om) as openmetrics'),
    ]);
  });

  it('start with one encoding', async () => {
    const { root, catalog } = await writers({ a: 'json_lines', b: 'json_lines' });
    expect(await prepareAutostart(['a', 'b'], catalog, root)).to.have.length(2);
  });
});
