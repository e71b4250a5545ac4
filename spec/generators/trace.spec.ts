import { expect } from 'chai';
import { incidentWindow, traceGenerator } from '../../lib/generators/trace.js';
import type { IncidentConfig } from '../../lib/language/traces.js';
import { VERSION } from '../../lib/version.js';
import { SAMPLED_FLAG, SPAN_STATUS } from '../../operators/model/span.js';
import { spanBatch, spanRows, ticksAt, traceConfig, type SpanRow } from '../support/trace-generators.js';

type Fields = Record<string, unknown>;

const MS = 1e6;
/** Gap before each call: 10 µs, plus a tenth of the caller's own duration shared among its calls. */
const MIN_GAP = 10_000;

/** The spans of ticks `indexes` (10 a second) of the tree rooted in a `frontend` server span with `calls`. */
function rowsOf(
  calls: Fields[],
  { root = {}, extra = {}, ticks = [0] }: { root?: Fields; extra?: Fields; ticks?: number[] } = {},
): SpanRow[] {
  const config = traceConfig({
    root: { service: 'frontend', operation: 'GET /', kind: 'server', calls, ...root },
    ...extra,
  });
  return spanRows(spanBatch(config, ticksAt(ticks)));
}

const byName = (rows: readonly SpanRow[], name: string, kind?: string) =>
  rows.filter((row) => row.name === name && (kind === undefined || row.kind === kind));

describe('traceGenerator', () => {
  it('makes a client span and, below it, the callee’s server span, a network delay inside it each way', () => {
    const rows = rowsOf([{ service: 'cart', operation: 'GET /cart', kind: 'client', duration: '20ms' }]);
    const [root, client, server] = rows;
    expect(rows.map((r) => [r.service, r.kind, r.parentRow])).to.deep.equal([
      ['frontend', 'server', -1],
      ['frontend', 'client', 0],
      ['cart', 'server', 1],
    ]);
    expect(client!.attributes).to.deep.equal({ 'peer.service': 'cart' });
    expect(server!.end - server!.start).to.equal(20 * MS);
    expect(client!.start).to.equal(root!.start + MIN_GAP);
    for (const delay of [server!.start - client!.start, client!.end - server!.end])
      expect(delay).to.be.within(0.1 * MS, 0.5 * MS);
    expect(root!.end).to.equal(client!.end + MIN_GAP);
  });

  it('lays calls out one after another with gaps, inside their parent’s own duration', () => {
    const calls = ['a', 'b'].map((operation) => ({ operation, kind: 'internal', duration: '10ms' }));
    const [root, a, b] = rowsOf(calls, { root: { duration: 0.1 } });
    const gap = MIN_GAP + Math.round((0.1 * 100 * MS) / 3);
    expect(a!.start).to.equal(root!.start + gap);
    expect(b!.start).to.equal(a!.end + gap);
    expect(root!.end - root!.start).to.equal(100 * MS);
  });

  it('stretches a parent to cover calls longer than its own duration', () => {
    // The root's own duration is about 1 ms, its calls take 40 ms.
    const calls = ['a', 'b'].map((operation) => ({ operation, kind: 'internal', duration: '20ms' }));
    const ticks = Array.from({ length: 20 }, (_, n) => n);
    const rows = rowsOf(calls, { root: { duration: { type: 'exponential', rate: 1000 } }, ticks });
    for (const root of rows.filter((r) => r.parentRow < 0)) {
      const last = rows.find((r) => r.tick === root.tick && r.name === 'b')!;
      expect(root.end).to.equal(last.end + MIN_GAP);
    }
  });

  it('starts parallel calls and their repeats together; the next call waits for the last of them', () => {
    const rows = rowsOf([
      {
        operation: 'fan',
        kind: 'internal',
        duration: { type: 'uniform', min: 0.001, max: 0.01 },
        parallel: true,
        repeat: 3,
      },
      { operation: 'side', kind: 'internal', duration: '2ms', parallel: true },
      { operation: 'after', kind: 'internal', duration: '1ms' },
    ]);
    const group = [...byName(rows, 'fan'), ...byName(rows, 'side')];
    expect(group).to.have.length(4);
    expect(new Set(group.map((r) => r.start)).size).to.equal(1);
    expect(new Set(group.map((r) => r.end - r.start)).size).to.be.greaterThan(1);
    const [after] = byName(rows, 'after');
    expect(after!.start).to.be.above(Math.max(...group.map((r) => r.end)));
  });

  it('marks an error where it is raised, on the client that saw it, and on the caller when it propagates', () => {
    const failing = (propagate: boolean) => ({
      service: 'cart',
      operation: 'GET /cart',
      kind: 'client',
      duration: '1ms',
      error_rate: 1,
      propagate,
    });
    const [root, client, server] = rowsOf([failing(false)]);
    expect([root!.status, client!.status, server!.status]).to.deep.equal([
      SPAN_STATUS.unset,
      SPAN_STATUS.failedCall,
      SPAN_STATUS.error,
    ]);
    expect(rowsOf([failing(true)])[0]!.status).to.equal(SPAN_STATUS.failedCall);
    expect(rowsOf([{ ...failing(true), error_rate: 0 }]).map((r) => r.status)).to.deep.equal([0, 0, 0]);
  });

  it('agrees HTTP status codes and statuses: a server’s 5xx is an error, a client’s 4xx and 5xx, a span in error answers 500', () => {
    const ticks = Array.from({ length: 300 }, (_, n) => n);
    const status = (row: SpanRow) => row.attributes['http.response.status_code'];
    // Codes picked with error_rate 0: the server fails on its 5xx only, its client on the 4xx too.
    const picked = rowsOf(
      [
        {
          service: 'cart',
          operation: 'GET /cart',
          kind: 'client',
          duration: '1ms',
          attributes: { 'http.response.status_code': { one_of: [200, 404, 503] } },
        },
      ],
      { ticks },
    );
    const [server, client] = [byName(picked, 'GET /cart', 'server'), byName(picked, 'GET /cart', 'client')];
    expect(new Set(server.map(status))).to.deep.equal(new Set([200, 404, 503]));
    for (const row of server)
      expect(row.status, `server ${status(row)}`).to.equal(status(row) === 503 ? SPAN_STATUS.error : SPAN_STATUS.unset);
    for (const row of client)
      expect(row.status, `client ${status(row)}`).to.equal(
        status(row) === 200 ? SPAN_STATUS.unset : SPAN_STATUS.failedCall,
      );
    // Nothing is drawn for the codes outside the list.
    expect(picked.filter((row) => status(row) === 500)).to.deep.equal([]);

    // A failure (drawn, or propagated) of a span whose code is none answers 500, on the client of the failed server too.
    const failing = rowsOf(
      [
        {
          service: 'cart',
          operation: 'GET /cart',
          kind: 'client',
          duration: '1ms',
          error_rate: 1,
          propagate: true,
          attributes: { 'http.response.status_code': 404 },
        },
      ],
      { root: { attributes: { 'http.response.status_code': 200, 'http.route': '/' } } },
    );
    expect(failing.map((row) => [row.kind, row.status, status(row)])).to.deep.equal([
      ['server', SPAN_STATUS.failedCall, 500],
      ['client', SPAN_STATUS.failedCall, 500],
      ['server', SPAN_STATUS.error, 500],
    ]);
    // Without a failure the codes stay as written; spans of other kinds keep theirs whatever happens.
    const kept = rowsOf(
      [
        {
          operation: 'work',
          kind: 'internal',
          duration: '1ms',
          error_rate: 1,
          attributes: { 'http.response.status_code': 200 },
        },
      ],
      {
        root: { attributes: { 'http.response.status_code': 200 } },
      },
    );
    expect(kept.map((row) => [row.kind, row.status, status(row)])).to.deep.equal([
      ['server', SPAN_STATUS.unset, 200],
      ['internal', SPAN_STATUS.error, 200],
    ]);
  });

  it('reads only whole numbers as HTTP status codes: a quoted code or a float is written as given, never with a 500 beside it', () => {
    const ticks = Array.from({ length: 200 }, (_, n) => n);
    const status = (row: SpanRow) => row.attributes['http.response.status_code'];
    for (const code of ['503', 200.5, { one_of: ['200', '503'] }]) {
      const rows = rowsOf(
        [
          {
            service: 'cart',
            operation: 'GET /cart',
            kind: 'client',
            duration: '1ms',
            error_rate: 0.5,
            attributes: { 'http.response.status_code': code },
          },
        ],
        { ticks },
      );
      const written = new Set(byName(rows, 'GET /cart', 'server').map(status));
      const given = typeof code === 'object' ? code.one_of : [code];
      expect(
        [...written].every((value) => given.includes(value as never)),
        `${JSON.stringify(code)}: ${[...written]}`,
      ).to.equal(true);
    }
  });

  it('starts a consumer after its producer, outside the producer’s caller, in the same trace or a linked new one', () => {
    const publish = (new_trace: boolean) => ({
      service: 'worker',
      operation: 'orders publish',
      kind: 'producer',
      duration: '50ms',
      queue_delay: '10ms',
      new_trace,
    });
    const [root, producer, consumer] = rowsOf([publish(false)]);
    expect(consumer).to.include({
      parentRow: producer!.row,
      traceId: root!.traceId,
      kind: 'consumer',
      service: 'worker',
    });
    expect(producer!.end - producer!.start).to.be.within(0.1 * MS, 0.5 * MS);
    expect(consumer!.start - producer!.end).to.be.within(10.1 * MS, 10.5 * MS);
    expect(consumer!.end - consumer!.start).to.equal(50 * MS);
    expect(root!.end).to.equal(producer!.end + MIN_GAP);

    const [linkedRoot, linkedProducer, newRoot] = rowsOf([publish(true)]);
    expect(newRoot).to.include({ parentRow: -1, kind: 'consumer' });
    expect(newRoot!.traceId).not.to.equal(linkedRoot!.traceId);
    expect(newRoot!.link).to.deep.equal({ traceId: linkedRoot!.traceId, spanId: linkedProducer!.spanId });
  });

  it('makes a call `repeat` times, each with its `probability`', () => {
    const ticks = Array.from({ length: 2000 }, (_, n) => n);
    const counts = (call: Fields) => {
      const rows = rowsOf([{ operation: 'x', kind: 'internal', duration: '1ms', ...call }], { ticks });
      return byName(rows, 'x').length / ticks.length;
    };
    expect(counts({ repeat: 4 })).to.equal(4);
    expect(counts({ probability: 0 })).to.equal(0);
    expect(counts({ probability: 0.3 })).to.be.within(0.27, 0.33);
    expect(counts({ repeat: 2, probability: 0.5 })).to.be.within(0.93, 1.07);
    expect(counts({ repeat: { type: 'uniform', min: 0.5, max: 3.5 } })).to.be.within(1.9, 2.1);
  });

  it('clamps drawn durations at 0', () => {
    const rows = rowsOf([{ operation: 'x', kind: 'internal', duration: { type: 'normal', mean: 0, stddev: 1 } }], {
      ticks: Array.from({ length: 200 }, (_, n) => n),
    });
    const durations = byName(rows, 'x').map((r) => r.end - r.start);
    expect(Math.min(...durations)).to.equal(0);
    expect(Math.max(...durations)).to.be.above(0);
  });

  it('draws picked attributes per call, shared by both spans of a pair, within their choices', () => {
    const rows = rowsOf(
      [
        {
          service: 'cart',
          operation: 'GET /cart',
          kind: 'client',
          duration: '1ms',
          attributes: { user: { cardinality: 5, prefix: 'u' }, tier: { one_of: ['gold', 2] }, fixed: true },
        },
      ],
      { ticks: Array.from({ length: 100 }, (_, n) => n) },
    );
    const clients = byName(rows, 'GET /cart', 'client');
    const servers = byName(rows, 'GET /cart', 'server');
    expect(servers.map((r) => r.attributes)).to.deep.equal(
      clients.map(({ attributes: { 'peer.service': _peer, ...shared } }) => shared),
    );
    expect(new Set(servers.map((r) => r.attributes.user))).to.deep.equal(new Set(['u0', 'u1', 'u2', 'u3', 'u4']));
    expect(new Set(servers.map((r) => r.attributes.tier))).to.deep.equal(new Set(['gold', 2]));
    expect(servers.every((r) => r.attributes.fixed === true)).to.equal(true);
  });

  it('names the callee in peer.service on the caller’s span of a pair, unless the call names it itself', () => {
    const config = traceConfig({
      root: {
        service: 'frontend',
        operation: 'GET /',
        kind: 'server',
        calls: [
          { service: 'cart', operation: 'a', kind: 'client', duration: '1ms' },
          {
            service: 'cart',
            operation: 'b',
            kind: 'client',
            duration: '1ms',
            attributes: { 'peer.service': { one_of: ['x', 'y'] } },
          },
          { operation: 'c', kind: 'client', duration: '1ms', attributes: { 'peer.service': 'postgres' } },
        ],
      },
    });
    const { nodes } = traceGenerator(config);
    const client = (name: string) => nodes.find((node) => node.name === name && node.kind === 'client')!;
    expect([client('a').attributes, client('a').peer]).to.deep.equal([{ 'peer.service': 'cart' }, 'cart']);
    expect([client('b').attributes, client('b').picked.map((p) => p.key), client('b').peer]).to.deep.equal([
      {},
      ['peer.service'],
      'cart',
    ]);
    expect(client('c').peer).to.equal('postgres');
    expect(nodes.filter((node) => node.kind === 'server' && node.service === 'cart')).to.have.length(2);
  });

  it('rotates pods and ends incidents on the microsecond grid', () => {
    // In ms, 0.3 / 0.1 is 2.999…: the trace at 0.3 ms went to the generation before.
    const config = traceConfig({
      root: { service: 'frontend', operation: 'GET /', kind: 'server' },
      services: { frontend: { pods: { count: 1, rotate_every: '0.1ms' } } },
    });
    const rows = spanRows(spanBatch(config, ticksAt([3, 6, 7], 10_000)));
    expect(rows.map((r) => r.resource['k8s.pod.name'])).to.deep.equal(['frontend-3-0', 'frontend-6-0', 'frontend-7-0']);
    // 1.1 + 2.2 ms is 3.3000000000000003: a span at 3.3 ms fell in the incident that ends there.
    expect(incidentWindow({ start: 1.1, for: 2.2 } as IncidentConfig)).to.deep.equal({ from: 1.1, until: 3.3 });
  });

  it('gives each service its resource; with pods, trace n goes to pod n mod count, renamed every rotate_every', () => {
    const config = traceConfig({
      root: {
        service: 'frontend',
        operation: 'GET /',
        kind: 'server',
        calls: [{ service: 'cart', operation: 'GET /cart', kind: 'client', duration: '1ms' }],
      },
      services: {
        frontend: {
          version: '1.0',
          environment: 'prod',
          attributes: { 'cloud.region': 'eu' },
          pods: { count: 2, rotate_every: '1s' },
        },
      },
    });
    const batch = spanBatch(config, ticksAt([0, 1, 2, 9, 10, 11]));
    const sdk = { 'telemetry.sdk.name': 'svc', 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.version': VERSION };
    // service.instance.id: the UUID v5 of the pod's name (of the service's, without pods) in the semantic conventions' namespace.
    const instances: Record<string, string> = {
      '0-0': 'cbbc6cee-07fc-5eff-a8d6-c430c95475f9',
      '0-1': '63668be6-7c93-5150-83c3-62a5714e101e',
      '1-0': '887d8a95-0e24-557e-a8e3-f957a97bf3f8',
      '1-1': '10666d9a-76d5-5a87-9158-40fb33212683',
    };
    const rows = spanRows(batch);
    expect(rows.filter((r) => r.service === 'frontend').map((r) => r.resource)).to.deep.equal(
      ['0-0', '0-0', '0-1', '0-1', '0-0', '0-0', '0-1', '0-1', '1-0', '1-0', '1-1', '1-1'].map((pod) => ({
        'service.name': 'frontend',
        'service.version': '1.0',
        'service.instance.id': instances[pod],
        'deployment.environment.name': 'prod',
        ...sdk,
        'k8s.pod.name': `frontend-${pod}`,
        'cloud.region': 'eu',
      })),
    );
    expect(rows.find((r) => r.service === 'cart')!.resource).to.deep.equal({
      'service.name': 'cart',
      'service.instance.id': 'd1a56c67-7346-51fa-a97b-8ddd3cbdf013',
      ...sdk,
    });
    // One object per pod of a generation: encoders keep its bytes by it. The pods counted together: no pod, no instance.
    expect(batch.spans.resource[0]).to.equal(batch.spans.resource[6]);
    expect(batch.spans.resource[0]!.serviceResource!.attributes).to.deep.equal({
      'service.name': 'frontend',
      'service.version': '1.0',
      'deployment.environment.name': 'prod',
      ...sdk,
      'cloud.region': 'eu',
    });
  });

  it('makes valid ids and flags: 16 and 8 bytes, not zero, the sampled flag on the configured share of traces', () => {
    const ticks = Array.from({ length: 4000 }, (_, n) => n);
    const rows = rowsOf([{ service: 'cart', operation: 'x', kind: 'client', duration: '1ms' }], {
      ticks,
      extra: { sampled: 0.25 },
    });
    for (const row of rows) {
      expect(row.traceId)
        .to.match(/^[0-9a-f]{32}$/)
        .and.not.match(/^0+$/);
      expect(row.spanId)
        .to.match(/^[0-9a-f]{16}$/)
        .and.not.match(/^0+$/);
    }
    expect(new Set(rows.map((r) => r.spanId)).size).to.equal(rows.length);
    const roots = rows.filter((r) => r.parentRow < 0);
    expect(roots.filter((r) => r.flags === SAMPLED_FLAG).length / roots.length).to.be.within(0.22, 0.28);
    // A trace's spans share its flags.
    const flagsOfTrace = new Map(roots.map((r) => [r.traceId, r.flags]));
    expect(rows.filter((r) => r.flags !== flagsOfTrace.get(r.traceId))).to.deep.equal([]);
  });

  it('makes trace n alike whatever ticks come with it, the same for a seed, and other ones for another seed', () => {
    const document = {
      root: {
        service: 'frontend',
        operation: 'GET /',
        kind: 'server',
        calls: [{ service: 'cart', operation: 'x', kind: 'client', duration: { type: 'exponential', rate: 10 } }],
      },
      seed: 7,
    };
    const config = traceConfig(document);
    const alone = spanRows(spanBatch(config, ticksAt([5])));
    const among = spanRows(spanBatch(traceGenerator(config), ticksAt([3, 4, 5]))).filter((r) => r.tick === 5);
    expect(among.map(({ row: _row, parentRow: _parent, ...rest }) => rest)).to.deep.equal(
      alone.map(({ row: _row, parentRow: _parent, ...rest }) => rest),
    );
    const again = spanRows(spanBatch(traceConfig(document), ticksAt([5])));
    expect(again).to.deep.equal(alone);
    const other = spanRows(spanBatch({ ...config, seed: 8 }, ticksAt([5])));
    expect(other.map((r) => r.traceId)).not.to.deep.equal(alone.map((r) => r.traceId));
  });
});
