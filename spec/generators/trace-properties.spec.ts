import { expect } from 'chai';
import fc from 'fast-check';
import { isAsync, isPair, type CallConfig, type TraceGeneratorConfig } from '../../lib/language/traces.js';
import { SPAN_STATUS } from '../../operators/model/span.js';
import {
  spanBatch,
  spanRows,
  ticksAt,
  traceConfig,
  generatorProblems,
  type SpanRow,
} from '../support/trace-generators.js';

type Fields = Record<string, unknown>;

const SERVICES = ['frontend', 'cart', 'payment', 'worker'];
const KINDS = ['server', 'client', 'producer', 'consumer', 'internal'];

/** A call as fast-check draws it, before {@link repaired} drops what its place does not allow. */
const call: fc.Memo<Fields> = fc.memo((depth) =>
  fc.record({
    operation: fc.constantFrom('GET /a', 'POST /b', 'SELECT', 'publish', 'work'),
    kind: fc.constantFrom(...KINDS),
    service: fc.option(fc.constantFrom(...SERVICES), { nil: undefined }),
    // Unbounded durations: no call can overrun its parent's longest duration.
    duration: fc.oneof(
      fc.record({ type: fc.constant('exponential'), rate: fc.double({ min: 10, max: 1000, noNaN: true }) }),
      fc.record({
        type: fc.constant('normal'),
        mean: fc.double({ min: 0, max: 0.05, noNaN: true }),
        stddev: fc.double({ min: 0.001, max: 0.01, noNaN: true }),
      }),
    ),
    parallel: fc.boolean(),
    error_rate: fc.constantFrom(0, 0.1, 0.5, 1),
    propagate: fc.boolean(),
    repeat: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constant({ type: 'uniform', min: 0, max: 2.4 })),
    probability: fc.constantFrom(1, 0.5),
    new_trace: fc.boolean(),
    calls: depth > 1 ? fc.array(call(depth - 1), { maxLength: 3 }) : fc.constant([]),
  }),
);

/** `calls` made from a span of `caller`, without what their places refuse (docs/traces.md, Validation). */
function repaired(calls: readonly Fields[], caller: string): Fields[] {
  return calls.map((raw) => {
    const shape = { ...raw, repeat: raw.repeat, calls: [] } as unknown as CallConfig;
    const service = (raw.service as string | undefined) ?? caller;
    const single = (raw.kind === 'client' || raw.kind === 'producer') && !isPair(shape, caller);
    const asyncPair = isAsync(shape, caller);
    const { service: _service, ...rest } = raw;
    return {
      ...rest,
      ...(raw.service !== undefined && { service: raw.service }),
      new_trace: asyncPair && raw.new_trace,
      propagate: !asyncPair && raw.propagate,
      calls: single ? [] : repaired(raw.calls as Fields[], service),
    };
  });
}

/** A valid trace_generator of random calls below a frontend root, and a seed. */
const trees = fc
  .record({
    calls: fc.array(call(3), { maxLength: 3 }),
    rootDuration: fc.option(fc.constant({ type: 'exponential', rate: 20 }), { nil: undefined }),
    seed: fc.integer({ min: -1000, max: 1000 }),
  })
  .map(({ calls, rootDuration, seed }) => ({
    seed,
    root: {
      service: 'frontend',
      operation: 'GET /checkout',
      kind: 'server',
      ...(rootDuration && { duration: rootDuration }),
      calls: repaired(calls, 'frontend'),
    },
  }))
  // Trees past the span bound are refused (spec/language/traces.spec.ts): not these properties' concern.
  .filter((document) => generatorProblems(document).length === 0);

const TICKS = ticksAt(Array.from({ length: 20 }, (_, n) => 3 * n));

function rowsOf(config: TraceGeneratorConfig): SpanRow[] {
  return spanRows(spanBatch(config, TICKS));
}

describe('traceGenerator: properties of random trees and seeds', () => {
  it('gives every span a parent in its own trace, written before it, and every trace one root', () => {
    fc.assert(
      fc.property(trees, (document) => {
        const rows = rowsOf(traceConfig(document));
        const byRow = new Map(rows.map((r) => [r.row, r]));
        const roots = new Map<string, number>();
        for (const row of rows) {
          if (row.parentRow < 0) {
            roots.set(row.traceId, (roots.get(row.traceId) ?? 0) + 1);
            continue;
          }
          const parent = byRow.get(row.parentRow)!;
          expect(parent, 'parent in the batch').to.not.equal(undefined);
          expect(parent.row).to.be.below(row.row);
          expect(parent.traceId).to.equal(row.traceId);
          expect(row.parentId).to.equal(parent.spanId);
        }
        expect([...new Set(rows.map((r) => r.traceId))].every((trace) => roots.get(trace) === 1)).to.equal(true);
        // A trace a consumer starts is rooted by it, linked to its producer in the tick's first trace.
        for (const root of rows.filter((r) => r.parentRow < 0 && r.kind === 'consumer')) {
          const producer = rows.find((r) => r.spanId === root.link?.spanId)!;
          expect(producer.kind).to.equal('producer');
          expect(producer.traceId).to.equal(root.link!.traceId).and.not.equal(root.traceId);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps children within their parent, but a consumer, which starts after its producer ends', () => {
    fc.assert(
      fc.property(trees, (document) => {
        const rows = rowsOf(traceConfig(document));
        const byRow = new Map(rows.map((r) => [r.row, r]));
        for (const row of rows) {
          expect(row.end).to.be.at.least(row.start);
          const parent = byRow.get(row.parentRow);
          if (!parent) continue;
          if (row.kind === 'consumer' && parent.kind === 'producer' && parent.service !== row.service) {
            expect(row.start).to.be.above(parent.end);
          } else {
            expect(row.start, `${row.name} starts in ${parent.name}`).to.be.at.least(parent.start);
            expect(row.end, `${row.name} ends in ${parent.name}`).to.be.at.most(parent.end);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('pairs every client (producer) call to another service with the callee’s server (consumer) span', () => {
    fc.assert(
      fc.property(trees, (document) => {
        const rows = rowsOf(traceConfig(document));
        for (const caller of rows.filter((r) => r.attributes['peer.service'] !== undefined)) {
          const callees = rows.filter((r) => r.parentRow === caller.row || r.link?.spanId === caller.spanId);
          const expected = caller.kind === 'client' ? 'server' : 'consumer';
          const callee = callees.find((r) => r.kind === expected && r.service === caller.attributes['peer.service']);
          expect(callee, `${caller.name} in ${caller.service}`).to.not.equal(undefined);
          expect(callee!.service).to.not.equal(caller.service);
          if (caller.kind === 'client')
            expect(caller.status === SPAN_STATUS.unset).to.equal(callee!.status === SPAN_STATUS.unset);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('makes the same spans for the same seed, and other ids for another seed', () => {
    fc.assert(
      fc.property(trees, (document) => {
        const rows = rowsOf(traceConfig(document));
        expect(rowsOf(traceConfig(document))).to.deep.equal(rows);
        const other = rowsOf(traceConfig({ ...document, seed: document.seed + 1 }));
        expect(other.map((r) => r.traceId)).to.not.deep.equal(rows.map((r) => r.traceId));
      }),
      { numRuns: 40 },
    );
  });

  it('raises errors at the configured rate, within four standard deviations over 3,000 traces', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer(), (rate, seed) => {
        const config = traceConfig({
          seed,
          root: {
            service: 'frontend',
            operation: 'GET /',
            kind: 'server',
            calls: [{ service: 'cart', operation: 'GET /cart', kind: 'client', duration: '1ms', error_rate: rate }],
          },
        });
        const traces = 3000;
        const rows = spanRows(spanBatch(config, ticksAt(Array.from({ length: traces }, (_, n) => n))));
        const raised = rows.filter((r) => r.status === SPAN_STATUS.error).length;
        const tolerance = 4 * Math.sqrt(traces * rate * (1 - rate)) + 1;
        expect(Math.abs(raised - traces * rate)).to.be.at.most(tolerance);
        expect(rows.filter((r) => r.status === SPAN_STATUS.failedCall).length).to.equal(raised);
      }),
      { numRuns: 15 },
    );
  });
});
