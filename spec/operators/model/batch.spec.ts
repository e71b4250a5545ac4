import { expect } from 'chai';
import fc from 'fast-check';
import {
  carryingExemplars,
  ExemplarCursor,
  ExemplarRowsBuilder,
  exemplarAt,
  exemplarRows,
  exemplarsOnRows,
  selectTicks,
  type Exemplar,
  type SampleBatch,
} from '../../../operators/model/batch.js';
import { sampleBatch } from '../../support/batches.js';

const exemplar = (n: number): Exemplar => ({
  traceId: n.toString(16).padStart(32, '0'),
  spanId: n.toString(16).padStart(16, '0'),
  value: n,
  timestamp: n,
});

/** A per-row column: an exemplar on each row `marked` marks. */
const perRow = (marked: readonly boolean[]) => marked.map((on, row) => (on ? exemplar(row) : undefined));

describe('ExemplarRows', () => {
  it("puts exemplars on a batch as the spread would: every field kept, a caller's own too, old exemplars replaced", () => {
    const batch = { ...sampleBatch({ values: [1, 2] }), series: [], events: 1, mine: 'kept' };
    const first = exemplarRows([exemplar(1), undefined])!;
    const second = exemplarRows([undefined, exemplar(2)])!;
    const carried = carryingExemplars(carryingExemplars(batch, first), second);
    expect(carried).to.deep.equal({ ...batch, exemplars: second });
    // Optional fields absent stay absent.
    const { events: _events, ...plain } = batch;
    expect(carryingExemplars(plain, first)).to.not.have.property('events');
    expect(carryingExemplars(plain, first)).to.not.have.property('native');
    expect(exemplarsOnRows(first, Int32Array.of(5))).to.deep.equal({ ...first, rows: Int32Array.of(5) });
  });

  it('keeps the rows of a per-row column that carry one, ascending, in columns, and is undefined for none', () => {
    const column = exemplarRows([undefined, exemplar(1), undefined, exemplar(0xabcdef0123)])!;
    expect([...column.rows]).to.deep.equal([1, 3]);
    expect([...column.value]).to.deep.equal([1, 0xabcdef0123]);
    expect([...column.timestamp]).to.deep.equal([1, 0xabcdef0123]);
    // The ids' words, high first.
    expect([...column.traceId]).to.deep.equal([0, 0, 0, 1, 0, 0, 0xab, 0xcdef0123]);
    expect([...column.spanId]).to.deep.equal([0, 1, 0xab, 0xcdef0123]);
    expect(exemplarAt(column, 1)).to.deep.equal(exemplar(0xabcdef0123));
    expect(exemplarRows([undefined, undefined])).to.equal(undefined);
  });

  it('refuses ids that are not 32 and 16 lowercase hex digits, naming the field', () => {
    expect(() => exemplarRows([{ ...exemplar(1), traceId: 't1' }])).to.throw(
      RangeError,
      'exemplar traceId: "t1" is not 32 lowercase hex digits',
    );
    expect(() => exemplarRows([{ ...exemplar(1), spanId: 'ABCDEF0123456789' }])).to.throw(RangeError, 'spanId');
  });

  it("builds columns of any length from exemplars added one by one, copied, or given a span's ids", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 2 ** 40 }), { maxLength: 300 }), (ns) => {
        const built = new ExemplarRowsBuilder(1);
        const copies = new ExemplarRowsBuilder();
        ns.forEach((n, row) => {
          const k = built.add(row, n, n);
          // A span's ids: its words, as SpanColumns holds them.
          const span = exemplarRows([exemplar(n)])!;
          built.setIds(k, span, 0);
          copies.addFrom(row, built, k);
        });
        const expected = exemplarRows(ns.map(exemplar));
        expect(built.build()).to.deep.equal(expected);
        expect(copies.build()).to.deep.equal(expected);
      }),
    );
  });

  it('reads back the per-row column with a cursor, in ascending order and in any other', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 60 }), fc.array(fc.nat({ max: 70 })), (marked, order) => {
        const column = perRow(marked);
        const ascending = new ExemplarCursor(exemplarRows(column));
        expect(column.map((_, row) => ascending.at(row))).to.deep.equal(column);
        const any = new ExemplarCursor(exemplarRows(column));
        for (const row of order) expect(any.at(row), `row ${row}`).to.deep.equal(column[row]);
      }),
    );
  });

  it('follows its rows when selectTicks keeps some of them, and goes when none with an exemplar is kept', () => {
    const batch: SampleBatch = {
      ...sampleBatch({ values: [0, 1, 2, 3, 4] }),
      exemplars: exemplarRows([exemplar(0), undefined, exemplar(2), undefined, exemplar(4)]),
    };
    expect(selectTicks(batch, [1, 2, 4]).exemplars).to.deep.equal(exemplarRows([undefined, exemplar(2), exemplar(4)]));
    expect(selectTicks(batch, [1, 3])).to.not.have.property('exemplars');
  });
});
