import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { Annotation, BatchRecorder, ExplicitContext, Instrumentation, Tracer, jsonEncoder, option } from 'zipkin';
import { HttpLogger } from 'zipkin-transport-http';
import { startZipkinReceiver, type ZipkinReceiver } from '../support/backends/zipkin-receiver.js';
import { spansFromZipkin, traceProblems } from '../support/traces.js';

/** The receiver the zipkin_json specs use, checked with zipkin-js's HTTP transport as an independent client. */
describe('the Zipkin test receiver reads what the official Zipkin JS HTTP transport sends', function () {
  this.timeout(20_000);
  let receiver: ZipkinReceiver;
  beforeEach(async () => (receiver = await startZipkinReceiver()));
  afterEach(async () => receiver.stop());

  /**
   * A tracer of one service as that service would run it: its own recorder and transport (a
   * BatchRecorder keys spans by id, so the client and server halves of a shared span would merge
   * in one recorder), posting JSON v2 every 10 ms.
   */
  function tracerOf(service: string, options: { supportsJoin?: boolean } = {}): Tracer {
    const logger = new HttpLogger({ endpoint: receiver.endpoint, jsonEncoder: jsonEncoder.JSON_V2, httpInterval: 10 });
    return new Tracer({
      ctxImpl: new ExplicitContext(),
      recorder: new BatchRecorder({ logger }),
      localServiceName: service,
      traceId128Bit: true,
      ...options,
    });
  }

  /** Epoch microseconds of the explicit annotation times. */
  const T0 = 1_700_000_000_000_000;

  it('a client span and the server span of its callee: ids, kinds, timestamps, durations, tags, service names', async () => {
    const frontend = tracerOf('frontend');
    // Without join the callee opens a child span, as OpenTelemetry-instrumented services do.
    const cart = tracerOf('cart', { supportsJoin: false });
    const callId = frontend.createRootId();
    frontend.letId(callId, () => {
      frontend.recordServiceName('frontend');
      frontend.recordRpc('post /charge');
      frontend.recordAnnotation(new Annotation.ServerAddr({ serviceName: 'cart' }));
      frontend.recordAnnotation(new Annotation.ClientSend(), T0);
    });
    const servedId = cart.createChildId(callId);
    cart.letId(servedId, () => {
      cart.recordServiceName('cart');
      cart.recordRpc('post /charge');
      cart.recordAnnotation(new Annotation.ServerRecv(), T0 + 1_000);
      cart.recordBinary('http.route', '/charge');
      cart.recordBinary('error', 'card declined');
      cart.recordAnnotation(new Annotation.ServerSend(), T0 + 4_000);
    });
    frontend.letId(callId, () => {
      frontend.recordBinary('http.status_code', 500);
      frontend.recordAnnotation(new Annotation.ClientRecv(), T0 + 5_000);
    });
    await receiver.arrived(2);

    expect(receiver.posts.map((post) => [post.status, post.headers['content-type']])).to.deep.equal([
      [202, 'application/json'],
      [202, 'application/json'],
    ]);
    const byKind = Object.fromEntries(receiver.spans.map((span) => [span.kind, span]));
    expect(byKind.CLIENT).to.deep.equal({
      traceId: callId.traceId,
      id: callId.spanId,
      name: 'post /charge',
      kind: 'CLIENT',
      timestamp: T0,
      duration: 5_000,
      localEndpoint: { serviceName: 'frontend' },
      remoteEndpoint: { serviceName: 'cart' },
      tags: { 'http.status_code': '500' },
    });
    expect(byKind.SERVER).to.deep.equal({
      traceId: callId.traceId,
      parentId: callId.spanId,
      id: servedId.spanId,
      name: 'post /charge',
      kind: 'SERVER',
      timestamp: T0 + 1_000,
      duration: 3_000,
      localEndpoint: { serviceName: 'cart' },
      tags: { 'http.route': '/charge', error: 'card declined' },
    });
    expect(callId.traceId).to.match(/^[0-9a-f]{32}$/);
    expect(servedId.spanId).to.not.equal(callId.spanId);

    const spans = spansFromZipkin(receiver.spans);
    expect(spans.find((span) => span.kind === 'server')).to.deep.include({
      spanId: servedId.spanId,
      parentSpanId: callId.spanId,
      service: 'cart',
      start: BigInt(T0 + 1_000) * 1000n,
      end: BigInt(T0 + 4_000) * 1000n,
      status: 'error',
      attributes: { 'http.route': '/charge' },
    });
    expect(traceProblems(spans)).to.deep.equal([]);
  });

  it("zipkin-js's HTTP instrumentation over B3 headers: the callee joins the client's span (shared), and the converter nests it under the client", async () => {
    const frontend = tracerOf('frontend');
    const client = new Instrumentation.HttpClient({ tracer: frontend, remoteServiceName: 'cart' });
    const server = new Instrumentation.HttpServer({ tracer: tracerOf('cart'), port: 8080 });
    const before = Date.now() * 1000;
    const { headers } = client.recordRequest(
      { headers: {} as Record<string, string> },
      'http://cart:8080/charge',
      'POST',
    );
    const callId = frontend.id;
    const readHeader = (name: string) => option.fromNullable(headers[name]);
    const servedId = server.recordRequest(
      'POST',
      'http://cart:8080/charge',
      readHeader as <T>(name: string) => option.IOption<T>,
    );
    server.recordResponse(servedId, '200');
    client.recordResponse(callId, '200');
    await receiver.arrived(2);
    const after = (Date.now() + 1) * 1000;

    expect(headers).to.deep.include({ 'X-B3-TraceId': callId.traceId, 'X-B3-SpanId': callId.spanId });
    const byKind = Object.fromEntries(receiver.spans.map((span) => [span.kind, span]));
    expect(byKind.CLIENT).to.deep.include({ traceId: callId.traceId, id: callId.spanId });
    expect(byKind.SERVER).to.deep.include({ id: byKind.CLIENT!.id, traceId: byKind.CLIENT!.traceId, shared: true });
    expect(byKind.SERVER!.localEndpoint.serviceName).to.equal('cart');
    expect(byKind.CLIENT!.localEndpoint.serviceName).to.equal('frontend');
    expect(byKind.CLIENT!.remoteEndpoint?.serviceName).to.equal('cart');
    expect(byKind.SERVER!.tags).to.deep.include({ 'http.path': '/charge', 'http.status_code': '200' });
    // Date.now() truncates to the millisecond, and zipkin-js counts microseconds from the truncated
    // millisecond its tracer was made (up to 1 ms behind the clock): bounds 1 ms wider on each side.
    for (const span of receiver.spans) {
      expect(span.timestamp).to.be.within(before - 1000, after);
      expect(span.timestamp! + span.duration!).to.be.within(before - 1000, after);
    }

    const spans = spansFromZipkin(receiver.spans);
    expect(spans.find((span) => span.kind === 'server')).to.deep.include({
      spanId: `${byKind.CLIENT!.id}:shared`,
      parentSpanId: byKind.CLIENT!.id,
    });
    // Each tracer's clock counts from its own start, so the two differ by up to 1 ms, as two hosts'
    // clocks would: the shape of the trace is checked here, nesting in time by the spec above.
    expect(traceProblems(spans.map((span) => ({ ...span, start: 0n, end: 0n })))).to.deep.equal([]);
  });

  describe('refuses what the Zipkin v2 API does not allow, naming the span; accepts gzip', () => {
    const valid = {
      traceId: '5b8efff798038103d269b633813fc60c',
      id: 'eee19b7ec3c1b174',
      kind: 'SERVER',
      name: 'get /',
      timestamp: T0,
      duration: 1_000,
      localEndpoint: { serviceName: 'frontend' },
      tags: { 'http.route': '/' },
    };
    const post = (spans: unknown, headers: Record<string, string> = {}, body?: Buffer) =>
      fetch(receiver.endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: body ?? JSON.stringify(spans),
      }).then(async (response) => `${response.status} ${await response.text()}`.trim());

    it('accepts a valid span, plain and gzip-encoded, and a 16-digit trace id', async () => {
      expect(await post([valid])).to.equal('202');
      expect(await post(undefined, { 'Content-Encoding': 'gzip' }, gzipSync(JSON.stringify([valid])))).to.equal('202');
      expect(await post([{ ...valid, traceId: 'd269b633813fc60c', parentId: 'a2fb4a1d1a96d312' }])).to.equal('202');
      expect(receiver.spans).to.have.length(3);
    });

    for (const [what, change, problem] of [
      ['an upper-case trace id', { traceId: valid.traceId.toUpperCase() }, 'traceId must be 16 or 32 lower-hex'],
      ['a 20-digit trace id', { traceId: valid.traceId.slice(12) }, 'traceId must be 16 or 32 lower-hex'],
      ['an all-zero span id', { id: '0000000000000000' }, 'id must be 16 lower-hex characters'],
      ['a 15-digit parent id', { parentId: 'a2fb4a1d1a96d31' }, 'parentId, when present, must be 16 lower-hex'],
      ['kind INTERNAL', { kind: 'INTERNAL' }, 'kind must be CLIENT, SERVER, PRODUCER or CONSUMER'],
      ['a timestamp in milliseconds with a fraction', { timestamp: 1_700_000_000_000.5 }, 'timestamp must be'],
      ['a zero duration', { duration: 0 }, 'duration must be a positive integer'],
      ['no localEndpoint', { localEndpoint: undefined }, 'localEndpoint.serviceName is required'],
      ['a numeric tag', { tags: { 'http.status_code': 500 } }, 'tags must be an object of string values'],
      ['a malformed annotation', { annotations: [{ timestamp: T0 }] }, 'annotations must be an array'],
    ] as const)
      it(`400 for ${what}, and none of the request's spans is kept`, async () => {
        const answer = await post([valid, { ...valid, ...change }]);
        expect(answer).to.match(/^400 span 1 \{/);
        expect(answer).to.include(problem);
        expect(receiver.spans).to.have.length(0);
      });

    it('400 for a body that is not a JSON array; 415 for protobuf', async () => {
      expect(await post({ spans: [valid] })).to.equal('400 Cannot decode spans: expected a JSON array of spans');
      expect(await post([valid], { 'Content-Type': 'application/x-protobuf' })).to.match(/^415 /);
      expect(receiver.posts.map((p) => p.status)).to.deep.equal([400, 415]);
    });
  });
});
