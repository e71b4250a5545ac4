import { expect } from 'chai';
import { errorRatio, groupByTrace, spansFromJsonLines, traceProblems, type TraceSpan } from '../support/traces.js';

/**
 * The trace checker the trace specs rely on, on hand-made traces: a well-formed one passes, and
 * each kind of breakage is reported alone, in words. (Its converters from OTLP and Zipkin are
 * proven on official clients' output in otlp-receiver.spec.ts and zipkin-receiver.spec.ts.)
 */
describe('trace invariants (spec/support/traces.ts)', () => {
  const A = 'a'.repeat(32);
  const B = 'b'.repeat(32);
  const id = (n: number) => n.toString(16).padStart(16, '0');
  const ms = (n: number) => BigInt(n) * 1_000_000n;

  function span(
    n: number,
    parent: number | undefined,
    service: string,
    kind: TraceSpan['kind'],
    name: string,
    [start, end]: [number, number],
    more: Partial<TraceSpan> = {},
  ): TraceSpan {
    return {
      traceId: A,
      spanId: id(n),
      ...(parent === undefined ? {} : { parentSpanId: id(parent) }),
      service,
      name,
      kind,
      start: ms(start),
      end: ms(end),
      status: 'unset',
      attributes: {},
      ...more,
    };
  }

  /**
   * A checkout: frontend calls cart, cart queries its database (no server span: a database is not
   * a traced service), publishes an order a worker consumes after cart has answered, and an audit
   * record that a batch job of another trace consumes through a link.
   */
  const checkout: TraceSpan[] = [
    span(1, undefined, 'frontend', 'server', 'GET /checkout', [0, 100]),
    span(2, 1, 'frontend', 'client', 'POST /charge', [10, 60]),
    span(3, 2, 'cart', 'server', 'POST /charge', [15, 55], { status: 'error' }),
    span(4, 3, 'cart', 'client', 'SELECT orders', [20, 30], { attributes: { 'db.system': 'postgresql' } }),
    span(5, 3, 'cart', 'producer', 'orders publish', [40, 45]),
    span(6, 5, 'worker', 'consumer', 'orders process', [50, 150]),
    span(7, 3, 'cart', 'producer', 'audit publish', [46, 47]),
    span(8, undefined, 'auditor', 'consumer', 'audit batch', [200, 210], {
      traceId: B,
      links: [{ traceId: A, spanId: id(7), attributes: {} }],
    }),
  ];
  const replace = (n: number, changes: Partial<TraceSpan>) =>
    checkout.map((s) => (s.spanId === id(n) ? { ...s, ...changes } : s));
  const without = (n: number) => checkout.filter((s) => s.spanId !== id(n));

  it('a well-formed trace, a consumer outliving its producer and a consumer linked from another trace: no problem', () => {
    expect(traceProblems(checkout)).to.deep.equal([]);
  });

  it('a parent that is not in the trace', () => {
    expect(traceProblems(replace(4, { parentSpanId: id(99) }))).to.deep.equal([
      `trace ${A}: the parent ${id(99)} of cart client span "SELECT orders" (${id(4)}) is not in the trace`,
    ]);
  });

  it('a trace with several roots, and one with none', () => {
    expect(traceProblems([...checkout, span(9, undefined, 'frontend', 'internal', 'stray', [0, 1])])).to.deep.equal([
      `trace ${A}: 2 root spans: frontend server span "GET /checkout" (${id(1)}), frontend internal span "stray" (${id(9)})`,
    ]);
    // Two spans, each the other's parent: every span has a parent, and it is in the trace.
    const loop = [span(1, 2, 'a', 'internal', 'one', [0, 10]), span(2, 1, 'a', 'internal', 'two', [0, 10])];
    expect(traceProblems(loop)).to.deep.equal([`trace ${A}: no root span`]);
  });

  it('a child starting before its parent, and one ending after it', () => {
    expect(traceProblems(replace(4, { start: ms(12) }))).to.deep.equal([
      `trace ${A}: cart client span "SELECT orders" (${id(4)}) starts 3 ms before its parent cart server span "POST /charge" (${id(3)})`,
    ]);
    expect(traceProblems(replace(3, { end: ms(60) + 500_000n }))).to.deep.equal([
      `trace ${A}: cart server span "POST /charge" (${id(3)}) ends 0.5 ms after its parent frontend client span "POST /charge" (${id(2)})`,
    ]);
  });

  it('a consumer may outlive its producer, but not start before it', () => {
    expect(traceProblems(replace(6, { start: ms(39) }))).to.deep.equal([
      `trace ${A}: worker consumer span "orders process" (${id(6)}) starts 1 ms before its parent cart producer span "orders publish" (${id(5)})`,
    ]);
  });

  it('a span that ends before it starts', () => {
    expect(traceProblems(replace(4, { start: ms(30), end: ms(20) }))).to.deep.equal([
      `trace ${A}: cart client span "SELECT orders" (${id(4)}) ends 10 ms before it starts`,
    ]);
  });

  it('a client span with no server child, unless it calls something outside the traced services', () => {
    const unanswered = checkout.filter((s) => s.spanId === id(1) || s.spanId === id(2));
    expect(traceProblems(unanswered)).to.deep.equal([
      `trace ${A}: frontend client span "POST /charge" (${id(2)}) has no server span as its child`,
    ]);
    expect(traceProblems(replace(4, { attributes: {} }))).to.deep.equal([
      `trace ${A}: cart client span "SELECT orders" (${id(4)}) has no server span as its child`,
    ]);
    expect(
      traceProblems(replace(4, { attributes: {} }), { external: (s) => s.name.startsWith('SELECT') }),
    ).to.deep.equal([]);
  });

  it('a producer no consumer took: neither a consumer child nor a link from a consumer', () => {
    expect(traceProblems(without(6))).to.deep.equal([
      `trace ${A}: cart producer span "orders publish" (${id(5)}) has no consumer: no consumer child, no consumer span linking to it`,
    ]);
    // A link from a span that is not a consumer does not count.
    expect(traceProblems(replace(8, { kind: 'server' }))).to.deep.equal([
      `trace ${A}: cart producer span "audit publish" (${id(7)}) has no consumer: no consumer child, no consumer span linking to it`,
    ]);
  });

  it('two spans of a trace with the same id', () => {
    expect(
      traceProblems([
        ...checkout,
        span(4, 3, 'cart', 'client', 'SELECT items', [31, 35], { attributes: { 'db.system': 'postgresql' } }),
      ]),
    ).to.deep.equal([
      `trace ${A}: cart client span "SELECT orders" (${id(4)}) and cart client span "SELECT items" (${id(4)}) have the same span id`,
    ]);
  });

  it('groupByTrace keeps traces and spans in arrival order', () => {
    const groups = groupByTrace([checkout[7]!, ...checkout.slice(0, 7)]);
    expect([...groups.keys()]).to.deep.equal([B, A]);
    expect(groups.get(A)!.map((s) => s.spanId)).to.deep.equal(checkout.slice(0, 7).map((s) => s.spanId));
  });

  it('errorRatio: the share of error spans among all, or among those a filter picks; no span picked is an error', () => {
    expect(errorRatio(checkout)).to.equal(1 / 8);
    expect(errorRatio(checkout, (s) => s.service === 'cart')).to.equal(1 / 4);
    expect(() => errorRatio(checkout, (s) => s.service === 'nowhere')).to.throw('no span passes the filter');
  });

  describe('spansFromJsonLines', () => {
    const line = {
      trace_id: A,
      span_id: id(1),
      service: 'frontend',
      name: 'GET /checkout',
      kind: 'server',
      start: '2024-01-01T00:00:00.123456789Z',
      end: '2024-01-01T00:00:01Z',
      status: 'ok',
      attributes: { 'http.route': '/checkout', 'http.response.status_code': 200 },
    };
    const epoch = BigInt(Date.UTC(2024, 0, 1)) * 1_000_000n;

    it('reads the text of a file, one span a line, RFC 3339 times to the nanosecond', () => {
      const text = `${JSON.stringify(line)}\n\n${JSON.stringify({ ...line, span_id: id(2), parent_span_id: id(1), start: '2024-01-01T00:00:00.5Z' })}\n`;
      expect(spansFromJsonLines(text)).to.deep.equal([
        {
          traceId: A,
          spanId: id(1),
          service: 'frontend',
          name: 'GET /checkout',
          kind: 'server',
          start: epoch + 123_456_789n,
          end: epoch + 1_000_000_000n,
          status: 'ok',
          attributes: { 'http.route': '/checkout', 'http.response.status_code': 200 },
        },
        {
          traceId: A,
          spanId: id(2),
          parentSpanId: id(1),
          service: 'frontend',
          name: 'GET /checkout',
          kind: 'server',
          start: epoch + 500_000_000n,
          end: epoch + 1_000_000_000n,
          status: 'ok',
          attributes: { 'http.route': '/checkout', 'http.response.status_code': 200 },
        },
      ]);
    });

    for (const [what, change, problem] of [
      ['a short trace id', { trace_id: 'abc' }, 'trace_id must be 32 lower-hex digits'],
      ['an unknown kind', { kind: 'SERVER' }, 'kind must be one of server, client, producer, consumer, internal'],
      ['an unknown status', { status: 'failed' }, 'status must be one of ok, error, unset'],
      ['a time with an offset', { end: '2024-01-01T01:00:00+01:00' }, 'start and end must be RFC 3339 UTC times'],
      ['epoch nanoseconds', { start: '1704067200000000000' }, 'start and end must be RFC 3339 UTC times'],
    ] as const)
      it(`refuses ${what}, naming the record`, () => {
        expect(() => spansFromJsonLines([line, { ...line, ...change }] as never)).to.throw(
          `json_lines span 2 ${JSON.stringify({ ...line, ...change })}: ${problem}`,
        );
      });
  });
});
