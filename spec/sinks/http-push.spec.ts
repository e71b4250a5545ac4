import { expect } from 'chai';
import { createServer } from 'node:net';
import type { SinkReport } from '../../operators/deliver.js';
import { createSink } from '../../lib/sinks/index.js';
import { httpPushSink } from '../../lib/sinks/http-push.js';
import { chunk } from '../support/batches.js';
import { startBlackHole } from '../support/backends/black-hole.js';
import { startHttpReceiver, type HttpReceiver } from '../support/backends/http-receiver.js';
import { freeTcpPort, waitFor } from '../support/backends/ports.js';
import { VERSION } from '../../lib/version.js';
import { settle } from '../support/clock.js';

const QUICK_RETRY = { maxAttempts: 3, initialBackoff: 10, maxBackoff: 20 };

describe('http_push sink', () => {
  let receiver: HttpReceiver;
  beforeEach(async () => (receiver = await startHttpReceiver()));
  afterEach(async () => receiver.stop());

  it('POSTs the encoded lines with content type and custom headers (tenant, bearer)', async () => {
    const sink = createSink(
      {
        type: 'http_push',
        url: `${receiver.url}/api/v1/import/prometheus?extra_label=x`,
        headers: { 'X-Scope-OrgID': 'team-a', Authorization: 'Bearer s3cret' },
      },
      { encoder: 'metrics_text' },
    );
    sink.write(chunk('up 1 1000\n'));
    sink.write(chunk('up 1 2000\n'));
    await sink.close();
    expect(receiver.accepted).to.have.length(1);
    const [request] = receiver.accepted;
    expect(request).to.deep.include({
      method: 'POST',
      path: '/api/v1/import/prometheus?extra_label=x',
      body: 'up 1 1000\nup 1 2000\n',
    });
    expect(request!.headers).to.include({
      'content-type': 'text/plain',
      'x-scope-orgid': 'team-a',
      authorization: 'Bearer s3cret',
      'content-length': '20',
      'user-agent': `svc/${VERSION}`,
    });
  });

  it('names itself svc/<version> in User-Agent unless headers give one', async () => {
    const sink = createSink({ type: 'http_push', url: receiver.url, headers: { 'user-agent': 'probe/1' } });
    sink.write(chunk('up 1 1000\n'));
    await sink.close();
    expect(receiver.accepted.map((r) => r.headers['user-agent'])).to.deep.equal(['probe/1']);
  });

  it('sends credentials of the URL as basic auth and never shows them in messages', async () => {
    receiver.answer(() => ({ status: 401, body: 'bad credentials' }));
    const url = new URL(receiver.url);
    const sink = httpPushSink({ url: `http://svc:p%40ss@${url.host}/push` });
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(receiver.requests[0]!.headers.authorization).to.equal(`Basic ${Buffer.from('svc:p@ss').toString('base64')}`);
    expect(error.message).to.equal(
      `http_push sink: POST http://${url.host}/push answered 401 Unauthorized: "bad credentials"; check the credentials in headers (Authorization, tenant header)`,
    );
  });

  it("masks the credentials it sent where the receiver's answer repeats them", async () => {
    receiver.answer(() => ({ status: 401, body: 'token tok-SECRET1 (key SECRET2) for svc:p@ss is unknown' }));
    const url = new URL(receiver.url);
    const sink = httpPushSink({
      url: `http://svc:p%40ss@${url.host}/push`,
      headers: { Authorization: 'Bearer tok-SECRET1', 'X-Api-Key': 'SECRET2', 'X-Scope-OrgID': 'team-a' },
    });
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.include('answered 401 Unauthorized: "token *** (key ***) for svc:*** is unknown"');
  });

  it("masks the Basic credentials made of the URL's userinfo where the answer repeats them without `Basic`", async () => {
    receiver.answer((request) => ({ status: 403, body: `token ${request.headers.authorization!.slice(6)} denied` }));
    const url = new URL(receiver.url);
    const sink = httpPushSink({ url: `http://svc:p%40ss@${url.host}/push` });
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.include('answered 403 Forbidden: "token *** denied"');
  });

  it('sends json_lines as NDJSON unless content_type (or a Content-Type header) says otherwise', async () => {
    const ndjson = createSink({ type: 'http_push', url: receiver.url }, { encoder: 'json_lines' });
    const explicit = createSink(
      { type: 'http_push', url: receiver.url, content_type: 'application/json' },
      { encoder: 'json_lines' },
    );
    const header = createSink(
      { type: 'http_push', url: receiver.url, headers: { 'content-type': 'text/x-custom' } },
      { encoder: 'json_lines' },
    );
    for (const sink of [ndjson, explicit, header]) {
      sink.write(chunk('{}\n'));
      await sink.close();
    }
    expect(receiver.accepted.map((r) => r.headers['content-type'])).to.deep.equal([
      'application/x-ndjson',
      'application/json',
      'text/x-custom',
    ]);
  });

  it('a low-rate stream still arrives within about a second (maximum buffer age)', async () => {
    const sink = createSink({ type: 'http_push', url: receiver.url });
    const start = Date.now();
    sink.write(chunk('slow 1 0\n'));
    await waitFor('the first small batch', () => receiver.accepted[0], 3000, 10);
    expect(Date.now() - start).to.be.within(900, 2000);
    await sink.close();
  });

  it('batch_size is the threshold that makes a request go out', async () => {
    const sink = httpPushSink({ url: receiver.url, batchSize: 512 });
    const line = 'cpu{host="web-1"} 0.5 1700000000000\n';
    for (let i = 0; i < 100; i++) {
      sink.write(chunk(line));
      await settle();
    }
    await sink.close();
    const sizes = receiver.accepted.map((r) => r.body.length);
    expect(sizes.reduce((a, b) => a + b, 0)).to.equal(100 * line.length);
    for (const size of sizes.slice(0, -1)) expect(size).to.be.within(512, 512 + line.length);
  });

  it('retries 429 and 5xx, then delivers; the retries are reported', async () => {
    let n = 0;
    receiver.answer(() =>
      ++n === 1 ? { status: 503, body: 'warming up' } : n === 2 ? { status: 429 } : { status: 204 },
    );
    const sink = httpPushSink({ url: receiver.url, retry: QUICK_RETRY });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    sink.write(chunk('a 1 1\n'));
    await sink.close();
    expect(reports.map((r) => r.kind)).to.deep.equal(['retrying', 'retrying', 'delivered']);
    expect((reports[0] as { error: Error }).error.message).to.match(/answered 503 Service Unavailable: "warming up"$/);
    expect(receiver.text()).to.equal('a 1 1\n');
  });

  it('a redirect is not followed and says where it points, its credentials masked', async () => {
    receiver.answer(() => ({
      status: 307,
      headers: { Location: 'http://bob:s3cret@other.example:9000/api/v1/import?token=t0k' },
    }));
    const sink = httpPushSink({ url: `${receiver.url}/push`, retry: QUICK_RETRY });
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(
      `http_push sink: POST ${receiver.url}/push answered 307 Temporary Redirect to http://bob:***@other.example:9000/api/v1/import?token=***; ` +
        'svc does not follow redirects (they would take the data, and the credentials of the sink, to another address): set url to the address the data should go to',
    );
    expect(error.message).not.to.match(/s3cret|t0k/);
    expect(receiver.requests).to.have.length(1);
  });

  it('a redirect to a relative address names it in full', async () => {
    receiver.answer(() => ({ status: 308, headers: { Location: '/v2/push' } }));
    const sink = httpPushSink({ url: `${receiver.url}/push` });
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.include(`answered 308 Permanent Redirect to ${receiver.url}/v2/push; svc does not follow`);
  });

  it('a 400 from an import endpoint is not retried and names content_type', async () => {
    receiver.answer(() => ({ status: 400, body: 'cannot parse line "a 1 1": unexpected   token\n' }));
    const sink = httpPushSink({
      url: `${receiver.url}/api/v1/import`,
      retry: QUICK_RETRY,
      contentType: 'application/json',
    });
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(
      `http_push sink: POST ${receiver.url}/api/v1/import answered 400 Bad Request: "cannot parse line "a 1 1": unexpected token"; ` +
        'check that content_type ("application/json") is what the endpoint imports (text/plain for the text exposition format) and that the encoder matches the endpoint',
    );
    expect(receiver.requests).to.have.length(1);
  });

  it('a destination that takes the connection but never answers fails the request after the timeout (retryable), saying so', async () => {
    receiver.answer(() => 'stall');
    const sink = httpPushSink({
      url: receiver.url,
      timeout: 100,
      retry: { maxAttempts: 2, initialBackoff: 1, maxBackoff: 1 },
    });
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(
      `http_push sink: ${new URL(receiver.url).host} accepted the connection but did not answer within 0.1 s: is the endpoint overloaded or stuck? (gave up after 2 attempts)`,
    );
    expect(receiver.requests).to.have.length(2);
  });

  it('a host that never completes the handshake fails the request after the timeout, not the kernel connect retries', async () => {
    const hole = await startBlackHole();
    try {
      const sink = httpPushSink({
        url: `http://${hole.address}/write`,
        timeout: 300,
        retry: { maxAttempts: 1, initialBackoff: 1, maxBackoff: 1 },
      });
      sink.write(chunk('a 1 1\n'));
      const error = (await sink.close().catch((e: unknown) => e)) as Error;
      // Connecting when the timeout came: the address, not a silent endpoint (which takes the connection).
      expect(error.message).to.match(
        /^http_push sink: no answer from 127\.0\.0\.1:\d+ in time: is the address reachable/,
      );
    } finally {
      await hole.stop();
    }
  });

  it('connection refused says to check that the backend runs on that port', async () => {
    const port = await freeTcpPort();
    const sink = httpPushSink({
      url: `http://127.0.0.1:${port}/api/v1/import/prometheus`,
      retry: { maxAttempts: 1, initialBackoff: 1, maxBackoff: 1 },
    });
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(
      `http_push sink: connection refused by 127.0.0.1:${port}: is the backend running, and is 127.0.0.1:${port} the right port?`,
    );
  });

  it('a stop into a stalled destination ends after flush_timeout, not after every retry', async () => {
    receiver.answer(() => 'stall');
    const sink = httpPushSink({ url: receiver.url, flushTimeout: 200 });
    sink.write(chunk('a 1 1\n'));
    const started = Date.now();
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(Date.now() - started).to.be.within(150, 1000);
    expect(error.message).to.equal(
      `http_push sink: ${receiver.url}/ acknowledged nothing within 0.2 s of the flush; the data still held was dropped`,
    );
  });

  it('a host that does not resolve is a sink failure saying what to check', async () => {
    const sink = httpPushSink({
      url: 'http://no-such-host.invalid:8428/api/v1/import',
      retry: { maxAttempts: 1, initialBackoff: 1, maxBackoff: 1 },
    });
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(
      'http_push sink: cannot resolve host "no-such-host.invalid": check the host name in the address',
    );
  });

  it('a peer that resets the connection is a retryable failure that says so in words, without raw error codes', async () => {
    const resetting = createServer((socket) => socket.resetAndDestroy());
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = resetting.address() as { port: number };
      const sink = httpPushSink({
        url: `http://127.0.0.1:${port}/push`,
        retry: { maxAttempts: 2, initialBackoff: 1, maxBackoff: 1 },
      });
      const reports: SinkReport[] = [];
      sink.reports!.subscribe((r) => reports.push(r));
      sink.write(chunk('a 1 1\n'));
      const error = (await sink.close().catch((e: unknown) => e)) as Error;
      expect(reports.map((r) => r.kind)).to.deep.equal(['retrying', 'failed']);
      expect(error.message).to.equal(
        `http_push sink: the connection to 127.0.0.1:${port} was reset: check the backend's log (did it restart, or refuse the data?) (gave up after 2 attempts)`,
      );
    } finally {
      resetting.close();
    }
  });

  it('a header value HTTP cannot carry fails at once with a message naming the header, never its value', async () => {
    const sink = httpPushSink({ url: receiver.url, headers: { Authorization: 'Bearer s3cr€t' }, retry: QUICK_RETRY });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    sink.write(chunk('a 1 1\n'));
    const error = (await sink.close().catch((e: unknown) => e)) as Error;
    expect(reports.map((r) => r.kind)).to.deep.equal(['failed']);
    expect(error.message).to.equal(
      `http_push sink: cannot send to ${receiver.url}/: the value of header "Authorization" has characters HTTP headers cannot carry; check headers`,
    );
    expect(receiver.requests).to.have.length(0);
  });
});
