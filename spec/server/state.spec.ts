import { expect } from 'chai';
import { settle } from '../support/clock.js';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Catalog } from '../../lib/catalog/index.js';
import { prepareAutostart } from '../../lib/server/autostart.js';
import { launchScenario } from '../../lib/server/launch.js';
import { createLogger } from '../../lib/server/logger.js';
import { restoreScenarios } from '../../lib/server/restore.js';
import { ScenarioStore } from '../../lib/server/state.js';
import { metric } from '../support/scenarios.js';
import { heldTurn, testServer } from '../support/server.js';
import { spawnServerProcess, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { waitFor } from '../support/backends/ports.js';
import { collectGarbage } from '../support/memory.js';
import { temporaryDirectory } from '../support/directories.js';
import { strictOpenMetricsCheck } from '../support/promtool.js';

/**
 * `--state DIR` (docs/reliability.md): scenarios started through the API are kept in DIR and started
 * again, with the same ids, by the next server; stopped and deleted ones leave it. In-process (a store,
 * a restore into a fresh registry), then with real `bin/svc-server` processes killed and restarted.
 */

const gauge = (name: string, extra = '') => `signal_type: metrics
name: ${name}
rate: 10
generator: { type: constant, value: 1 }
sink: { type: stdout }
${extra}`;

const TWO = `version: 2
kind: runnable
scenarios:
  - { id: a, signal_type: metrics, name: a_total, rate: 10, generator: { type: constant, value: 1 }, sink: { type: stdout } }
  - { id: b, signal_type: metrics, name: b_total, rate: 10, generator: { type: constant, value: 1 }, sink: { type: stdout } }
`;

const stateDir = () => join(temporaryDirectory('svc-state-'), 'state');
const records = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.json'));

/** What the log says when a DELETE finds `dir` gone: it cannot tell a removed directory from a moved one. */
const goneLog = (dir: string, id: string) =>
  `--state ${dir} no longer exists (removed or moved while the server runs): nothing can be kept there; create it again, owner-only (mkdir -m 700), to keep new scenarios. Scenario ${id} is stopped; if the directory was moved rather than removed, its records were not updated: moved back, they start the scenarios they held again at the next start, this one included`;

/**
 * A server on `dir`, as svc-server wires it: the registry forgets in the store what ends by itself. `realSinks`: its
 * scenarios write to their sinks (files below `fileRoot`), not to memory.
 */
async function serverOn(
  dir: string,
  {
    maxEntries,
    setting,
    fileRoot,
    realSinks,
  }: { maxEntries?: number; setting?: string; fileRoot?: string; realSinks?: boolean } = {},
) {
  const logs: { level: number; msg: string; file?: string; scenario?: string; entry?: string }[] = [];
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk, _encoding, done) {
        logs.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  const state = await ScenarioStore.open(dir, logger, setting);
  const server = testServer({
    deps: { state, fileRoot },
    registry: {
      maxEntries,
      onEnded: (started) => void state.forget(started.id).catch(() => undefined),
      ...(realSinks && { createSink: undefined }),
    },
  });
  const restore = () => restoreScenarios(state, { registry: server.registry, logger, fileRoot });
  const post = (body: string) =>
    server.request({ method: 'POST', url: '/scenarios', headers: { 'content-type': 'text/yaml' }, payload: body });
  const running = () =>
    server.registry
      .list()
      .map((s) => `${s.id} ${s.run.entry.id}`)
      .sort();
  return { server, state, logger, logs, restore, post, running };
}

describe('svc-server --state DIR', () => {
  describe('in process', () => {
    it('keeps a posted scenario owner-only, and a new server starts it again with its id', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      const res = await first.post(gauge('kept_total'));
      expect(res.statusCode, res.body).to.equal(201);
      const [file] = records(dir);
      expect(statSync(dir).mode & 0o777).to.equal(0o700);
      expect(statSync(join(dir, file!)).mode & 0o777).to.equal(0o600);
      expect(JSON.parse(readFileSync(join(dir, file!), 'utf8'))).to.deep.equal({
        svc_state: 'svc-state/1',
        format: 'yaml',
        ids: { kept_total: res.json().id },
        body: gauge('kept_total'),
      });

      const second = await serverOn(dir);
      expect(await second.restore()).to.equal(1);
      expect(second.logs.at(-1)?.msg).to.equal('--state: started 1 scenario again');
      expect(second.running()).to.deep.equal([`${res.json().id} kept_total`]);
      second.server.advance(950);
      expect(second.server.sinks[0]!.text.split('\n').filter(Boolean)).to.have.length(10);
    });

    it('logs each warning of a scenario with its id, and the record it started again from', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      // Two entries of one series: the second is warned of the first.
      const res = await first.post(TWO.replaceAll('b_total', 'a_total'));
      const ids = Object.fromEntries(res.json().scenarios.map((s: { id: string; entry: string }) => [s.entry, s.id]));
      const warned = (logs: readonly Record<string, unknown>[]) =>
        logs.filter((line) => line.level === 40).map(({ scenario, entry, file }) => ({ scenario, entry, file }));
      // The POST logs in the server's logger; the restore in the one it is given.
      expect(warned(first.server.logs)).to.deep.equal([{ scenario: ids.b, entry: 'b', file: undefined }]);
      await first.state.idle();

      const second = await serverOn(dir);
      await second.restore();
      const file = join(dir, records(dir)[0]!);
      expect(warned(second.logs)).to.deep.equal([{ scenario: ids.b, entry: 'b', file }]);
      expect(second.logs.find((line) => line.msg === 'scenario started')).to.include({ file });
    });

    it("keeps running an openmetrics scenario started again onto a file whose last line is another encoder's, and warns with its id and the file", async () => {
      // A decision (docs/reliability.md): the scenario goes on as before the restart, its family's metadata written
      // again, rather than staying stopped over lines another tool added to its file.
      const dir = stateDir();
      const root = realpathSync(temporaryDirectory('svc-state-root-'));
      const out = join(root, 'mixed.om');
      writeFileSync(out, '# TYPE filed gauge\nfiled 1 0\n{"message":"deployed"}\n');
      mkdirSync(dir, { mode: 0o700 });
      const id = randomUUID();
      const body = `${gauge('filed').replace('sink: { type: stdout }', `sink: { type: file, path: ${out} }`)}encoder: { type: openmetrics }\n`;
      const record = { svc_state: 'svc-state/1', format: 'yaml', ids: { filed: id }, body };
      writeFileSync(join(dir, 'kept.json'), JSON.stringify(record), { mode: 0o600 });

      const server = await serverOn(dir, { fileRoot: root, realSinks: true });
      expect(await server.restore()).to.equal(1);
      server.server.advance(250);
      const [started] = server.server.registry.list();
      const stats = (await server.server.request({ method: 'GET', url: `/scenarios/${id}/stats` })).json();
      expect(stats.sink_warnings).to.have.length(1);
      await started!.run.stop();
      expect(started!.run.stats.totalEvents).to.equal(3);
      expect(readFileSync(out, 'utf8')).to.match(
        /^\{"message":"deployed"\}\n# TYPE filed gauge\n(filed 1 \S+\n){3}# EOF\n$/m,
      );
      expect(
        // The registry's log, where each warning of a running scenario's sink goes.
        server.server.logs.filter((line) => line.level === 40).map(({ scenario, msg }) => ({ scenario, msg })),
      ).to.deep.equal([
        {
          scenario: id,
          msg: `file sink: appending to ${out}: its last line is not OpenMetrics ("{\\"message\\":\\"deployed\\"}"): the file holds another encoder's lines, where an OpenMetrics reader would stop. The scenario appends to it all the same, its # TYPE and # HELP lines included; give it another path for a file that OpenMetrics readers read whole`,
        },
      ]);
    });

    it('compares each record started again with those started before it, as a POST is with the running ones', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      for (const _ of [1, 2]) expect((await first.post(gauge('same_total'))).statusCode).to.equal(201);
      expect(first.server.logs.filter((line) => line.level === 40)).to.have.length(1);
      await first.state.idle();

      const second = await serverOn(dir);
      expect(await second.restore()).to.equal(2);
      const warnings = second.logs.filter((line) => line.level === 40).map((line) => line.msg);
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.match(
        /^same_total: writes the same series as same_total \(scenario [\w-]+\): same_total /,
      );
    });

    /** A state directory keeping one record, a scenario replaying load.csv below a file root: its record's name. */
    const keptReader = async () => {
      const dir = stateDir();
      const root = realpathSync(temporaryDirectory('svc-state-root-'));
      writeFileSync(join(root, 'load.csv'), 'Time,load\n1,0.5\n');
      const first = await serverOn(dir, { fileRoot: root });
      const reader = gauge('load').replace('{ type: constant, value: 1 }', '{ type: csv_replay, file: load.csv }');
      expect((await first.post(reader)).statusCode).to.equal(201);
      await first.state.idle();
      const [record] = records(dir);
      return { dir, root, record };
    };

    it('leaves on disk, logged, a record reading a file that an --autostart scenario, started before it, writes', async () => {
      const { dir, root, record } = await keptReader();

      mkdirSync(join(root, 'catalog'));
      writeFileSync(
        join(root, 'catalog', 'writer.yaml'),
        JSON.stringify(metric({ name: 'writer', sink: { type: 'file', path: 'load.csv' } })),
      );
      const catalog = await Catalog.open(join(root, 'catalog'), undefined, '--catalog', root);
      const second = await serverOn(dir, { fileRoot: root });
      // As svc-server starts them: the --autostart scenarios, then the kept ones.
      for (const prepared of await prepareAutostart(['writer'], catalog, root))
        launchScenario({ registry: second.server.registry, logger: second.logger }, prepared);
      const [writer] = second.server.registry.unended();
      expect(await second.restore()).to.equal(0);
      const where = join(dir, record!);
      expect(second.logs.filter((line) => line.level === 50).map((line) => line.msg)).to.deep.equal([
        `--state: could not start ${where} again: the csv_replay file ${join(root, 'load.csv')}: cannot read it: it is the file that running scenario ${writer!.id} (writer) writes, which reading would take still growing, its last line perhaps cut. Read a copy, or start this scenario once nothing writes it`,
      ]);
      expect(records(dir)).to.deep.equal([record]);
    });

    it('leaves on disk, logged, a record whose file was written as it was read, by a scenario deleted before its turn', async () => {
      const { dir, root, record } = await keptReader();

      const second = await serverOn(dir, { fileRoot: root });
      const { registry } = second.server;
      const writer = await second.post(
        JSON.stringify(metric({ name: 'writer', sink: { type: 'file', path: 'load.csv' } })),
      );
      expect(writer.statusCode, writer.body).to.equal(201);
      const { id } = writer.json();
      // The record compiled while the writer ran, which is deleted before the record's turn.
      const { queued, open, held } = heldTurn(registry);
      const restoring = second.restore();
      await queued;
      expect((await second.server.request({ method: 'DELETE', url: `/scenarios/${id}` })).statusCode).to.equal(200);
      open();
      await held;
      // Before, nothing wrote the file at its turn, and it started.
      expect(await restoring).to.equal(0);
      const where = join(dir, record!);
      expect(second.logs.filter((line) => line.level === 50).map((line) => line.msg)).to.deep.equal([
        `--state: could not start ${where} again: the csv_replay file ${join(root, 'load.csv')}: cannot read it: it is the file that scenario ${id} (writer), ended since, wrote as it was read, which reading would take still growing, its last line perhaps cut. Read a copy, or start this scenario once nothing writes it`,
      ]);
      await second.state.idle();
      expect(records(dir)).to.deep.equal([record]);
    });

    it('starts one of a record writing a file and a POST reading it served during the start, not both', async () => {
      // Before the start in turn (EntryRegistry.inTurn), each was checked before the other started, and both started.
      const dir = stateDir();
      const root = realpathSync(temporaryDirectory('svc-state-root-'));
      writeFileSync(join(root, 'load.csv'), 'Time,load\n1,0.5\n');
      const first = await serverOn(dir, { fileRoot: root });
      // Its other sinks' checks keep it preparing while the POST is.
      const writers = ['load.csv', ...Array.from({ length: 20 }, (_, i) => `out${i}.prom`)].map((path, i) =>
        metric({ name: `out${i}`, sink: { type: 'file', path } }),
      );
      const kept = await first.post(JSON.stringify({ version: 2, kind: 'runnable', scenarios: writers }));
      expect(kept.statusCode, kept.body).to.equal(201);
      await first.state.idle();

      const second = await serverOn(dir, { fileRoot: root });
      // The reader's, of sinks of its own, too: each is then checked while the other is.
      const reader = {
        version: 2,
        kind: 'runnable',
        scenarios: [
          metric({ name: 'load', generator: { type: 'csv_replay', file: 'load.csv' } }),
          ...Array.from({ length: 20 }, (_, i) =>
            metric({ name: `in${i}`, sink: { type: 'file', path: `in${i}.prom` } }),
          ),
        ],
      };
      const [restored, posted] = await Promise.all([second.restore(), second.post(JSON.stringify(reader))]);
      const outcome = `restored ${restored}, posted ${posted.statusCode} ${posted.json().error ?? ''}`;
      expect(outcome).to.be.oneOf(['restored 21, posted 422 file_being_written', 'restored 0, posted 201 ']);
      expect(second.server.registry.unended()).to.have.length(21);
    });

    it('takes a deleted entry out of its file, and the file away with the last one', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      const { scenarios } = (await first.post(TWO)).json() as { scenarios: { id: string; entry: string }[] };
      const idOf = Object.fromEntries(scenarios.map((s) => [s.entry, s.id]));
      expect((await first.server.request({ method: 'DELETE', url: `/scenarios/${idOf.a}` })).statusCode).to.equal(200);
      expect(JSON.parse(readFileSync(join(dir, records(dir)[0]!), 'utf8')).ids).to.deep.equal({ b: idOf.b });

      const second = await serverOn(dir);
      await second.restore();
      expect(second.running()).to.deep.equal([`${idOf.b} b`]);
      expect((await second.server.request({ method: 'DELETE', url: `/scenarios/${idOf.b}` })).statusCode).to.equal(200);
      expect(records(dir)).to.deep.equal([]);
    });

    it('takes a deleted scenario out of a copy of its record too: it does not come back at the next start', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      const { id } = (await first.post(gauge('copied_total'))).json();
      const [file] = records(dir);
      // An operator's backup beside the record, as `cp` makes it.
      writeFileSync(join(dir, `${file!.slice(0, -'.json'.length)}-backup.json`), readFileSync(join(dir, file!)));

      const second = await serverOn(dir);
      expect(await second.restore()).to.equal(1);
      expect((await second.server.request({ method: 'DELETE', url: `/scenarios/${id}` })).statusCode).to.equal(200);
      expect(records(dir)).to.deep.equal([]);

      const third = await serverOn(dir);
      expect(await third.restore()).to.equal(0);
      expect(third.running()).to.deep.equal([]);
    });

    describe('an `after` entry whose watched entry was deleted', () => {
      const AFTER = `version: 2
kind: runnable
defaults: { signal_type: metrics, rate: 10, sink: { type: stdout } }
scenarios:
  - { name: cpu, generator: { type: step, start: 0, step_size: 1 } }
  - { name: alert, generator: { type: constant, value: 1 }, after: { ref: cpu, op: '>', value: 4, delay: 200ms } }
`;
      const postAfter = async (first: Awaited<ReturnType<typeof serverOn>>) => {
        const { scenarios } = (await first.post(AFTER)).json() as { scenarios: { id: string; entry: string }[] };
        return Object.fromEntries(scenarios.map((s) => [s.entry, s.id]));
      };

      it('starts again at once, with its id, when it had triggered', async () => {
        const dir = stateDir();
        const first = await serverOn(dir);
        const idOf = await postAfter(first);
        first.server.advance(1000); // cpu passes 4 at 500 ms: alert runs from 700 ms
        expect(first.server.registry.get(idOf.alert!)!.tickingSince()).to.equal(700);
        expect((await first.server.request({ method: 'DELETE', url: `/scenarios/${idOf.cpu}` })).statusCode).to.equal(
          200,
        );

        const second = await serverOn(dir);
        expect(await second.restore()).to.equal(1);
        expect(second.logs.filter((line) => line.level >= 50)).to.deep.equal([]);
        expect(second.running()).to.deep.equal([`${idOf.alert} alert`]);
        second.server.advance(250);
        expect(second.server.registry.get(idOf.alert!)!.tickingSince()).to.equal(0);
        expect(second.server.sinks[0]!.text.split('\n').filter(Boolean)).to.have.length(3);
      });

      it('ends with it, and leaves the state, when it was still waiting', async () => {
        const dir = stateDir();
        const first = await serverOn(dir);
        const idOf = await postAfter(first);
        first.server.advance(300);
        expect((await first.server.request({ method: 'DELETE', url: `/scenarios/${idOf.cpu}` })).statusCode).to.equal(
          200,
        );
        await first.server.registry.get(idOf.alert!)!.run.done;
        await settle();
        await first.state.idle();
        expect(records(dir)).to.deep.equal([]);
      });
    });

    describe('an entry whose `while` or `from` names an entry that was deleted', () => {
      const WATCHING = `version: 2
kind: runnable
defaults: { rate: 10, sink: { type: stdout } }
scenarios:
  - { signal_type: metrics, name: cpu, generator: { type: step, start: 0, step_size: 1 } }
  - { signal_type: metrics, name: gated, generator: { type: constant, value: 1 }, while: { ref: cpu, op: '>', value: 4 } }
  - signal_type: traces
    name: checkout
    trace_generator: { services: { frontend: {} }, root: { service: frontend, operation: GET /, kind: server } }
  - signal_type: metrics
    name: requests_total
    metric_type: counter
    generator: { type: step, start: 0, step_size: 1 }
    exemplars: { from: checkout }
    encoder: { type: openmetrics }
`;
      const restoredWithout = async (deleted: string[]) => {
        const dir = stateDir();
        const first = await serverOn(dir);
        const { scenarios } = (await first.post(WATCHING)).json() as { scenarios: { id: string; entry: string }[] };
        const idOf = Object.fromEntries(scenarios.map((s) => [s.entry, s.id]));
        first.server.advance(1000); // cpu passes 4 at 500 ms: the gate is open
        for (const entry of deleted)
          expect(
            (await first.server.request({ method: 'DELETE', url: `/scenarios/${idOf[entry]}` })).statusCode,
          ).to.equal(200);
        const second = await serverOn(dir);
        return { second, idOf, started: await second.restore() };
      };

      /** What the counter wrote (OpenMetrics, whose exemplars carry trace_id). */
      const counterText = ({ server }: Awaited<ReturnType<typeof serverOn>>) =>
        server.sinks.map((sink) => sink.text).find((text) => text.includes('requests_total'))!;

      it('starts again with its id, its gate closed and its exemplars naming no span, and says so in the log', async () => {
        const { second, idOf, started } = await restoredWithout(['cpu', 'checkout']);
        expect(started).to.equal(2);
        expect(second.logs.filter((line) => line.level >= 50)).to.deep.equal([]);
        expect(second.running()).to.deep.equal([`${idOf.gated} gated`, `${idOf.requests_total} requests_total`].sort());
        expect(
          second.logs.filter((line) => line.level === 40).map((line) => line.msg.replace(/^.*\.json: /, '')),
        ).to.deep.equal([
          'gated: its while gate stays closed: "cpu", the entry it watches, was deleted',
          'requests_total: its exemplars name no span: "checkout", the traces entry they named, was deleted',
        ]);
        // With the scenario and entry, as the other warnings of a scenario are.
        expect(
          second.logs.filter((line) => line.level === 40).map(({ scenario, entry }) => ({ scenario, entry })),
        ).to.deep.equal([
          { scenario: idOf.gated, entry: 'gated' },
          { scenario: idOf.requests_total, entry: 'requests_total' },
        ]);
        second.server.advance(1000);
        const stats = async (entry: string) =>
          (await second.server.request({ method: 'GET', url: `/scenarios/${idOf[entry]}/stats` })).json();
        expect((await stats('gated')).total_events).to.equal(0);
        expect((await stats('requests_total')).total_events).to.equal(11);
        expect(counterText(second))
          .to.match(/^requests_total 10 /m)
          .and.not.match(/trace_id/);
      });

      it('with nothing deleted, watches and names the entries of its record as before', async () => {
        const { second, started } = await restoredWithout([]);
        expect(started).to.equal(4);
        second.server.advance(1000);
        const gated = second.server.registry.list().find((s) => s.run.entry.id === 'gated')!;
        expect(gated.run.stats.totalEvents).to.be.above(0);
        expect(counterText(second)).to.match(/trace_id="[0-9a-f]{32}"/);
      });
    });

    it('forgets an entry whose duration ended: the next server does not start it', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      const ended = (await first.post(gauge('short_total', 'duration: 200ms'))).json().id;
      const kept = (await first.post(gauge('long_total'))).json().id;
      first.server.advance(500);
      await first.server.registry.get(ended)!.run.done;
      await settle();
      await first.state.idle();
      const second = await serverOn(dir);
      await second.restore();
      expect(second.running()).to.deep.equal([`${kept} long_total`]);
    });

    it('says why, and that it comes back at restart, when the record of a scenario that ended by itself cannot be updated', async () => {
      // Before, the line said only `--state: could not update <file>`, the reason in a stack trace beside it.
      const dir = stateDir();
      const first = await serverOn(dir);
      const ended = (await first.post(gauge('short_total', 'duration: 200ms'))).json().id;
      const [file] = records(dir);
      rmSync(join(dir, file!));
      mkdirSync(join(dir, file!));
      writeFileSync(join(dir, file!, 'x'), '');
      first.server.advance(500);
      await first.server.registry.get(ended)!.run.done;
      await settle();
      await first.state.idle();
      const line = first.logs.find((one) => one.msg.startsWith(`--state: could not update ${join(dir, file!)}`));
      expect(line?.msg).to.match(
        new RegExp(
          `: EISDIR: .*; it still holds scenario ${ended}, stopped, which will start again when the server restarts: delete it then \\(the record may hold other scenarios of its POST, still running\\)$`,
        ),
      );
      expect(line).to.not.have.property('err');
    });

    it('reports corrupt and foreign files with their path and starts the others', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      const { id } = (await first.post(gauge('good_total'))).json();
      writeFileSync(join(dir, 'corrupt.json'), '{"svc_state": "svc-state/1", "format": "ya');
      writeFileSync(join(dir, 'foreign.json'), '{"hello": "world"}');
      writeFileSync(
        join(dir, 'invalid.json'),
        JSON.stringify({ svc_state: 'svc-state/1', format: 'yaml', body: 'x: [', ids: { x: id.replace(/./, 'f') } }),
      );

      const second = await serverOn(dir);
      expect(await second.restore()).to.equal(1);
      expect(second.running()).to.deep.equal([`${id} good_total`]);
      const errors = second.logs.filter((line) => line.level === 50).map((line) => line.msg);
      expect(errors).to.have.length(3);
      expect(errors[0]).to.match(/^--state: skipped .*corrupt\.json: not JSON/);
      expect(errors[1]).to.match(/^--state: skipped .*foreign\.json: not a state record of this svc-server/);
      expect(errors[2]).to.match(/^--state: could not start .*invalid\.json again: /);
      // Left for the operator to look at.
      expect(records(dir)).to.have.length(4);
    });

    it('says a record it cannot start again is refused by the checks of this version, naming the field', async () => {
      // A body stored before a check was added: the log said only 'could not start … again: <detail>'.
      const dir = stateDir();
      const first = await serverOn(dir);
      const { id } = (await first.post(gauge('good_total'))).json();
      const body =
        'version: 2\nkind: runnable\nscenarios:\n  - {id: x, signal_type: metrics, name: x, rate: 1, generator: {type: constant, value: 1}, sprinkle: 1}\n';
      writeFileSync(
        join(dir, 'old.json'),
        JSON.stringify({ svc_state: 'svc-state/1', format: 'yaml', body, ids: { x: id.replace(/./, 'f') } }),
      );
      const second = await serverOn(dir);
      expect(await second.restore()).to.equal(1);
      const errors = second.logs.filter((line) => line.level === 50).map((line) => line.msg);
      expect(errors).to.have.length(1);
      expect(errors[0]).to.match(
        /^--state: could not start .*old\.json again: this version's checks refuse it \(accepted when it was stored: by an earlier version, or before its catalog changed\): scenarios\[0\] \(x\): sprinkle: unknown field/,
      );
    });

    it('skips a named pipe, a device and a directory named *.json without waiting on them, and starts the others', async function () {
      // Before, opening the pipe waited for a writer: the start never ended, deaf to SIGTERM.
      this.timeout(10_000);
      const dir = stateDir();
      const first = await serverOn(dir);
      const { id } = (await first.post(gauge('good_total'))).json();
      execFileSync('mkfifo', [join(dir, 'pipe.json')]);
      symlinkSync('/dev/zero', join(dir, 'zero.json'));
      mkdirSync(join(dir, 'directory.json'));

      const second = await serverOn(dir);
      expect(await second.restore()).to.equal(1);
      expect(second.running()).to.deep.equal([`${id} good_total`]);
      const errors = second.logs.filter((line) => line.level === 50).map((line) => line.msg);
      expect(errors).to.deep.equal(
        ['directory', 'pipe', 'zero'].map(
          (name) =>
            `--state: skipped ${join(dir, name)}.json: not a regular file (a directory, a named pipe or a device?); remove it, or move it out of the state directory`,
        ),
      );
    });

    it('says where a corrupt record breaks JSON without quoting its text, which may hold a secret', async () => {
      const dir = stateDir();
      mkdirSync(dir);
      writeFileSync(
        join(dir, 'corrupt.json'),
        '{"svc_state": "svc-state/1", "format": "yaml",\n "body": "password: hunter2", "ids": hunter2}',
      );
      const second = await serverOn(dir);
      expect(await second.restore()).to.equal(0);
      const errors = second.logs.filter((line) => line.level === 50).map((line) => line.msg);
      expect(errors).to.have.length(1);
      expect(errors[0]).to.match(/corrupt\.json: not JSON \(Unexpected token 'h' at line 2, column 38\);/);
      expect(JSON.stringify(second.logs)).to.not.include('hunter2');
    });

    it('leaves on disk, with a warning, a record whose entries would go past --max-entries, and starts the others', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      const two = (await first.post(TWO)).json().scenarios.map((s: { id: string }) => s.id);
      const { id } = (await first.post(gauge('one_total'))).json();
      await first.state.idle();

      const second = await serverOn(dir, { maxEntries: 1 });
      expect(await second.restore()).to.equal(1);
      expect(second.running()).to.deep.equal([`${id} one_total`]);
      const warnings = second.logs.filter((line) => line.level === 40).map((line) => line.msg);
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.match(
        /^--state: .*\.json left on disk, not started again: too many scenarios: this server runs at most 1 entry at once \(--max-entries\), 0 run now and this file has 2;/,
      );
      expect(second.logs.at(-1)).to.include({
        records_over_max: 1,
        msg: '--state: started 1 scenario again (1 record left on disk: over --max-entries)',
      });
      expect(records(dir)).to.have.length(2);

      // A server with room starts it again, with its ids.
      const third = await serverOn(dir);
      expect(await third.restore()).to.equal(3);
      expect(third.running()).to.deep.equal([`${two[0]} a`, `${two[1]} b`, `${id} one_total`].sort());
    });

    it('answers 500 and starts nothing when the state cannot be written', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      rmSync(dir, { recursive: true });
      const res = await first.post(gauge('unsaved_total'));
      expect(res.statusCode).to.equal(500);
      expect(res.json()).to.include({ error: 'state_not_written' });
      expect(res.json().detail).to.equal(
        `the scenario was not started: --state ${dir} no longer exists (removed or moved while the server runs): nothing can be kept there; create it again, owner-only (mkdir -m 700), to keep new scenarios`,
      );
      expect(first.server.registry.list()).to.deep.equal([]);
      // The log said it started: its last line about it says that it stopped, and why (before, nothing did).
      const [started] = first.server.logs.filter((line) => line.msg === 'scenario started');
      const { id } = (started!.scenarios as { id: string }[])[0]!;
      expect(first.server.logs.filter((line) => line.scenario === id).at(-1)).to.include({
        level: 50,
        entry: 'unsaved_total',
        msg: `scenario stopped: its POST was answered 500 state_not_written: --state ${dir} no longer exists (removed or moved while the server runs): nothing can be kept there; create it again, owner-only (mkdir -m 700), to keep new scenarios`,
      });
    });

    it('logs as stopped by the rollback only the scenarios it stopped, not those deleted while their record was written', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      // A DELETE that comes while the record is written, which then fails.
      first.state.save = async (_format, _body, ids) => {
        for (const id of ids.values()) await first.server.request({ method: 'DELETE', url: `/scenarios/${id}` });
        throw new Error('ENOSPC: no space left on device');
      };
      expect((await first.post(gauge('deleted_total'))).statusCode).to.equal(500);
      const [started] = first.server.logs.filter((line) => line.msg === 'scenario started');
      const { id } = (started!.scenarios as { id: string }[])[0]!;
      // Before, a second line said the POST's 500 stopped it, though the DELETE had.
      expect(first.server.logs.filter((line) => line.scenario === id).map(({ msg }) => msg)).to.deep.equal([
        'scenario stopped',
      ]);
    });

    it('forgets no ended scenario for a POST it could not write: only a kept start takes their room', async () => {
      const dir = stateDir();
      const first = await serverOn(dir, { maxEntries: 1 });
      const ended = (await first.post(gauge('ended_total', 'duration: 1s'))).json();
      first.server.advance(1100);
      await first.server.registry.get(ended.id)!.run.done;
      rmSync(dir, { recursive: true });
      expect((await first.post(gauge('unsaved_total'))).statusCode).to.equal(500);
      // Before, the start had forgotten it already: a POST answered 500 lost the ended scenario's statistics.
      expect(first.running()).to.deep.equal([`${ended.id} ended_total`]);
      expect(first.logs.map(({ msg }) => msg)).to.not.include.members([
        'scenario forgotten: it had ended, and the scenarios listed were at --max-entries (1): a new one took its place',
      ]);
    });

    it('keeps nothing of a POST it could not write: a client retrying on a full disk does not grow the server', async () => {
      const heap = () => {
        collectGarbage();
        return process.memoryUsage().heapUsed;
      };
      const dir = stateDir();
      const first = await serverOn(dir);
      rmSync(dir, { recursive: true });
      // JSON: a YAML body is held to 128 KiB.
      const body = {
        signal_type: 'metrics',
        name: 'unsaved_total',
        rate: 1,
        generator: { type: 'constant', value: 1 },
        sink: { type: 'stdout' },
        help: 'x'.repeat(500_000),
      };
      const refused = async () => expect((await first.server.postJson('/scenarios', body)).statusCode).to.equal(500);
      await refused();
      const before = heap();
      for (let n = 0; n < 40; n++) await refused();
      // 40 bodies of 500 kB: 20 MB when each refused record stayed in memory.
      expect(heap() - before).to.be.below(5_000_000);
    });

    it('answers a DELETE 500 when the state cannot be written, saying the scenario stopped but will start again', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      const { id } = (await first.post(gauge('undeleted_total'))).json();
      // A fault the deletion cannot get past (root writes read-only directories): the record is a full directory.
      const [file] = records(dir);
      rmSync(join(dir, file!));
      mkdirSync(join(dir, file!));
      writeFileSync(join(dir, file!, 'x'), '');
      const res = await first.server.request({ method: 'DELETE', url: `/scenarios/${id}` });
      expect(res.statusCode).to.equal(500);
      expect(res.json()).to.include({ error: 'state_not_written' });
      expect(res.json().detail).to.match(
        new RegExp(
          `^scenario ${id} was stopped, but --state .* could not be written: .*EISDIR.*; it will start again when the server restarts$`,
        ),
      );
      expect(first.server.registry.list()).to.deep.equal([]);
    });

    it('names the failed removal of a record in an immutable directory (EPERM), not a scandir of the record', async function () {
      const dir = stateDir();
      const first = await serverOn(dir);
      const { id } = (await first.post(gauge('immutable_total'))).json();
      const [file] = records(dir);
      // chattr +i: what stops root from unlinking (it writes read-only directories); not every file system has it.
      try {
        execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
      } catch {
        this.skip();
      }
      try {
        const res = await first.server.request({ method: 'DELETE', url: `/scenarios/${id}` });
        expect(res.statusCode).to.equal(500);
        expect(res.json().detail).to.equal(
          `scenario ${id} was stopped, but --state ${dir} could not be written: EPERM: operation not permitted, unlink '${join(dir, file!)}': permission denied: check that this user may write there, or the directory is immutable (chattr +i) or sticky (chmod +t); it will start again when the server restarts`,
        );
      } finally {
        execFileSync('chattr', ['-i', dir]);
      }
    });

    it('answers a DELETE 200 when the directory was removed: the record went with it, nothing starts it again', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      const { id } = (await first.post(gauge('removed_total'))).json();
      rmSync(dir, { recursive: true });
      const res = await first.server.request({ method: 'DELETE', url: `/scenarios/${id}` });
      expect(res.statusCode, res.body).to.equal(200);
      expect(first.server.registry.list()).to.deep.equal([]);
      expect(first.logs.map((line) => line.msg)).to.include(goneLog(dir, id));
    });

    it('names SVC_STATE_DIR, not --state, in its answers and logs when the variable gave the directory', async () => {
      const dir = stateDir();
      const first = await serverOn(dir, { setting: 'SVC_STATE_DIR' });
      const { id } = (await first.post(gauge('undeleted_total'))).json();
      const [file] = records(dir);
      rmSync(join(dir, file!));
      mkdirSync(join(dir, file!));
      writeFileSync(join(dir, file!, 'x'), '');
      const undeleted = await first.server.request({ method: 'DELETE', url: `/scenarios/${id}` });
      expect(undeleted.json().detail).to.match(
        new RegExp(`^scenario ${id} was stopped, but SVC_STATE_DIR ${dir} could not be written: .*EISDIR`),
      );
      // The log names the variable too, with the same reason the answer gave.
      const reason = /could not be written: (.*); it will start again when the server restarts$/.exec(
        undeleted.json().detail,
      )?.[1];
      expect(reason, undeleted.json().detail).to.match(/EISDIR/);
      expect(first.logs.map((line) => line.msg)).to.include(
        `SVC_STATE_DIR: could not update ${join(dir, file!)}: ${reason}; it still holds scenario ${id}, stopped, which will start again when the server restarts: delete it then (the record may hold other scenarios of its POST, still running)`,
      );
      rmSync(dir, { recursive: true });
      const unsaved = await first.post(gauge('unsaved_total'));
      expect(unsaved.json().detail).to.match(
        new RegExp(`^the scenario was not started: SVC_STATE_DIR ${dir} no longer exists `),
      );
    });

    it('answers a DELETE 200 when the directory was moved, and logs that its record still starts the scenario if moved back, as it does', async () => {
      const dir = stateDir();
      const first = await serverOn(dir);
      const { id } = (await first.post(gauge('moved_total'))).json();
      renameSync(dir, `${dir}.moved`);
      const res = await first.server.request({ method: 'DELETE', url: `/scenarios/${id}` });
      expect(res.statusCode, res.body).to.equal(200);
      expect(first.logs.map((line) => line.msg)).to.include(goneLog(dir, id));
      renameSync(`${dir}.moved`, dir);
      const second = await serverOn(dir);
      expect(await second.restore()).to.equal(1);
      expect(second.running()).to.deep.equal([`${id} moved_total`]);
    });

    it('warns at start when other users may write in DIR: a record put there starts at the next restart', async () => {
      // A record is a POST the server makes itself: from a directory anyone can write in (a DIR made beforehand,
      // mode 0777), any user of the machine started scenarios past the API key. Before, no word of it.
      const dir = stateDir();
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      const first = await serverOn(dir);
      expect(first.logs.map(({ level, msg }) => ({ level, msg }))).to.deep.include({
        level: 40,
        msg: `--state ${dir} is writable by every user of this machine (mode 777): they can put a record there, which the next start starts as a POST it took, API key or not; chown it to this server's user and chmod 700 it, as svc-server makes it`,
      });
      chmodSync(dir, 0o755);
      expect((await serverOn(dir)).logs).to.deep.equal([]);
    });

    it('warns at start when DIR is writable by another group, or owned by another user; not for its own group (fsGroup)', async function () {
      // Before, only a directory writable by every user was warned of.
      if (process.getuid?.() !== 0) this.skip(); // chown to another user takes root
      const warningOf = async (dir: string) =>
        (await serverOn(dir)).logs.filter(({ level }) => level === 40).map(({ msg }) => msg);
      const dir = stateDir();
      mkdirSync(dir);
      chmodSync(dir, 0o770);
      chownSync(dir, 0, 4242);
      expect(await warningOf(dir)).to.deep.equal([
        `--state ${dir} is writable by the users of its group (gid 4242; this server's group is ${process.getgid!()}) (mode 770): they can put a record there, which the next start starts as a POST it took, API key or not; chown it to this server's user and chmod 700 it, as svc-server makes it`,
      ]);
      // A Kubernetes volume under fsGroup: group-writable by the server's own group, setgid.
      chmodSync(dir, 0o2770);
      chownSync(dir, 0, process.getgid!());
      expect(await warningOf(dir)).to.deep.equal([]);
      chmodSync(dir, 0o700);
      chownSync(dir, 4242, process.getgid!());
      expect(await warningOf(dir)).to.deep.equal([
        `--state ${dir} is owned by another user (uid 4242; this server runs as uid ${process.getuid!()}) (mode 700): they can put a record there, which the next start starts as a POST it took, API key or not; chown it to this server's user and chmod 700 it, as svc-server makes it`,
      ]);
    });

    it('refuses a state path that cannot be a directory, naming it', async () => {
      const file = join(temporaryDirectory('svc-state-'), 'file');
      writeFileSync(file, '');
      let error: Error | undefined;
      await ScenarioStore.open(file).catch((e: Error) => (error = e));
      expect(error?.message).to.match(new RegExp(`^--state ${file}: cannot write there: `));
    });
    // Node's recursive mkdir never ends there (and answers a read-only file system with ENOENT, which a spec cannot mount).
    (process.platform === 'linux' ? it : it.skip)(
      'refuses a state path below /proc with the error of its mkdir, instead of trying for ever',
      async () => {
        const dir = `/proc/svc-state-${randomUUID()}`;
        let error: Error | undefined;
        await ScenarioStore.open(dir).catch((e: Error) => (error = e));
        expect(error?.message).to.equal(
          `--state ${dir}: cannot write there: ENOENT: no such file or directory, mkdir '${dir}'`,
        );
      },
    );
  });

  describe('real svc-server processes', function () {
    this.timeout(60_000);
    let server: ServerProcess | undefined;
    afterEach(() => server?.kill());

    /** A server on the state directory, once it logged that it started the kept scenarios again. */
    const restarted = async (options: Parameters<typeof startServerProcess>[0]) => {
      const started = await startServerProcess({ ...options, quiet: true });
      // Its words name the setting that gave the directory: SVC_STATE_DIR when the variable did.
      const line = options?.env?.SVC_STATE_DIR ? 'SVC_STATE_DIR: started' : '--state: started';
      await waitFor('the restore log line', () => started.stderr().includes(line) || undefined, 10_000);
      return started;
    };
    const list = async (base: string) =>
      ((await (await fetch(`${base}/scenarios`)).json()) as { scenarios: { id: string; status: string }[] }).scenarios;

    it('starts the scenarios again with their ids after kill -9, and after SIGTERM (SVC_STATE_DIR)', async () => {
      const dir = stateDir();
      server = await startServerProcess({ args: ['--state', dir], quiet: true });
      const posted = await fetch(`${server.base}/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'text/yaml' },
        body: TWO,
      });
      expect(posted.status).to.equal(201);
      const ids = ((await posted.json()) as { scenarios: { id: string }[] }).scenarios.map((s) => s.id).sort();
      server.child.kill('SIGKILL');
      await server.exited;

      server = await restarted({ args: ['--state', dir] });
      expect((await list(server.base)).map((s) => `${s.id} ${s.status}`).sort()).to.deep.equal(
        ids.map((id) => `${id} running`),
      );
      expect((await fetch(`${server.base}/scenarios/${ids[0]}`, { method: 'DELETE' })).status).to.equal(200);
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);

      server = await restarted({ env: { SVC_STATE_DIR: dir } });
      expect((await list(server.base)).map((s) => s.id)).to.deep.equal([ids[1]]);
    });

    /**
     * Posts a gauge writing `file` below a file root with `fields` (its encoder), lets it write, stops the server with
     * SIGTERM and starts it again on its state: the file's text, and what it held before the restart.
     */
    const restartedFileScenario = async (file: string, fields: string) => {
      const dir = stateDir();
      const root = temporaryDirectory('svc-root-');
      const out = join(root, file);
      const args = ['--state', dir, '--file-root', root];
      server = await startServerProcess({ args, quiet: true });
      const body = `${gauge('filed').replace('sink: { type: stdout }', `sink: { type: file, path: ${out} }`)}${fields}`;
      const posted = await fetch(`${server.base}/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'text/yaml' },
        body,
      });
      expect(posted.status, await posted.clone().text()).to.equal(201);
      const text = () => readFileSync(out, 'utf8');
      await waitFor('lines in the file', () => text().split('\n').length > 5 || undefined, 10_000);
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      const before = text();
      server = await restarted({ args });
      await waitFor('lines written after the restart', () => text().length > before.length || undefined, 10_000);
      return { text, before };
    };

    it('appends to the file of a scenario it starts again: what it wrote before the restart stays', async () => {
      // Before, the restarted scenario opened its file as a new run does, emptying it: a rolled pod lost all its output.
      const { text, before } = await restartedFileScenario('out.jsonl', 'encoder: { type: json_lines }\n');
      expect(text().startsWith(before), 'the file begins with what was written before the restart').to.equal(true);
    });

    it("appends to the file of an openmetrics scenario it starts again without its family's metadata: the strict parser reads the file", async () => {
      // Before, the restarted run wrote `# TYPE`/`# HELP` again after the samples: "Received metadata after samples".
      const { text } = await restartedFileScenario('out.om', 'help: Filed.\nencoder: { type: openmetrics }\n');
      server!.child.kill('SIGTERM');
      expect(await server!.exited).to.equal(0);
      expect(text().match(/^# (TYPE|HELP) .*$/gm)).to.deep.equal(['# TYPE filed gauge', '# HELP filed Filed.']);
      // In whole seconds: Debian's client (0.16) takes 2.1 after 1.5 for time going backwards, comparing the fractions
      // alone when the seconds differ (prometheus/client_python#1037).
      expect(strictOpenMetricsCheck(text().replace(/ (\d+)\.\d+$/gm, ' $1'))).to.equal('ok');
    });

    it('counts in bytes_emitted of an openmetrics scenario it starts again what it appended, its metadata left out', async () => {
      // Before, bytes_emitted counted the first chunk as encoded, its # TYPE and # HELP lines the file never got.
      const { text, before } = await restartedFileScenario('out.om', 'help: Filed.\nencoder: { type: openmetrics }\n');
      const [{ id }] = await list(server!.base);
      const deleted = await fetch(`${server!.base}/scenarios/${id}`, { method: 'DELETE' });
      const { stats } = (await deleted.json()) as { stats: { bytes_emitted: number } };
      // Its # EOF was cut from the end of the file and written again there.
      expect(Buffer.byteLength(text()) - Buffer.byteLength(before)).to.equal(stats.bytes_emitted);
    });

    it('answers readiness 503 starting while it starts the kept scenarios again; SIGTERM then stops the start, flushes and exits 0', async () => {
      const dir = stateDir();
      mkdirSync(dir, { mode: 0o700 });
      const count = 5000;
      for (let i = 0; i < count; i++) {
        const body = `signal_type: metrics\nname: kept_${i}\nrate: 1\ngenerator: { type: constant, value: 1 }\nsink: { type: stdout }\n`;
        const record = { svc_state: 'svc-state/1', format: 'yaml', ids: { [`kept_${i}`]: randomUUID() }, body };
        writeFileSync(join(dir, `${String(i).padStart(9, '0')}.json`), JSON.stringify(record), { mode: 0o600 });
      }
      server = await startServerProcess({ args: ['--state', dir], quiet: true });
      const ready = await fetch(`${server.base}/health?ready`);
      expect([ready.status, ((await ready.json()) as { error: string }).error]).to.deep.equal([503, 'starting']);
      expect((await fetch(`${server.base}/health`)).status).to.equal(200);

      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      expect(server.stderr()).to.match(
        /"msg":"--state: started \d+ scenarios? again, then stopped: shutting down \(\d+ records? left on disk\)"/,
      );
      expect(server.stderr()).to.include('"msg":"stopped"');
      // Stopped by the shutdown, not deleted: the next server starts every one again.
      expect(records(dir)).to.have.length(count);
    });

    it('answers readiness 200 once the kept scenarios started again', async () => {
      const dir = stateDir();
      server = await startServerProcess({ args: ['--state', dir], quiet: true });
      const posted = await fetch(`${server.base}/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'text/yaml' },
        body: gauge('kept_total'),
      });
      expect(posted.status).to.equal(201);
      server.child.kill('SIGKILL');
      await server.exited;
      server = await restarted({ args: ['--state', dir] });
      expect((await fetch(`${server.base}/health?ready`)).status).to.equal(200);
    });

    it('leaves no temporary file when the write of a record fails (a full disk)', async () => {
      const dir = stateDir();
      server = await startServerProcess({ args: ['--state', dir], fileSizeKiB: 1, quiet: true });
      const res = await fetch(`${server.base}/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'text/yaml' },
        body: gauge('big_total', `help: ${'x'.repeat(2000)}`),
      });
      expect(res.status).to.equal(500);
      // The limit is the process's, not the disk's: the answer says which (EFBIG alone read "file too large").
      expect(((await res.json()) as { detail: string }).detail).to.equal(
        `the scenario was not started: --state ${dir} could not be written: EFBIG: file too large, write: the file reached the largest size this process may write (its file size limit, ulimit -f)`,
      );
      expect(readdirSync(dir)).to.deep.equal([]);
    });

    it('refuses an unwritable --state with exit 2, naming it', async () => {
      const file = join(temporaryDirectory('svc-state-'), 'file');
      writeFileSync(file, '');
      const child = spawnServerProcess({ args: ['--state', file] });
      let err = '';
      child.stderr!.on('data', (chunk) => (err += chunk));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).to.equal(2);
      expect(err).to.include(`--state ${file}: cannot write there`);
    });
  });
});
