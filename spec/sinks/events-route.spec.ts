import { expect } from 'chai';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testServer } from '../support/server.js';

/** `POST /events` through the app with the sinks the route builds itself (no injected sink). */
function post(server: ReturnType<typeof testServer>, sink: Record<string, unknown>, value = 1) {
  const body = { signal_type: 'metrics', labels: {}, metric: { name: 'deploys_total', value }, encoder: { type: 'metrics_text' }, sink };
  return server.request({ method: 'POST', url: '/events', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
}

describe('POST /events with real sinks', () => {
  let dir: string;
  let server: ReturnType<typeof testServer>;
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'svc-events-route-')));
    // File sinks of requests write only below the server's file root.
    server = testServer({ deps: { createSink: undefined, fileRoot: dir } });
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('a file sink appends each event to the file, never emptying it', async () => {
    const path = join(dir, 'events.prom');
    await writeFile(path, '# kept\n');
    for (const value of [1, 2, 3]) expect((await post(server, { type: 'file', path }, value)).statusCode).to.equal(200);
    expect(await readFile(path, 'utf8')).to.equal('# kept\ndeploys_total 1 0\ndeploys_total 2 0\ndeploys_total 3 0\n');
  });

  it('a file sink into a missing directory answers 502 naming the directory', async () => {
    const path = join(dir, 'missing', 'events.prom');
    const res = await post(server, { type: 'file', path });
    expect(res.statusCode).to.equal(502);
    expect(res.json()).to.deep.equal({ error: 'sink_failed', detail: `file sink: cannot open ${path}: the directory ${join(dir, 'missing')} does not exist` });
  });

  it('a udp sink whose host does not resolve answers 502, and the server keeps serving', async () => {
    const res = await post(server, { type: 'udp', address: 'no-such-host.invalid:9' });
    expect(res.statusCode).to.equal(502);
    expect(res.json()).to.deep.equal({ error: 'sink_failed', detail: 'udp sink: cannot resolve host "no-such-host.invalid": check the host name in the address' });
    expect((await server.request({ method: 'GET', url: '/health' })).statusCode).to.equal(200);
  });
});
