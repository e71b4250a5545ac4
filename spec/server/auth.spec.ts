import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { testServer } from '../support/server.js';
import { OPENAPI } from '../../lib/server/routes/openapi.js';
import { openapiProblems } from '../support/openapi.js';
import { codeSpan, docTable } from '../support/doc-tables.js';

/** The keys of an OpenAPI path item that are operations; the others (`parameters`, `summary`...) are not. */
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Every operation of the API document: its method in capitals and its path as written (`/scenarios/{id}`). */
const operations = (): { method: string; path: string }[] =>
  Object.entries(OPENAPI.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.has(key))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );

const KEY = 's3cret-key';
const ROUTES: [string, string][] = [
  ['POST', '/scenarios'],
  ['GET', '/scenarios'],
  ['GET', '/scenarios/metrics'],
  ['GET', '/scenarios/some-id'],
  ['GET', '/scenarios/some-id/stats'],
  ['GET', '/scenarios/some-id/series'],
  ['GET', '/scenarios/some-id/metrics'],
  ['HEAD', '/scenarios/some-id/metrics'],
  ['DELETE', '/scenarios/some-id'],
  ['POST', '/events'],
  ['GET', '/catalog'],
  ['POST', '/preview'],
  ['GET', '/openapi.json'],
];

describe('authentication', () => {
  it('covers every route of the API document', () => {
    const documented = operations().map(({ method, path }) => `${method} ${path.replace('{id}', 'some-id')}`);
    expect([...ROUTES.map(([m, p]) => `${m} ${p}`), 'GET /health', 'HEAD /health'].sort()).to.deep.equal(
      documented.sort(),
    );
  });

  for (const [method, url] of ROUTES) {
    it(`${method} ${url}: 401 without, with a malformed or a wrong key; through with the right one`, async () => {
      const server = testServer({ apiKey: KEY });
      for (const authorization of [undefined, `Basic ${KEY}`, 'Bearer', 'Bearer wrong-key', `Bearer ${KEY}x`]) {
        const res = await server.request({
          method: method as 'GET',
          url,
          headers: authorization ? { authorization } : {},
        });
        expect(res.statusCode, `${authorization}`).to.equal(401);
        // A HEAD answer has no body.
        if (method !== 'HEAD') expect(res.json().error).to.equal('unauthorized');
        expect(res.headers['www-authenticate']).to.equal('Bearer');
      }
      const res = await server.request({ method: method as 'GET', url, headers: { authorization: `Bearer ${KEY}` } });
      expect(res.statusCode).to.not.equal(401);
    });
  }

  it('leaves GET and HEAD /health open, and everything open without a key', async () => {
    const server = testServer({ apiKey: KEY });
    expect((await server.request({ method: 'GET', url: '/health' })).statusCode).to.equal(200);
    expect((await server.request({ method: 'HEAD', url: '/health' })).statusCode).to.equal(200);
    expect((await server.request({ method: 'HEAD', url: '/scenarios' })).statusCode).to.equal(401);
    for (const [method, url] of ROUTES) {
      expect(
        (await testServer().request({ method: method as 'GET', url })).statusCode,
        `${method} ${url}`,
      ).to.not.equal(401);
    }
  });

  it('matches the Bearer scheme case-insensitively (RFC 7235)', async () => {
    const server = testServer({ apiKey: KEY });
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const res = await server.request({
        method: 'GET',
        url: '/scenarios',
        headers: { authorization: `${scheme} ${KEY}` },
      });
      expect(res.statusCode, scheme).to.equal(200);
    }
  });

  it('gives one 401 detail whether the key is missing, malformed or wrong', async () => {
    const server = testServer({ apiKey: KEY });
    const detail = async (authorization?: string) =>
      (
        await server.request({ method: 'GET', url: '/scenarios', headers: authorization ? { authorization } : {} })
      ).json().detail;
    const details = new Set([
      await detail(),
      await detail('Token abc'),
      await detail('Bearer'),
      await detail('Bearer nope'),
    ]);
    expect([...details]).to.have.length(1);
    expect([...details][0]).to.match(/Authorization: Bearer/);
  });
});

describe('OpenAPI document', () => {
  it('is served at /openapi.json and lists exactly the routes the app answers', async () => {
    const server = testServer();
    const res = await server.request({ method: 'GET', url: '/openapi.json' });
    expect(res.json().openapi).to.match(/^3\./);
    for (const { method, path } of operations()) {
      const answer = await server.request({ method: method as 'GET', url: path.replace('{id}', 'x') });
      // A documented route may answer 4xx for this empty request, but never "no such route" (HEAD has no body).
      const detail =
        answer.body && String(answer.headers['content-type']).startsWith('application/json')
          ? answer.json().detail
          : '';
      expect(detail ?? '', `${method} ${path}`).to.not.match(/^no route/);
      expect(answer.statusCode, `${method} ${path}`).to.not.equal(405);
    }
    const undocumented = await server.request({ method: 'PUT', url: '/scenarios' });
    expect(undocumented.statusCode).to.equal(405);
    expect(undocumented.json()).to.deep.include({ error: 'method_not_allowed' });
  });

  it('lists for every operation the 403 of a page of another origin and of a DNS name on a keyless loopback server', async () => {
    // testServer checks every answer against the document: a status it does not list fails here.
    for (const [method, url] of [...ROUTES, ['GET', '/health'], ['HEAD', '/health']] as const) {
      for (const [server, headers, code] of [
        [testServer(), { origin: 'http://page.example' }, 'cross_origin'],
        [testServer({ deps: { loopbackOnly: true } }), { host: 'rebound.example' }, 'host_not_allowed'],
      ] as const) {
        const res = await server.request({ method: method as 'GET', url, headers });
        expect(res.statusCode, `${method} ${url}`).to.equal(403);
        if (method !== 'HEAD') expect(res.json().error).to.equal(code);
      }
    }
  });

  it('lists the 503 of readiness for HEAD /health?ready as for GET', async () => {
    const server = testServer({ deps: { starting: () => true } });
    for (const method of ['GET', 'HEAD'] as const)
      expect((await server.request({ method, url: '/health?ready' })).statusCode).to.equal(503);
  });

  it('is checked closely: a status, a media type or a field it does not give is a problem', () => {
    const json = { 'content-type': 'application/json; charset=utf-8' };
    const ok = JSON.stringify({ status: 'ok' });
    expect(openapiProblems('GET', '/health', { statusCode: 200, headers: json, body: ok })).to.deep.equal([]);
    expect(openapiProblems('GET', '/health', { statusCode: 418, headers: json, body: ok })).to.have.length(1);
    expect(
      openapiProblems('GET', '/health', { statusCode: 200, headers: { 'content-type': 'text/html' }, body: ok }),
    ).to.have.length(1);
    const extra = openapiProblems('GET', '/health', {
      statusCode: 200,
      headers: json,
      body: JSON.stringify({ status: 'ok', uptime: 1 }),
    });
    expect(extra.join()).to.match(/additional properties.*uptime/);
  });

  it("docs/http-api.md's Routes table lists every operation of the document", () => {
    // A path cell is its first code span, without the query it may show (`/health?ready`); text may follow it.
    const listed = new Set(
      docTable('http-api.md', { heading: '## Routes' }).flatMap(([methods, path]) =>
        methods!.split(', ').map((method) => `${method} ${codeSpan(path!).split('?')[0]}`),
      ),
    );
    const unlisted = operations()
      .map(({ method, path }) => `${method} ${path}`)
      .filter((operation) => !listed.has(operation));
    expect(unlisted).to.deep.equal([]);
  });

  it('docs/http-api.md gives each route with a table of errors the error statuses of the document', () => {
    const sections = readFileSync('docs/http-api.md', 'utf8').split('\n### ').slice(1);
    const tables = sections.filter((section) => section.includes('| Status | error | When |'));
    expect(tables).to.have.length.greaterThan(2);
    for (const section of tables) {
      const [method, path] = section.slice(0, section.indexOf('\n')).split(' ') as [string, string];
      const documented = section.match(/^\| \d{3}(, \d{3})* \|/gm)!.flatMap((row) => row.match(/\d{3}/g)!);
      const responses = OPENAPI.paths[path]![method.toLowerCase()] as { responses: Record<string, unknown> };
      const errors = Object.keys(responses.responses).filter((status) => status >= '400');
      expect([...new Set(documented)].sort(), `${method} ${path}`).to.deep.equal(errors.sort());
    }
  });
});
