import { expect } from 'chai';
import { testServer } from '../support/server.js';
import { OPENAPI } from '../../lib/server/routes/openapi.js';

const KEY = 's3cret-key';
const ROUTES: [string, string][] = [
  ['POST', '/scenarios'],
  ['GET', '/scenarios'],
  ['GET', '/scenarios/metrics'],
  ['GET', '/scenarios/some-id'],
  ['GET', '/scenarios/some-id/stats'],
  ['GET', '/scenarios/some-id/metrics'],
  ['DELETE', '/scenarios/some-id'],
  ['POST', '/events'],
  ['GET', '/openapi.json'],
];

describe('authentication', () => {
  it('covers every route of the API document', () => {
    const documented = Object.entries(OPENAPI.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((k) => k !== 'parameters').map((method) => `${method.toUpperCase()} ${path.replace('{id}', 'some-id')}`),
    );
    expect([...ROUTES.map(([m, p]) => `${m} ${p}`), 'GET /health'].sort()).to.deep.equal(documented.sort());
  });

  for (const [method, url] of ROUTES) {
    it(`${method} ${url}: 401 without, with a malformed or a wrong key; through with the right one`, async () => {
      const server = testServer({ apiKey: KEY });
      for (const authorization of [undefined, `Basic ${KEY}`, 'Bearer', 'Bearer wrong-key', `Bearer ${KEY}x`]) {
        const res = await server.request({ method: method as 'GET', url, headers: authorization ? { authorization } : {} });
        expect(res.statusCode, `${authorization}`).to.equal(401);
        expect(res.json().error).to.equal('unauthorized');
        expect(res.headers['www-authenticate']).to.equal('Bearer');
      }
      const res = await server.request({ method: method as 'GET', url, headers: { authorization: `Bearer ${KEY}` } });
      expect(res.statusCode).to.not.equal(401);
    });
  }

  it('leaves GET /health open, and everything open without a key', async () => {
    expect((await testServer({ apiKey: KEY }).request({ method: 'GET', url: '/health' })).statusCode).to.equal(200);
    for (const [method, url] of ROUTES) {
      expect((await testServer().request({ method: method as 'GET', url })).statusCode, `${method} ${url}`).to.not.equal(401);
    }
  });

  it('says which part of the header is wrong', async () => {
    const server = testServer({ apiKey: KEY });
    const detail = async (authorization?: string) =>
      (await server.request({ method: 'GET', url: '/scenarios', headers: authorization ? { authorization } : {} })).json().detail;
    expect(await detail()).to.match(/missing Authorization header/);
    expect(await detail('Token abc')).to.match(/malformed/);
    expect(await detail('Bearer nope')).to.match(/wrong API key/);
  });
});

describe('OpenAPI document', () => {
  it('is served at /openapi.json and lists exactly the routes the app answers', async () => {
    const server = testServer();
    const res = await server.request({ method: 'GET', url: '/openapi.json' });
    expect(res.json().openapi).to.match(/^3\./);
    for (const [path, item] of Object.entries(OPENAPI.paths)) {
      for (const method of Object.keys(item).filter((k) => k !== 'parameters')) {
        const answer = await server.request({ method: method.toUpperCase() as 'GET', url: path.replace('{id}', 'x') });
        // A documented route may answer 4xx for this empty request, but never "no such route".
        const detail = String(answer.headers['content-type']).startsWith('application/json') ? answer.json().detail : '';
        expect(detail ?? '', `${method} ${path}`).to.not.match(/^no route/);
        expect(answer.statusCode, `${method} ${path}`).to.not.equal(405);
      }
    }
    const undocumented = await server.request({ method: 'PUT', url: '/scenarios' });
    expect(undocumented.statusCode).to.equal(405);
    expect(undocumented.json()).to.deep.include({ error: 'method_not_allowed' });
  });
});
