import { expect } from 'chai';
import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { DEFAULT_HTTP_LIMITS, HTTP_LIMIT_FLAGS, limitedServer, type HttpLimits } from '../../lib/server/http-limits.js';
import { DEFAULT_MAX_ENTRIES } from '../../lib/server/registry.js';
import { spawnServerProcess } from '../support/server-process.js';
import { testServer } from '../support/server.js';
import { codeSpan, docTable } from '../support/doc-tables.js';

/**
 * Slow and greedy clients (docs/reliability.md): svc-server's HTTP limits on a real listening socket, with
 * the app's own handler, timeouts shortened so each case takes well under a second or two.
 */

async function listening(limits: Partial<HttpLimits>): Promise<{ server: Server; port: number }> {
  const server = limitedServer(testServer().handler, { ...DEFAULT_HTTP_LIMITS, ...limits });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A raw connection, with everything it received and a promise of its closing. */
function rawClient(port: number) {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, received: () => received, closed, connected };
}

const health = async (port: number) => (await fetch(`http://127.0.0.1:${port}/health`)).status;

describe('svc-server HTTP limits: slow and greedy clients', function () {
  this.timeout(20_000);
  let server: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("answers what node's parser refuses (a URL over 16 KiB, bytes that are not HTTP) in the API's error envelope", async () => {
    let port: number;
    ({ server, port } = await listening({}));
    for (const [request, head, error] of [
      [
        `GET /scenarios/${'x'.repeat(100_000)} HTTP/1.1\r\nHost: a\r\n\r\n`,
        '431 Request Header Fields Too Large',
        'headers_too_large',
      ],
      ['NOT HTTP\r\n\r\n', '400 Bad Request', 'bad_request'],
    ] as const) {
      const client = rawClient(port);
      sockets.push(client.socket);
      await client.connected;
      client.socket.write(request);
      await client.closed;
      const [status, body] = client.received().split('\r\n\r\n');
      expect(status).to.match(new RegExp(`^HTTP/1\\.1 ${head}\r\nContent-Type: application/json`));
      expect(JSON.parse(body!)).to.include({ error });
    }
    expect(await health(port)).to.equal(200);
  });

  it('answers others while a client sends its headers a byte at a time, then closes it with 408', async () => {
    let port: number;
    ({ server, port } = await listening({ headersTimeoutMs: 400, requestTimeoutMs: 400 }));
    const slow = rawClient(port);
    sockets.push(slow.socket);
    await slow.connected;
    const started = performance.now();
    const text = `GET /health HTTP/1.1\r\nHost: svc\r\nX-Slow: ${'a'.repeat(1000)}`;
    let sent = 0;
    const drip = setInterval(() => slow.socket.write(text[sent++ % text.length]!), 50);
    try {
      // Others are answered while the slow one trickles.
      for (let i = 0; i < 5; i++) expect(await health(port)).to.equal(200);
      await slow.closed;
    } finally {
      clearInterval(drip);
    }
    const held = performance.now() - started;
    expect(slow.received()).to.match(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(slow.received().split('\r\n\r\n')[1]!)).to.include({ error: 'request_timeout' });
    expect(sent).to.be.greaterThan(3);
    // Node checks the timeouts every second at most (our connectionsCheckingInterval).
    expect(held).to.be.within(400, 2_500);
  });

  it('closes a connection past --max-connections as it arrives; the ones held keep working', async () => {
    let port: number;
    ({ server, port } = await listening({ maxConnections: 2 }));
    let accepted = 0;
    const bothAccepted = new Promise<void>((resolve) => server!.on('connection', () => ++accepted === 2 && resolve()));
    const held = [rawClient(port), rawClient(port)];
    sockets.push(...held.map((c) => c.socket));
    await bothAccepted;
    const third = rawClient(port);
    sockets.push(third.socket);
    await third.closed;
    expect(third.received()).to.equal('');
    held[0]!.socket.write('GET /health HTTP/1.1\r\nHost: svc\r\n\r\n');
    await new Promise<void>((resolve) => held[0]!.socket.on('data', () => resolve()));
    expect(held[0]!.received()).to.match(/^HTTP\/1\.1 200 OK\r\n/);
  });

  it('closes a keep-alive connection after --max-requests-per-socket requests, and when idle', async () => {
    let port: number;
    ({ server, port } = await listening({ maxRequestsPerSocket: 2, keepAliveTimeoutMs: 300 }));
    const client = rawClient(port);
    sockets.push(client.socket);
    const request = 'GET /health HTTP/1.1\r\nHost: svc\r\n\r\n';
    // One request after the other, as a keep-alive client sends them.
    client.socket.once('data', () => client.socket.write(request));
    client.socket.write(request);
    await client.closed;
    const answers = client.received().split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(answers).to.have.length(2);
    expect(answers[0]).to.match(
      /^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: keep-alive\r\n[\s\S]*Keep-Alive: timeout=0, max=2\r\n/,
    );
    expect(answers[1]).to.match(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n/);

    const idle = rawClient(port);
    sockets.push(idle.socket);
    idle.socket.write(request);
    const started = performance.now();
    await idle.closed;
    expect(idle.received()).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    expect(performance.now() - started).to.be.within(250, 2_500);
  });

  describe('the flags', () => {
    const exitOf = async (args: string[], env: Record<string, string> = {}) => {
      const child = spawnServerProcess({ args, env });
      let err = '';
      child.stderr!.on('data', (chunk) => (err += chunk));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      return { code, err };
    };

    it('exits 2 naming the flag or variable for a limit out of bounds, or headers longer than the request', async () => {
      expect(await exitOf(['--headers-timeout', '0'])).to.deep.include({ code: 2 });
      expect((await exitOf(['--headers-timeout', '0'])).err).to.include(
        '--headers-timeout: expected an integer from 1 to 3600000, got "0"',
      );
      expect((await exitOf([], { SVC_MAX_CONNECTIONS: 'many' })).err).to.include(
        'SVC_MAX_CONNECTIONS: expected an integer from 1 to 1000000, got "many"',
      );
      expect((await exitOf(['--headers-timeout', '5000', '--request-timeout', '1000'])).err).to.include(
        '--headers-timeout (5000) must not exceed --request-timeout (1000)',
      );
    });
  });
});

describe('svc-server limit flags', () => {
  it("docs/reliability.md's table has every limit flag, with its variable and default", () => {
    const rows = docTable('reliability.md', { keep: ([flag]) => flag!.startsWith('`--') });
    const limits = [
      ...HTTP_LIMIT_FLAGS.map(({ key, flag, env }) => ({ flag, env, value: DEFAULT_HTTP_LIMITS[key] })),
      { flag: '--max-entries', env: 'SVC_MAX_ENTRIES', value: DEFAULT_MAX_ENTRIES },
    ];
    for (const { flag, env, value } of limits) {
      const row = rows.find(([cell]) => codeSpan(cell!).startsWith(`${flag} `));
      expect(row?.slice(0, 3).join(' | '), flag).to.match(
        new RegExp(`^\`${flag} (MS|N)\` \\| \`${env}\` \\| ${value}\\b`),
      );
    }
  });
});
