import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadScenario } from '../../lib/config/index.js';
import { compileScenario } from '../../lib/compile/index.js';
import { previewScenario } from '../../lib/preview/index.js';
import { testServer } from '../support/server.js';

const gauge = `signal_type: metrics
name: temp_celsius
rate: 2
generator: { type: sine, amplitude: 5, period_secs: 600, offset: 20 }
labels: { room: lab }
gaps: { every: 10m, for: 1m }
sink: { type: file, path: /nonexistent/out.prom }
`;

type Server = ReturnType<typeof testServer>;
const preview = (server: Server, query: string, body: string, type = 'text/yaml', headers = {}) =>
  server.request({
    method: 'POST',
    url: `/preview${query}`,
    headers: { 'content-type': type, ...headers },
    payload: body,
  });

function expectError(res: { statusCode: number; json(): any }, status: number, code: string, detail?: RegExp) {
  expect(res.statusCode, JSON.stringify(res.json())).to.equal(status);
  expect(res.json()).to.have.keys('error', 'detail');
  expect(res.json().error).to.equal(code);
  if (detail) expect(res.json().detail).to.match(detail);
}

describe('POST /preview', () => {
  it('answers the Preview of a YAML body, the same as previewScenario, without opening its sink or starting it', async () => {
    const server = testServer();
    const res = await preview(server, '?for=30m&points=60', gauge);
    expect(res.statusCode, res.body).to.equal(200);
    const entries = compileScenario(loadScenario(gauge, { origin: 'body', format: 'yaml' }), {
      origin: 'body',
    }).plans;
    expect(res.json()).to.deep.equal(
      JSON.parse(JSON.stringify(await previewScenario(entries, { for: 1_800_000, points: 60 }))),
    );
    const body = res.json();
    expect(body).to.include({ step: 30_000, points: 60 });
    expect(body.entries[0]).to.include({ id: 'temp_celsius', signal: 'metrics', type: 'gauge', unit: 'value' });
    // The gap of the 10th minute: steps 18 and 19 are empty.
    expect(body.entries[0].series[0].values.slice(17, 21).map((v: number | null) => v === null)).to.deep.equal([
      false,
      true,
      true,
      false,
    ]);
    // The file sink's path is never opened (no file root is set, which a run would refuse), nothing is registered.
    expect(server.sinks).to.have.length(0);
    expect(server.registry.list()).to.have.length(0);
  });

  it('takes JSON, defaults to 30m and 240 points, and previews one entry with ?entry', async () => {
    const server = testServer();
    const file = {
      version: 2,
      kind: 'runnable',
      scenarios: [
        { id: 'a', signal_type: 'metrics', name: 'a', rate: 1, generator: { type: 'constant', value: 1 } },
        { id: 'b', signal_type: 'metrics', name: 'b', rate: 1, generator: { type: 'constant', value: 2 } },
      ],
    };
    const all = await preview(server, '', JSON.stringify(file), 'application/json');
    expect(all.statusCode, all.body).to.equal(200);
    expect(all.json()).to.include({ step: 7500, points: 240 });
    const one = await preview(server, '?entry=b', JSON.stringify(file), 'application/json');
    expect(one.json().entries.map((entry: { id: string }) => entry.id)).to.deep.equal(['b']);
    expectError(
      await preview(server, '?entry=c', JSON.stringify(file), 'application/json'),
      422,
      'validation_failed',
      /^entry: .*"c"/,
    );
  });

  it('defaults for to where the last entry ends when every entry has a duration', async () => {
    const server = testServer();
    const res = await preview(server, '', `${gauge}duration: 90s\n`);
    expect(res.statusCode, res.body).to.equal(200);
    // 90 s on the default 240 points.
    expect(res.json()).to.include({ step: 375, points: 240 });
    // The last sample, at 89.5 s, falls in point 238: [89.25 s, 89.625 s).
    const values: (number | null)[] = res.json().entries[0].series[0].values;
    expect(values.slice(237).map((value) => value !== null)).to.deep.equal([true, true, false]);
  });

  it('answers 400 for a query out of bounds, naming the parameter', async () => {
    const server = testServer();
    expectError(await preview(server, '?for=25h', gauge), 400, 'invalid_query', /^for: at most 24h/);
    expectError(await preview(server, '?for=soon', gauge), 400, 'invalid_query', /^for: expected a duration/);
    expectError(
      await preview(server, '?for=0.5ms', gauge),
      400,
      'invalid_query',
      /^for: expected a duration from 1ms to 24h/,
    );
    expectError(await preview(server, '?points=5', gauge), 400, 'invalid_query', /^points: .*10 to 2000/);
    expectError(await preview(server, '?points=1e9', gauge), 400, 'invalid_query', /^points:/);
    expectError(await preview(server, '?for=1m&for=2m', gauge), 400, 'invalid_query', /^for: give it once/);
    expectError(await preview(server, '?start=-1', gauge), 400, 'invalid_query', /^start:/);
    // Past 2200 (as for start_time) the timestamps overflow what the encoders write: a 500 before.
    expectError(await preview(server, '?start=8640000000000000', gauge), 400, 'invalid_query', /^start: .*2200/);
    expectError(await preview(server, '?start=7258118400001', gauge), 400, 'invalid_query', /^start:/);
  });

  it('answers a body as POST /scenarios does: 400 unparseable, 415 other types, 422 invalid', async () => {
    const server = testServer();
    expectError(await preview(server, '', 'a: [1'), 400, 'malformed_body');
    expectError(await preview(server, '', ''), 400, 'empty_body');
    expectError(await preview(server, '', gauge, 'image/png'), 415, 'unsupported_media_type');
    expectError(await preview(server, '', gauge.replace('rate: 2', 'rate: -2')), 422, 'validation_failed', /rate/);
  });

  it('refuses a preview that would make too many rows with 422, naming the entry and its rate', async () => {
    const busy = gauge.replace('rate: 2', 'rate: 100000');
    expectError(
      await preview(testServer(), '?for=24h', busy),
      422,
      'preview_too_large',
      /temp_celsius, at rate 100000 events\/s over 24h: ask a shorter span \(for\) or one entry \(entry\)$/,
    );
  });

  it('computes two previews at once and answers 429 to a third meanwhile', async () => {
    const server = testServer();
    const statuses = await Promise.all([1, 2, 3].map(() => preview(server, '?for=24h', gauge))).then((answers) =>
      answers.map((res) => res.statusCode),
    );
    expect(statuses.sort()).to.deep.equal([200, 200, 429]);
    expect((await preview(server, '?for=1m', gauge)).statusCode).to.equal(200);
  });

  it('stops computing a preview whose client went away, freeing its slot', async function () {
    this.timeout(20_000);
    const server = testServer();
    const http = createServer(server.handler);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/preview?for=24h`;
    try {
      // Two previews of about 8.6 M rows each: several seconds of computing apiece.
      const costly = gauge.replace('rate: 2', 'rate: 100');
      const clients = [1, 2].map(() => new AbortController());
      const answers = clients.map((client) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'text/yaml' },
          body: costly,
          signal: client.signal,
        }).catch((error: Error) => error.name),
      );
      while ((await preview(server, '?for=1m', gauge)).statusCode !== 429);
      for (const client of clients) client.abort();
      expect(await Promise.all(answers)).to.deep.equal(['AbortError', 'AbortError']);
      // Both slots are free again within moments (the virtual clock hears the abort within 10 ms of real time).
      let status = 429;
      for (let tries = 0; tries < 20 && status === 429; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await preview(server, '?for=1m', gauge)).statusCode;
      }
      expect(status).to.equal(200);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('asks for the key like every other route', async () => {
    const server = testServer({ apiKey: 'k'.repeat(32) });
    expect((await preview(server, '', gauge)).statusCode).to.equal(401);
    const res = await preview(server, '?for=1m', gauge, 'text/yaml', { authorization: `Bearer ${'k'.repeat(32)}` });
    expect(res.statusCode).to.equal(200);
  });

  it('previews an example file with marks of its after, while, bursts and gaps', async () => {
    const res = await preview(testServer(), '?for=30m&points=120', readFileSync('examples/plot.yaml', 'utf8'));
    expect(res.statusCode, res.body).to.equal(200);
    const kinds = (id: string) =>
      new Set(
        res
          .json()
          .entries.find((entry: { id: string }) => entry.id === id)
          .marks.map((m: { kind: string }) => m.kind),
      );
    expect([...kinds('cpu')]).to.have.members(['start', 'burst', 'gap']);
    expect([...kinds('drain')]).to.have.members(['start', 'while']);
    expect([...kinds('page')]).to.have.members(['after']);
  });
});
