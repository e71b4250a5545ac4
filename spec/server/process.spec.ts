import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, get as httpGet } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startPrometheus, type Prometheus } from '../support/backends/prometheus.js';
import { waitFor } from '../support/backends/ports.js';
import { startHostileReceiver } from '../support/backends/hostile.js';
import { spawnServerProcess, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { promtoolCheck } from '../support/promtool.js';
import { countOf } from '../../lib/format.js';
import { temporaryDirectory } from '../support/directories.js';

/** The complete pino lines a server wrote on stderr so far. */
const logLines = (server: ServerProcess) =>
  server
    .stderr()
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as { level: number; msg: string; bind?: string });

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

/** A `POST /events` to `server` of one counter sample, sent by an `http_push` sink to `url`. */
function postEvent(server: ServerProcess, url: string): Promise<Response> {
  const event = {
    signal_type: 'metrics',
    labels: {},
    metric: { name: 'x_total', value: 1 },
    encoder: { type: 'metrics_text' },
    sink: { type: 'http_push', url },
  };
  return fetch(`${server.base}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event),
  });
}

const KEY = 'integration-key';
const auth = { authorization: `Bearer ${KEY}` };

describe('svc-server as a process, scraped by a real Prometheus', function () {
  this.timeout(60_000);
  let server: ServerProcess;
  let prometheus: Prometheus | undefined;
  const fileRoot = temporaryDirectory('svc-server-');
  const sinkFile = join(fileRoot, 'events.prom');

  before(async () => {
    server = await startServerProcess({ env: { SVC_API_KEY: KEY, SVC_FILE_ROOT: fileRoot } });
  });

  after(async () => {
    await prometheus?.stop();
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('prints only the start-up line on stdout and logs JSON on stderr', async () => {
    expect(server.stdout()).to.match(/^\{"svc_server":\{"port":\d+\}\}\n$/);
    // The log line may reach us a moment after the start-up line: they travel on different pipes.
    const first = await waitFor('the first log line', () =>
      server.stderr().includes('\n') ? server.stderr().split('\n')[0] : undefined,
    );
    expect(JSON.parse(first!)).to.include({ msg: 'svc-server listening' });
  });

  it('runs scenarios whose scrape output passes promtool and a real Prometheus records', async () => {
    const body = `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: svc_room_temperature_celsius
    help: Temperature of a room.
    rate: 20
    generator: { type: sine, amplitude: 2, period_secs: 60, offset: 21 }
    dynamic_labels: [{ key: room, values: [lab, hall] }]
    sink: { type: file, path: ${sinkFile} }
  - signal_type: histogram
    name: svc_request_duration_seconds
    help: Request latency.
    rate: 2
    distribution: { type: exponential, rate: 10 }
    buckets: [0.05, 0.1, 0.5]
    observations_per_tick: 20
    sink: { type: file, path: ${sinkFile}.h }
`;
    const res = await fetch(`${server.base}/scenarios`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/yaml' },
      body,
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    const { scenarios } = (await res.json()) as { scenarios: { id: string }[] };

    const aggregate = await waitFor('metrics to scrape', async () => {
      const r = await fetch(`${server.base}/scenarios/metrics`, { headers: auth });
      return r.status === 200 ? r.text() : undefined;
    });
    expect(promtoolCheck(aggregate)).to.deep.equal({ code: 0, problems: [] });
    const drained = await (
      await fetch(`${server.base}/scenarios/${scenarios[1]!.id}/metrics?limit=5`, { headers: auth })
    ).text();
    expect(promtoolCheck(drained)).to.deep.equal({ code: 0, problems: [] });

    prometheus = await startPrometheus({
      scrape: { host: server.base.slice('http://'.length), path: '/scenarios/metrics', bearer: KEY },
    });
    const series = await waitFor(
      'Prometheus to record the series',
      async () => {
        const result = await prometheus!.query('svc_room_temperature_celsius');
        return result.length === 2 ? result : undefined;
      },
      20_000,
      250,
    );
    expect(series.map((s) => s.metric.room).sort()).to.deep.equal(['hall', 'lab']);
    for (const s of series) expect(Number(s.value[1])).to.be.within(18.9, 23.1);
    const [up] = await prometheus.query('up{job="svc"}');
    expect(up!.value[1]).to.equal('1');
    const count = await prometheus.query('svc_request_duration_seconds_count');
    expect(Number(count[0]!.value[1])).to.be.a('number').and.above(0);
    const scraped = await prometheus.query('scrape_samples_post_metric_relabeling{job="svc"}');
    // Two room series, and the histogram's 3 + 1 buckets, _sum and _count.
    expect(Number(scraped[0]!.value[1])).to.equal(2 + (3 + 1) + 2);
  });

  it('on SIGTERM stops every scenario, flushes every sink and exits 0', async () => {
    const listed = (await (await fetch(`${server.base}/scenarios`, { headers: auth })).json()) as {
      scenarios: { id: string }[];
    };
    server.child.kill('SIGTERM');
    expect(await server.exited).to.equal(0);
    const written = readFileSync(sinkFile, 'utf8').split('\n').filter(Boolean);
    expect(written.length).to.be.above(0);
    for (const line of written)
      expect(line).to.match(/^svc_room_temperature_celsius\{room="(lab|hall)"\} [\d.]+ \d{13}$/);
    expect(listed.scenarios).to.have.length(2);
    expect(server.stderr()).to.include('stopping: flushing every scenario');
  });
});

describe('svc-server start-up safety (design: server safety)', function () {
  this.timeout(30_000);

  it('binds 127.0.0.1 by default, and says nothing alarming there', async () => {
    const server = await startServerProcess();
    try {
      await waitFor('the listening line', () => (logLines(server).length ? true : undefined));
      expect(logLines(server)[0]).to.include({ msg: 'svc-server listening', bind: '127.0.0.1' });
      expect((await fetch(`${server.base}/health`)).status).to.equal(200);
      expect(logLines(server).filter((line) => line.level >= 40)).to.deep.equal([]);
      // Keyless on loopback: a DNS name other than localhost is a rebinding page's.
      expect(await statusNaming(server, 'rebound.example')).to.equal(403);
      expect(await statusNaming(server, 'localhost')).to.equal(200);
    } finally {
      await stop(server);
    }
  });

  it('warns prominently when bound to every interface without an API key, and not with one', async () => {
    const open = await startServerProcess({ env: { SVC_BIND: '0.0.0.0' } });
    const keyed = await startServerProcess({ env: { SVC_API_KEY: KEY }, args: ['--bind', '0.0.0.0'] });
    try {
      const warning = await waitFor('the warning', () => logLines(open).find((line) => line.level === 40));
      expect(warning.msg).to.match(/^UNPROTECTED: svc-server listens on 0\.0\.0\.0.*without an API key.*--api-key/);
      await waitFor('the listening line', () => (logLines(keyed).length ? true : undefined));
      expect(logLines(keyed).filter((line) => line.level >= 40)).to.deep.equal([]);
    } finally {
      await Promise.all([stop(open), stop(keyed)]);
    }
  });

  it("--help names what each flag of docs/http-api.md's usage line takes, and --port's default", async () => {
    const child = spawnServerProcess({ args: ['--help'] });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    expect(await new Promise((resolve) => child.once('exit', resolve))).to.equal(0);
    const documented = /```\nsvc-server ([\s\S]*?)```/.exec(readFileSync('docs/http-api.md', 'utf8'))![1]!;
    const options = [...out.matchAll(/^ {2}(--[a-z-]+) <([^>]+)> /gm)];
    expect(options.map(([, flag]) => flag)).to.deep.equal(documented.match(/--[a-z-]+/g));
    expect(options.map(([, , value]) => value)).to.not.include('value');
    expect(out).to.match(/^ {2}--port <port> +Port \(0: any free port; default 8080\)$/m);
  });

  it('exits 2 naming --file-root when it is not a directory', async () => {
    const child = spawnServerProcess({ args: ['--file-root', '/no/such/dir'] });
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).to.equal(2);
    expect(err).to.match(/--file-root: \/no\/such\/dir is not a directory/);
  });

  it('exits 2 naming the flag or the variable of a directory setting that is empty', async () => {
    const cases: { env?: Record<string, string>; args?: string[]; said: string }[] = [
      { env: { SVC_STATE_DIR: '' }, said: 'SVC_STATE_DIR is empty: give a directory, or unset SVC_STATE_DIR' },
      { env: { SVC_FILE_ROOT: '' }, said: 'SVC_FILE_ROOT is empty: give a directory, or unset SVC_FILE_ROOT' },
      { env: { SVC_CATALOG: '' }, said: 'SVC_CATALOG is empty: give a directory, or unset SVC_CATALOG' },
      { args: ['--state', ''], said: '--state is empty: give a directory' },
    ];
    for (const { env, args, said } of cases) {
      const child = spawnServerProcess({ env, args });
      let err = '';
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code, err).to.equal(2);
      expect(err.split('\n')[0]).to.equal(`Usage Error: ${said}`);
    }
  });

  it('exits 2 naming the variable, not the flag, of a directory setting that is no directory', async () => {
    const file = join(temporaryDirectory('svc-dirs-'), 'file');
    writeFileSync(file, '');
    const missing = `${file}-missing`;
    const cases: { env: Record<string, string>; said: string }[] = [
      { env: { SVC_STATE_DIR: file }, said: `SVC_STATE_DIR ${file}: cannot write there: not a directory` },
      { env: { SVC_FILE_ROOT: file }, said: `SVC_FILE_ROOT: ${file} is not a directory` },
      { env: { SVC_FILE_ROOT: missing }, said: `SVC_FILE_ROOT: ${missing} is not a directory` },
      {
        env: { SVC_CATALOG: file },
        said: `${file}: not a directory (a file): set SVC_CATALOG to a directory of scenario and pack files`,
      },
      {
        env: { SVC_CATALOG: missing },
        said: `${missing}: catalog directory not found: set SVC_CATALOG to a directory of scenario and pack files`,
      },
    ];
    const said = await Promise.all(
      cases.map(async ({ env }) => {
        const child = spawnServerProcess({ env });
        let err = '';
        child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
        const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
        return `${code} ${err.split('\n')[0]}`;
      }),
    );
    expect(said).to.deep.equal(cases.map((c) => `2 Usage Error: ${c.said}`));
  });

  it('exits 1 naming --port or --bind when it cannot listen there, without a stack trace', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = (taken.address() as AddressInfo).port;
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const child = spawnServerProcess({ args, env });
      let err = '';
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { code, err };
    };
    try {
      const [inUse, notHere, unknownHost] = await Promise.all([
        run(['--port', String(takenPort)]),
        // TEST-NET-1 (RFC 5737): no interface of a test machine has it.
        run([], { SVC_BIND: '192.0.2.1' }),
        run(['--bind', 'no-such-host.invalid']),
      ]);
      expect([inUse.code, notHere.code, unknownHost.code]).to.deep.equal([1, 1, 1]);
      expect(inUse.err).to.equal(
        `error: --port ${takenPort}: 127.0.0.1:${takenPort} is already in use (another svc-server?): stop that process, or give another port (--port 0 takes a free one)\n`,
      );
      expect(notHere.err).to.match(
        /^error: SVC_BIND 192\.0\.2\.1: no network interface of this machine has that address/,
      );
      expect(unknownHost.err).to.match(/^error: --bind no-such-host\.invalid: cannot resolve that host name/);
      for (const { err } of [inUse, notHere, unknownHost]) expect(err).to.not.match(/Internal Error|\n\s+at /);
    } finally {
      taken.close();
    }
  });

  it('exits 2 for an API key that is empty (every route was open) or holds whitespace (every request was refused)', async () => {
    const exitOf = async (args: string[], env: Record<string, string> = {}) => {
      const child = spawnServerProcess({ args, env });
      let err = '';
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
      // A server that takes the key listens until stopped: stopped here, it fails the spec instead of hanging it.
      const stopper = setTimeout(() => child.kill(), 10_000);
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      clearTimeout(stopper);
      return { code, err };
    };
    const [empty, newline, spaced] = await Promise.all([
      exitOf(['--api-key', '']),
      exitOf([], { SVC_API_KEY: 'k3y-from-a-file\n' }),
      exitOf(['--api-key', 'two words']),
    ]);
    expect([empty.code, newline.code, spaced.code]).to.deep.equal([2, 2, 2]);
    expect(empty.err).to.include('--api-key: is empty, which would leave every route open');
    expect(newline.err).to.include('SVC_API_KEY: holds whitespace or a control character (a line break at its end?)');
    expect(spaced.err).to.include('--api-key: holds whitespace');
    // The key itself is never shown.
    expect(newline.err + spaced.err).to.not.match(/k3y-from-a-file|two words/);
  });
});

describe('svc-server stopping with events its sinks did not deliver', function () {
  this.timeout(30_000);

  it('logs at SIGTERM, per scenario and in all, how many events were not delivered, whose counts leave with it', async () => {
    // /ok takes every request; /refused refuses each one (400: not retried, its events are dropped).
    const requests = { ok: 0, refused: 0 };
    const receiver = createServer((req, res) => {
      req.resume();
      const path = req.url === '/ok' ? 'ok' : 'refused';
      requests[path]++;
      res.writeHead(path === 'ok' ? 204 : 400).end('refused');
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver.once('listening', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const server = await startServerProcess();
    try {
      const body = (path: string) =>
        `name: ${path}_total\nsignal_type: metrics\nrate: 100\ngenerator: {type: constant, value: 1}\nsink: {type: http_push, url: "${url}/${path}", max_buffer_age: 100ms}\n`;
      for (const path of ['ok', 'refused'])
        expect((await fetch(`${server.base}/scenarios`, { method: 'POST', body: body(path) })).status).to.equal(201);
      await waitFor('a request of each scenario', () => requests.ok > 0 && requests.refused > 0, 10_000);
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      const lines = logLines(server) as unknown as Record<string, unknown>[];
      const lost = lines.filter((line) => String(line.msg).startsWith('scenario stopped:'));
      expect(lost).to.have.length(1);
      expect(lost[0]!.name).to.equal('refused_total');
      expect(lost[0]!.dropped_events).to.be.above(0).and.equal(lost[0]!.total_events);
      expect(lost[0]!.msg).to.match(
        /^scenario stopped: (\d+) of its \1 events? (was|were) not delivered \(last sink error: .*400/,
      );
      const stopped = lines.at(-1)!;
      expect(stopped).to.include({ scenarios: 2, dropped_events: lost[0]!.dropped_events });
      expect(stopped.total_events).to.be.above(lost[0]!.total_events as number);
      // One event lost, when the signal came after the refused scenario's first request held one: singular.
      const dropped = stopped.dropped_events as number;
      expect(stopped.msg).to.equal(
        `stopped: ${dropped} of the ${countOf(stopped.total_events as number, 'event')} of 2 scenarios ${dropped === 1 ? 'was' : 'were'} not delivered`,
      );
    } finally {
      server.kill();
      receiver.close();
    }
  });
});

describe('svc-server given a second signal during the stop', function () {
  this.timeout(30_000);

  it('logs what each scenario still flushing held, then ends by the signal at once (143), not after the flush', async () => {
    const receiver = await startHostileReceiver('silent');
    const server = await startServerProcess();
    try {
      const body = `name: up\nsignal_type: metrics\nrate: 20\ngenerator: {type: constant, value: 1}\nsink: {type: http_push, url: "http://${receiver.address}/ingest", batch_size: 1}\n`;
      expect((await fetch(`${server.base}/scenarios`, { method: 'POST', body })).status).to.equal(201);
      await waitFor('the first request', () => receiver.received() > 0 || undefined);
      server.child.kill('SIGTERM');
      await waitFor('the stop', () => server.stderr().includes('stopping: flushing every scenario') || undefined);
      const sent = Date.now();
      server.child.kill('SIGTERM');
      // Ended by the signal, as its default action ends a process (the shell reads 143), within the second the log
      // is given to write out: not after the flush's 10 s.
      expect(await server.exited).to.equal(null);
      expect(server.child.signalCode).to.equal('SIGTERM');
      expect(Date.now() - sent).to.be.below(2_500);
      const lines = logLines(server) as unknown as Record<string, unknown>[];
      const unflushed = lines.find((line) => String(line.msg).startsWith('scenario not flushed:'))!;
      expect(unflushed, server.stderr()).to.include({ name: 'up' });
      // The receiver answered nothing: every event counted is lost.
      expect(unflushed.held_events).to.be.above(0).and.equal(unflushed.total_events);
      const held = unflushed.held_events as number;
      expect(unflushed.msg).to.equal(
        `scenario not flushed: ${held} of its ${countOf(unflushed.total_events as number, 'event')}, still in its sink, ${held === 1 ? 'was' : 'were'} not delivered`,
      );
      expect(lines.at(-1)).to.include({
        level: 50,
        signal: 'SIGTERM',
        held_events: held,
        msg: `SIGTERM during the stop's flush: quitting at once; ${countOf(held, 'event')} still in the sinks ${held === 1 ? 'is' : 'are'} lost`,
      });
    } finally {
      server.kill();
      await receiver.stop();
    }
  });

  it('logs what a scenario whose DELETE is still flushing held too', async () => {
    // Before, the stop named only the scenarios still listed: a DELETE takes its scenario out as its flush begins.
    const receiver = await startHostileReceiver('silent');
    const server = await startServerProcess();
    try {
      const body = `name: up\nsignal_type: metrics\nrate: 20\ngenerator: {type: constant, value: 1}\nsink: {type: http_push, url: "http://${receiver.address}/ingest", batch_size: 1}\n`;
      const posted = await fetch(`${server.base}/scenarios`, { method: 'POST', body });
      const { id } = (await posted.json()) as { id: string };
      await waitFor('the first request', () => receiver.received() > 0 || undefined);
      // The receiver answers nothing: the DELETE's flush waits for it (10 s), its scenario no longer listed.
      const deleting = fetch(`${server.base}/scenarios/${id}`, { method: 'DELETE' }).catch(() => undefined);
      await waitFor(
        'the scenario unlisted',
        async () => (await fetch(`${server.base}/scenarios/${id}`)).status === 404 || undefined,
      );
      server.child.kill('SIGTERM');
      await waitFor('the stop', () => server.stderr().includes('stopping: flushing every scenario') || undefined);
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(null);
      await deleting;
      const lines = logLines(server) as unknown as Record<string, unknown>[];
      const unflushed = lines.find((line) => String(line.msg).startsWith('scenario not flushed:'))!;
      expect(unflushed, server.stderr()).to.include({ scenario: id, name: 'up' });
      expect(unflushed.held_events).to.be.above(0);
      expect(lines.at(-1)).to.include({ signal: 'SIGTERM', held_events: unflushed.held_events });
    } finally {
      server.kill();
      await receiver.stop();
    }
  });

  it('ends by the signal at once too once the flush is over, while a request is still being answered', async () => {
    const receiver = await startHostileReceiver('silent');
    const server = await startServerProcess();
    try {
      const answered = postEvent(server, `http://${receiver.address}/push`).catch(() => undefined);
      await waitFor('the event at the receiver', () => receiver.received() > 0 || undefined);
      server.child.kill('SIGTERM');
      // Listening no more: the scenarios are flushed, and the server waits for the event's answer (up to 15 s).
      await waitFor('the server no longer listening', () => refused(Number(new URL(server.base).port)));
      const sent = Date.now();
      server.child.kill('SIGTERM');
      // Before, the second signal was taken for nothing: the process exited 0 once the event was answered, 10 s later.
      expect(await server.exited).to.equal(null);
      expect(server.child.signalCode).to.equal('SIGTERM');
      expect(Date.now() - sent).to.be.below(2_500);
      expect(logLines(server).at(-1)).to.include({
        level: 50,
        signal: 'SIGTERM',
        msg: 'SIGTERM during the stop, its flush over: quitting at once; the requests left get no answer',
      });
      await answered;
    } finally {
      server.kill();
      await receiver.stop();
    }
  });
});

describe('svc-server stopping while a client still sends its request', function () {
  this.timeout(30_000);

  it('closes the connection and exits 0 at SIGTERM: a body that never comes does not hold it', async () => {
    const server = await startServerProcess();
    try {
      const { port } = new URL(server.base);
      const client = connect(Number(port), '127.0.0.1');
      const closed = new Promise((resolve) => client.once('close', resolve));
      client.on('error', () => undefined);
      // Headers and the first bytes of a 1000-byte body, then nothing.
      await new Promise<void>((resolve) =>
        client.write(
          'POST /scenarios HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/yaml\r\nContent-Length: 1000\r\n\r\nversion: 2\n',
          () => resolve(),
        ),
      );
      // A request answered after it was sent: the server has taken that connection.
      expect((await fetch(`${server.base}/health`)).status).to.equal(200);
      server.child.kill('SIGTERM');
      // Before, the process waited for the body for ever: close() ends node's checks of the request timeout.
      const still = new Promise((resolve) => setTimeout(() => resolve('still running after 20 s'), 20_000).unref());
      expect(await Promise.race([server.exited, still])).to.equal(0);
      await closed;
      expect(logLines(server).at(-1)!.msg).to.equal('stopped');
    } finally {
      server.kill();
    }
  });
});

describe('svc-server stopping while it sends an event', function () {
  this.timeout(30_000);

  it('answers a POST /events in flight at SIGTERM as usual, then exits 0', async () => {
    // The receiver answers only once the server stopped listening: the moment it used to cut every connection.
    let answer: (() => void) | undefined;
    const receiver = createServer((req, res) => {
      req.resume();
      answer = () => res.writeHead(204).end();
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver.once('listening', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/push`;
    const server = await startServerProcess();
    try {
      const answered = postEvent(server, url).then(
        async (response) => ({ status: response.status, body: await response.json() }),
        (error: Error & { cause?: { code?: string } }) => ({ error: error.cause?.code ?? error.message }),
      );
      await waitFor('the event at the receiver', () => answer);
      server.child.kill('SIGTERM');
      // A new connection each time: a keep-alive one would be served on after the server stopped listening.
      await waitFor('the server no longer listening', () => refused(Number(new URL(server.base).port)));
      answer!();
      expect(await answered).to.deep.include({ status: 200 });
      expect(await server.exited).to.equal(0);
    } finally {
      server.kill();
      receiver.closeAllConnections();
      receiver.close();
    }
  });
});

describe('svc-server stopping into a stdout nobody reads', function () {
  this.timeout(40_000);

  it('gives the flush up 15 s after SIGTERM, says so, and exits 1 instead of waiting for ever', async () => {
    // A second scenario whose receiver refuses everything: what it did not deliver is still logged at the give-up.
    let refused = 0;
    const receiver = createServer((req, res) => {
      req.resume();
      refused++;
      res.writeHead(400).end('refused');
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver.once('listening', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/refused`;
    const server = await startServerProcess();
    try {
      const refusing = `name: refused_total\nsignal_type: metrics\nrate: 100\ngenerator: {type: constant, value: 1}\nsink: {type: http_push, url: "${url}", max_buffer_age: 100ms}\n`;
      expect((await fetch(`${server.base}/scenarios`, { method: 'POST', body: refusing })).status).to.equal(201);
      await waitFor('a refused request', () => refused > 0 || undefined);
      // Nobody reads the server's stdout from here on: the pipe fills, and the stdout sink's writes wait.
      server.child.stdout!.pause();
      const scenario = 'name: up\nsignal_type: metrics\nrate: 100000\ngenerator: {type: constant, value: 1}\n';
      const started = await fetch(`${server.base}/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'application/yaml' },
        body: scenario,
      });
      expect(started.status).to.equal(201);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const sent = Date.now();
      server.child.kill('SIGTERM');
      const still = new Promise((resolve) => setTimeout(() => resolve('still running after 30 s'), 30_000).unref());
      expect(await Promise.race([server.exited, still])).to.equal(1);
      expect(Date.now() - sent).to.be.within(14_000, 25_000);
      // The exit may come before the last lines of stderr are read.
      const messages = await waitFor('the give-up line', () => {
        const msgs = logLines(server).map((line) => line.msg);
        return msgs.at(-1)?.startsWith('stopped without') ? msgs : undefined;
      });
      expect(messages.at(-1)).to.equal(
        'stopped without every flush: a destination took nothing for 15 s after the stop (a stdout nobody reads?); what it held is lost',
      );
      expect(messages.filter((msg) => msg.startsWith('scenario stopped:'))).to.have.length(1);
      expect(messages.find((msg) => msg.startsWith('scenario stopped:'))).to.match(
        /^scenario stopped: (\d+) of its \d+ events? (was|were) not delivered \(last sink error: .*400/,
      );
    } finally {
      server.kill();
      receiver.close();
    }
  });
});

/** True once a connection to `port` on 127.0.0.1 is refused; undefined while one is accepted. */
function refused(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', () => resolve(true));
  });
}

/** The status of `GET /health` sent to `server` with the `Host` header naming `host`. */
function statusNaming(server: ServerProcess, host: string): Promise<number | undefined> {
  const { port } = new URL(server.base);
  return new Promise((resolve, reject) =>
    httpGet({ host: '127.0.0.1', port, path: '/health', headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject),
  );
}

describe('startServerProcess (spec support)', function () {
  this.timeout(40_000);

  it('waits for a start slower than 10 s: under load one start in 8 failed at a fixed 10 s', async () => {
    // Node itself held up 11 s before the server's code runs, as a loaded machine can.
    const sleep = 'data:text/javascript,Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 11000)';
    const since = Date.now();
    const server = await startServerProcess({ nodeFlags: ['--import', sleep], quiet: true });
    try {
      expect(Date.now() - since, 'the start was held up').to.be.above(10_000);
      expect((await fetch(`${server.base}/health`)).status).to.equal(200);
    } finally {
      server.kill();
    }
  });

  it('fails at once when the server exits before its start-up line, with its code and stderr', async () => {
    const since = Date.now();
    let failure: Error | undefined;
    await startServerProcess({ args: ['--max-entries', 'many'] }).then(
      // Started after all: killed, not left to keep mocha from exiting; the expectation below then fails.
      (server) => server.kill(),
      (error: Error) => (failure = error),
    );
    expect(failure?.message).to.match(/^svc-server exited \(2\) before its start-up line; stderr: ".*max-entries/);
    expect(Date.now() - since).to.be.below(8_000);
  });
});
