import { expect } from 'chai';
import { settle } from '../support/clock.js';
import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { asyncScheduler } from 'rxjs';
import { createSink } from '../../lib/sinks/index.js';
import { freeTcpPort, waitFor } from '../support/backends/ports.js';
import { testServer } from '../support/server.js';
import { ReportingSink } from '../support/sinks.js';
import { temporaryDirectory } from '../support/directories.js';

const REFUSED = 'tcp sink: connection refused by 127.0.0.1:9';
const gauge = (fields: Record<string, unknown> = {}) => ({
  signal_type: 'metrics',
  id: 'room',
  name: 'temp_celsius',
  rate: 10,
  generator: { type: 'constant', value: 21.5 },
  ...fields,
});

type Server = ReturnType<typeof testServer>;
async function start(server: Server, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await server.request({
    method: 'POST',
    url: '/scenarios',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(gauge(fields)),
  });
  expect(res.statusCode, res.body).to.equal(201);
  return res.json().id;
}
const listed = async (server: Server, id: string) =>
  (await server.request({ method: 'GET', url: '/scenarios' }))
    .json()
    .scenarios.find((s: { id: string }) => s.id === id);
const detail = async (server: Server, id: string) =>
  (await server.request({ method: 'GET', url: `/scenarios/${id}` })).json();
/** Log lines about scenario `id` at `level` (pino: 30 info, 40 warn, 50 error). */
const logsOf = (server: Server, id: string, level: number) =>
  server.logs.filter((line) => line.scenario === id && line.level === level);

describe('sink failures of server scenarios: status, list and log', () => {
  it('a scenario whose sink never delivered ends failed, with the sink error in the list and the detail', async () => {
    const server = testServer({ failingSink: new Error(REFUSED) });
    const id = await start(server, { duration: '300ms' });
    server.advance(500);
    await settle();
    expect(await listed(server, id)).to.include({ status: 'failed', last_sink_error: REFUSED });
    const one = await detail(server, id);
    expect([one.status, one.stats.last_sink_error, one.stats.last_successful_write_at]).to.deep.equal([
      'failed',
      REFUSED,
      null,
    ]);
    const [ended] = logsOf(server, id, 50);
    // With its counts, which leave with it (a DELETE, a start that needs its room): before, the line had none.
    expect(ended).to.include({
      entry: 'room',
      name: 'temp_celsius',
      sink_error: REFUSED,
      total_events: one.stats.total_events,
      dropped_events: one.stats.dropped_events,
    });
    expect(one.stats.dropped_events).to.be.above(0);
    expect(ended!.msg).to.match(/scenario failed: its sink delivered nothing/);
  });

  it('under on_sink_error: fail, the first sink error ends the scenario failed', async () => {
    const server = testServer({ failingSink: new Error(REFUSED) });
    const id = await start(server, { on_sink_error: 'fail' });
    server.advance(100);
    await settle();
    expect(await listed(server, id)).to.include({ status: 'failed', last_sink_error: REFUSED });
    expect(logsOf(server, id, 50)).to.have.length(1);
  });

  it('a running scenario shows the sink error at once and logs each failing streak once, and the recovery', async () => {
    const server = testServer({ failingSink: new Error(REFUSED) });
    const id = await start(server);
    server.advance(450);
    expect(await listed(server, id)).to.include({ status: 'running', last_sink_error: REFUSED });
    const warnings = logsOf(server, id, 40);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({ entry: 'room', name: 'temp_celsius', sink_error: REFUSED });
    expect(warnings[0]!.msg).to.match(/sink failing/);

    server.sinks[0]!.failWith = undefined;
    server.advance(200);
    expect(
      logsOf(server, id, 30).filter((line) => /sink delivering again after 5 failures/.test(String(line.msg))),
    ).to.have.length(1);
    server.sinks[0]!.failWith = new Error(REFUSED);
    server.advance(300);
    expect(logsOf(server, id, 40)).to.have.length(2);
  });

  it('a receiver refusing part of the data (OTLP partial success): counted in receiver_rejected, logged once per streak', async () => {
    const sink = new ReportingSink();
    const server = testServer({ registry: { createSink: () => sink } });
    const id = await start(server);
    server.advance(100);
    const refused = 'otlp_http sink: the collector refused 2 of 5 data points: "value out of range"';
    // As the batching sink reports a partial success: the taken points, then the refused ones numbered in a row.
    const request = (refusal?: number) => {
      sink.reports.next({ kind: 'delivered', size: refusal ? 3 : 5, bytes: 50 });
      if (refusal) sink.reports.next({ kind: 'failed', size: 2, bytes: 20, error: new Error(refused), refusal });
    };
    for (let n = 1; n <= 20; n++) request(n);
    request();
    request(1);
    request(2);
    const warnings = logsOf(server, id, 40);
    expect(warnings.map((line) => line.msg)).to.deep.equal(
      Array(2).fill(`receiver refusing part of the data (counted in receiver_rejected): ${refused}`),
    );
    expect(logsOf(server, id, 30).filter((line) => /delivering again/.test(String(line.msg)))).to.have.length(0);
    expect((await detail(server, id)).stats).to.include({ receiver_rejected: 44, total_sink_failures: 22 });
  });

  it('a scenario that delivered, then lost batches under warn, ends stopped and keeps the error to read', async () => {
    const server = testServer();
    const id = await start(server, { duration: '500ms' });
    server.advance(150);
    server.sinks[0]!.failWith = new Error(REFUSED);
    server.advance(500);
    await settle();
    expect(await listed(server, id)).to.include({ status: 'stopped', last_sink_error: REFUSED });
    expect(logsOf(server, id, 50)).to.deep.equal([]);
    // Its statistics leave with it (a DELETE, a start that needs its room, the process's exit): the log tells its
    // loss when it ends, as at a stop. Before, only the streak's 'sink failing' warning, without a count.
    const { total_events: total, dropped_events: dropped } = (await detail(server, id)).stats;
    expect(dropped).to.be.above(0);
    expect(logsOf(server, id, 40).at(-1)).to.include({
      msg: `scenario ended: ${dropped} of its ${total} events were not delivered (last sink error: ${REFUSED})`,
      total_events: total,
      dropped_events: dropped,
    });
  });

  it('a scenario whose events were dropped with no sink error (its reader gone) says so when it ends', async () => {
    const sink = new ReportingSink();
    const server = testServer({ registry: { createSink: () => sink } });
    const id = await start(server, { duration: '500ms' });
    server.advance(150);
    sink.reports.next({ kind: 'delivered', size: 1, bytes: 10 });
    // As the stdout sink reports events given up once its reader went away (EPIPE): no failure.
    sink.reports.next({ kind: 'dropped', size: 3, bytes: 30 });
    server.advance(500);
    await settle();
    const { total_events: total } = (await detail(server, id)).stats;
    // Before: '(last sink error: undefined)'.
    expect(logsOf(server, id, 40).at(-1)).to.include({
      msg: `scenario ended: 3 of its ${total} events were not delivered (no sink error: nobody was left to take them, as when the reader of stdout goes away)`,
      dropped_events: 3,
    });
  });

  it('a scenario that ends with everything delivered logs its end and its count', async () => {
    const server = testServer();
    const id = await start(server, { duration: '500ms' });
    server.advance(600);
    await settle();
    expect(logsOf(server, id, 30).at(-1)).to.include({
      msg: 'scenario ended: 5 events',
      entry: 'room',
      total_events: 5,
      dropped_events: 0,
    });
  });

  describe('an after entry whose watched entry ends first logs that it never started, and why', () => {
    /** Posts `src` (counting up, 10 a second) and `dep`, waiting for src > 100 (its tick 101): the ids of both. */
    async function startPair(server: Server, src: Record<string, unknown> = {}): Promise<[string, string]> {
      const res = await server.postJson('/scenarios', {
        version: 2,
        kind: 'runnable',
        scenarios: [
          gauge({ id: 'src', name: 'src', generator: { type: 'step', start: 0, step_size: 1 }, ...src }),
          gauge({ id: 'dep', name: 'dep', after: { ref: 'src', op: '>', value: 100 } }),
        ],
      });
      expect(res.statusCode, res.body).to.equal(201);
      return res.json().scenarios.map((s: { id: string }) => s.id);
    }

    it('deleted', async () => {
      const server = testServer();
      const [src, dep] = await startPair(server);
      server.advance(500);
      expect((await server.request({ method: 'DELETE', url: `/scenarios/${src}` })).statusCode).to.equal(200);
      await settle();
      // Before: 'scenario ended: 0 events', as if it had run and made nothing.
      expect(logsOf(server, dep, 30).at(-1)).to.include({
        msg: 'scenario ended: 0 events; it never started (src > 100 did not happen before src was deleted)',
        never_started: 'src > 100 did not happen before src was deleted',
      });
    });

    it('failed', async () => {
      const server = testServer({ failingSink: new Error(REFUSED) });
      const [, dep] = await startPair(server, { on_sink_error: 'fail' });
      server.advance(500);
      await settle();
      expect(logsOf(server, dep, 30).at(-1)).to.include({
        msg: 'scenario ended: 0 events; it never started (src > 100 did not happen before src failed)',
      });
    });
  });

  /** A directory below the file root that every sink's build removes: it was there for the request's checks. */
  const GONE = 'gone';
  const realSinks = [
    [
      'an http_push sink to a port that refuses',
      async () => ({
        type: 'http_push',
        url: `http://127.0.0.1:${await freeTcpPort()}/ingest`,
        retry: { max_attempts: 1 },
      }),
      /connection refused by 127\.0\.0\.1/,
      'its sink delivered nothing: ',
    ],
    [
      // A file that cannot be written stops its scenario at once (docs/reliability.md). A directory missing at the
      // request is refused then (422 file_sink_cannot_open): this one goes between the request and the sink's open.
      'a file sink whose directory was removed after the request',
      async (root: string) => {
        mkdirSync(join(root, GONE));
        return { type: 'file', path: `${GONE}/events.prom` };
      },
      /gone\/events\.prom: the directory .*gone does not exist/,
      '',
    ],
  ] as const;
  for (const [what, sink, error, why] of realSinks) {
    it(`with ${what}: failed, and the log names the scenario and the error`, async () => {
      const fileRoot = realpathSync(temporaryDirectory('svc-failing-'));
      const server = testServer({
        deps: { scheduler: asyncScheduler, fileRoot },
        registry: {
          scheduler: asyncScheduler,
          createSink: (entry) => {
            rmSync(join(fileRoot, GONE), { recursive: true, force: true });
            return createSink(entry.sink);
          },
        },
      });
      const id = await start(server, { duration: '200ms', sink: await sink(fileRoot) });
      const ended = await waitFor('the scenario to end', async () =>
        (await listed(server, id)).status === 'running' ? undefined : listed(server, id),
      );
      expect(ended).to.include({ status: 'failed' });
      expect(ended.last_sink_error).to.match(error);
      // The first warning with a sink error: the loopback address's warning, of the start, names the scenario too.
      expect(logsOf(server, id, 40).find((line) => line.sink_error)?.sink_error).to.equal(ended.last_sink_error);
      expect(logsOf(server, id, 50)[0]!.msg).to.equal(`scenario failed: ${why}${ended.last_sink_error}`);
    });
  }
});
