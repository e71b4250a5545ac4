import { expect } from 'chai';
import { testServer } from '../support/server.js';

/** What a page of another origin can send without a preflight: a text/plain POST, here a scenario. */
const scenario = 'name: csrf\nrate: 1\ngenerator: {type: constant, value: 1}\n';
const post = (server: ReturnType<typeof testServer>, headers: Record<string, string>) =>
  server.request({
    method: 'POST',
    url: '/scenarios',
    headers: { host: '127.0.0.1:8080', 'content-type': 'text/plain', ...headers },
    payload: scenario,
  });

describe('requests from web pages of another origin (design: server safety)', () => {
  it('are refused with 403 cross_origin, naming the origin, and start nothing, even without an API key', async () => {
    const server = testServer();
    for (const origin of ['https://evil.example', 'http://127.0.0.1:9999', 'http://localhost:8080', 'null']) {
      const res = await post(server, { origin });
      expect(res.statusCode, origin).to.equal(403);
      expect(res.json()).to.deep.equal({
        error: 'cross_origin',
        detail: `requests from web pages of another origin (${origin}) are refused: use the console this server serves, or a client that is not a browser`,
      });
    }
    expect(server.registry.list()).to.deep.equal([]);
  });

  it('take those without an Origin (clients that are not browsers), and the console’s, from the server’s own origin', async () => {
    const server = testServer();
    for (const headers of <Record<string, string>[]>[
      {},
      { origin: 'http://127.0.0.1:8080' },
      { origin: 'HTTP://127.0.0.1:8080' },
      { origin: 'https://svc.example.com', 'x-forwarded-host': 'svc.example.com' },
    ]) {
      expect((await post(server, headers)).statusCode, JSON.stringify(headers)).to.equal(201);
    }
  });
});
