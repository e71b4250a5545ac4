import { expect } from 'chai';
import { testServer } from '../support/server.js';

/** `GET /scenarios?limit=&cursor=` (docs/http-api.md): pages in the order scenarios were started. */

const entries = (count: number) => ({
  version: 2,
  kind: 'runnable',
  scenarios: Array.from({ length: count }, (_, i) => ({
    id: `e${i}`,
    signal_type: 'metrics',
    name: `m${i}_total`,
    rate: 1,
    generator: { type: 'constant', value: 1 },
    sink: { type: 'stdout' },
  })),
});

type Page = { scenarios: { id: string; entry: string }[]; next_cursor: string | null };

describe('GET /scenarios, paged', () => {
  const list = async (server: ReturnType<typeof testServer>, query = '') => {
    const res = await server.request({ method: 'GET', url: `/scenarios${query}` });
    return { status: res.statusCode, body: res.json() as Page & { error?: string; detail?: string } };
  };

  it('walks every scenario once, in the order they were started, page by page', async () => {
    const server = testServer();
    expect((await server.postJson('/scenarios', entries(5))).statusCode).to.equal(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const { body } = await list(server, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      sizes.push(body.scenarios.length);
      seen.push(...body.scenarios.map((s) => s.entry));
      cursor = body.next_cursor;
    } while (cursor);
    expect(sizes).to.deep.equal([2, 2, 1]);
    expect(seen).to.deep.equal(['e0', 'e1', 'e2', 'e3', 'e4']);
  });

  it('neither repeats nor skips when scenarios are deleted or started between pages', async () => {
    const server = testServer();
    const posted = (await server.postJson('/scenarios', entries(4))).json().scenarios as { id: string }[];
    const first = (await list(server, '?limit=2')).body;
    await server.request({ method: 'DELETE', url: `/scenarios/${posted[1]!.id}` });
    await server.request({ method: 'DELETE', url: `/scenarios/${posted[2]!.id}` });
    await server.postJson('/scenarios', { ...entries(1), scenarios: [{ ...entries(1).scenarios[0], id: 'late' }] });
    const second = (await list(server, `?limit=2&cursor=${first.next_cursor}`)).body;
    expect(second.scenarios.map((s) => s.entry)).to.deep.equal(['e3', 'late']);
    expect(second.next_cursor).to.equal(null);
  });

  it('gives the whole list without limit, and the rest of it from a cursor', async () => {
    const server = testServer();
    expect((await server.postJson('/scenarios', entries(5))).statusCode).to.equal(201);
    const { body } = await list(server);
    expect(body.scenarios.map((s) => s.entry)).to.deep.equal(['e0', 'e1', 'e2', 'e3', 'e4']);
    expect(body.next_cursor).to.equal(null);
    const first = (await list(server, '?limit=3')).body;
    const rest = (await list(server, `?cursor=${first.next_cursor}`)).body;
    expect(rest.scenarios.map((s) => s.entry)).to.deep.equal(['e3', 'e4']);
    expect(rest.next_cursor).to.equal(null);
  });

  it('answers 400 naming limit or cursor when they are not what it answered', async () => {
    const server = testServer();
    for (const limit of ['0', '1001', '2.5', 'ten']) {
      const { status, body } = await list(server, `?limit=${limit}`);
      expect(status).to.equal(400);
      expect(body.detail).to.equal(`limit: expected an integer from 1 to 1000, got "${limit}"`);
    }
    for (const cursor of ['abc', Buffer.from('after:-1').toString('base64url'), '']) {
      const { status, body } = await list(server, `?cursor=${cursor}`);
      expect(status).to.equal(400);
      expect(body).to.include({ error: 'invalid_query' });
      expect(body.detail).to.match(/^cursor: ".*" is not a cursor of this server: pass the next_cursor/);
    }
  });
});
