import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import inject from 'light-my-request';
import { Koa } from '../../lib/server/packages.js';
import { CONSOLE_CSP, consoleAssets } from '../../lib/server/console.js';
import { errors } from '../../lib/server/middleware/errors.js';
import { createLogger } from '../../lib/server/logger.js';
import { Catalog } from '../../lib/catalog/index.js';
import { testServer } from '../support/server.js';
import { temporaryDirectory } from '../support/directories.js';

/** A console directory as console/build.ts writes one: the page, and an asset beside its gzip copy. */
function builtConsole(): string {
  const dir = temporaryDirectory('svc-console-');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>svc console</title>');
  writeFileSync(join(dir, 'assets', 'main-ABC123.js'), 'export {};\n'.repeat(100));
  writeFileSync(join(dir, 'assets', 'main-ABC123.js.gz'), gzipSync('export {};\n'.repeat(100)));
  return dir;
}

/** The console's middleware behind the error envelope, as createApp mounts it. */
function consoleApp(dir: string) {
  const app = new Koa();
  app.silent = true;
  app.use(errors(createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() }))));
  app.use(consoleAssets(dir));
  return app.callback();
}

describe('the web console files (docs/console.md)', () => {
  const handler = consoleApp(builtConsole());

  it('answers its page at /, /ui and /ui/, revalidated on each load, with the Content-Security-Policy', async () => {
    for (const url of ['/', '/ui', '/ui/']) {
      const res = await inject(handler, { method: 'GET', url });
      expect(res.statusCode, url).to.equal(200);
      expect(res.body).to.include('<title>svc console</title>');
      expect(res.headers['content-type']).to.match(/^text\/html/);
      expect(res.headers['cache-control']).to.equal('no-cache');
      expect(res.headers['content-security-policy']).to.equal(CONSOLE_CSP);
      expect(CONSOLE_CSP).to.include("script-src 'self'").and.not.include('unsafe');
      const again = await inject(handler, {
        method: 'GET',
        url,
        headers: { 'if-modified-since': String(res.headers['last-modified']) },
      });
      expect(again.statusCode, url).to.equal(304);
      expect(again.body).to.equal('');
    }
  });

  it('serves hashed assets as immutable for a year, gzipped to a client that accepts it', async () => {
    const plain = await inject(handler, { method: 'GET', url: '/ui/assets/main-ABC123.js' });
    expect(plain.statusCode).to.equal(200);
    expect(plain.headers['cache-control']).to.equal('max-age=31536000,immutable');
    expect(plain.headers['content-type']).to.match(/javascript/);
    expect(plain.headers['content-encoding']).to.equal(undefined);
    const zipped = await inject(handler, {
      method: 'GET',
      url: '/ui/assets/main-ABC123.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    expect(zipped.rawPayload.length).to.be.below(plain.rawPayload.length);
  });

  it('answers a missing asset, or a way out of its directory, with a 404 envelope', async () => {
    for (const url of ['/ui/assets/nope.js', '/ui/assets/.env', '/ui/assets/%2e%2e%2findex.html', '/ui/index.html']) {
      const res = await inject(handler, { method: 'GET', url });
      expect(res.statusCode, url).to.equal(404);
      expect(res.json().error, url).to.equal('not_found');
    }
  });

  it('says to build it when there is no console directory', async () => {
    const res = await inject(consoleApp('/no/such/console'), { method: 'GET', url: '/' });
    expect(res.statusCode).to.equal(404);
    expect(res.json().detail).to.match(/npm run build/);
  });

  it('is open with an API key (the page asks for the key), while the API is not', async () => {
    const server = testServer({ apiKey: 'k' });
    const page = await server.request({ method: 'GET', url: '/' });
    expect(page.statusCode, page.body).to.equal(200);
    expect((await server.request({ method: 'POST', url: '/' })).statusCode).to.equal(401);
    expect((await server.request({ method: 'GET', url: '/catalog' })).statusCode).to.equal(401);
  });
});

describe('GET /catalog', () => {
  it('lists the catalog files with their kind and description; an empty list without a catalog', async () => {
    const catalog = await Catalog.open('examples/catalog');
    const res = await testServer({ deps: { catalog } }).request({ method: 'GET', url: '/catalog' });
    expect(res.statusCode).to.equal(200);
    const items = res.json().items as { name: string; kind: string }[];
    expect(items.map((i) => [i.name, i.kind])).to.deep.equal(catalog.items.map((i) => [i.name, i.kind]));
    expect(items.find((i) => i.kind === 'runnable')).to.have.keys(
      'name',
      'kind',
      'description',
      'category',
      'tags',
      'size',
    );
    expect((await testServer().request({ method: 'GET', url: '/catalog' })).json()).to.deep.equal({ items: [] });
  });
});

describe('GET /scenarios/{id}/series', () => {
  const scenario = `signal_type: metrics
name: queue_depth
rate: 10
generator: {type: step, start: 0, step_size: 1}
dynamic_labels: [{key: queue, values: [a, b, c]}]
`;

  it('gives the latest value of each series, as GET /scenarios/metrics shows it', async () => {
    const server = testServer();
    const started = await server.request({
      method: 'POST',
      url: '/scenarios',
      headers: { 'content-type': 'text/yaml' },
      payload: scenario,
    });
    expect(started.statusCode, started.body).to.equal(201);
    const { id } = started.json();
    server.advance(1000);
    const res = await server.request({ method: 'GET', url: `/scenarios/${id}/series` });
    expect(res.statusCode).to.equal(200);
    const scraped = (await server.request({ method: 'GET', url: '/scenarios/metrics' })).body
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => {
        const [name, value] = line.split(' ');
        return { name, value: Number(value) };
      });
    expect(scraped).to.have.length(3);
    expect(res.json()).to.deep.equal({ series: scraped, total: 3 });
    const limited = await server.request({ method: 'GET', url: `/scenarios/${id}/series?limit=2` });
    expect(limited.json()).to.deep.equal({ series: scraped.slice(0, 2), total: 3 });
  });

  it('refuses a limit out of bounds, naming it; 404 for an unknown id', async () => {
    const server = testServer();
    const { id } = (
      await server.request({
        method: 'POST',
        url: '/scenarios',
        headers: { 'content-type': 'text/yaml' },
        payload: scenario,
      })
    ).json();
    for (const limit of ['0', '1001', 'x', '1.5']) {
      const res = await server.request({ method: 'GET', url: `/scenarios/${id}/series?limit=${limit}` });
      expect(res.statusCode, limit).to.equal(400);
      expect(res.json()).to.deep.equal({
        error: 'invalid_query',
        detail: `limit: expected an integer from 1 to 1000, got "${limit}"`,
      });
    }
    expect((await server.request({ method: 'GET', url: '/scenarios/nope/series' })).statusCode).to.equal(404);
  });
});
