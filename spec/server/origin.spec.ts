import { expect } from 'chai';
import { servesLocalNamesOnly } from '../../lib/server/middleware/host.js';
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

describe('a keyless server on a loopback address and the names it is reached by (DNS rebinding)', () => {
  const keyless = () => testServer({ deps: { loopbackOnly: true } });

  it('refuses a request naming it by a DNS name other than localhost, with 403 host_not_allowed, and starts nothing', async () => {
    const server = keyless();
    // A rebinding page is of its own origin: the origin check lets it through.
    for (const host of ['evil.example:8080', 'EVIL.example', 'localhost.evil.example:8080']) {
      const res = await post(server, { host, origin: `http://${host}` });
      expect(res.statusCode, host).to.equal(403);
      expect(res.json().error, host).to.equal('host_not_allowed');
      expect(res.json().detail, host)
        .to.include(`the host ${JSON.stringify(host)} are refused`)
        .and.include('--api-key');
    }
    expect(server.registry.list()).to.deep.equal([]);
  });

  it('takes an IP address, localhost, a name below localhost, and clients that send no Host', async () => {
    const server = keyless();
    for (const host of [
      '127.0.0.1:8080',
      '[::1]:8080',
      '10.1.2.3',
      'localhost:8080',
      'LOCALHOST',
      'svc.localhost:8080',
    ]) {
      expect((await post(server, { host })).statusCode, host).to.equal(201);
    }
    const bare = await server.request({ method: 'GET', url: '/health', headers: { host: '' } });
    expect(bare.statusCode).to.equal(200);
  });

  it('takes any host name when the server has an API key, or listens beyond loopback (the check is off)', async () => {
    expect((await post(testServer(), { host: 'svc.example.com' })).statusCode).to.equal(201);
    // The rule svc-server applies to its --bind and --api-key.
    expect(servesLocalNamesOnly('127.0.0.1', undefined)).to.equal(true);
    expect(servesLocalNamesOnly('::1', undefined)).to.equal(true);
    expect(servesLocalNamesOnly('localhost', undefined)).to.equal(true);
    expect(servesLocalNamesOnly('127.0.0.1', 'secret')).to.equal(false);
    expect(servesLocalNamesOnly('0.0.0.0', undefined)).to.equal(false);
    expect(servesLocalNamesOnly('10.1.2.3', undefined)).to.equal(false);
  });
});
