import { expect } from 'chai';
import fc from 'fast-check';
import {
  ExemplarCursor,
  exemplarRows,
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
  it('keeps the rows of a per-row column that carry one, ascending, and is undefined for none', () => {
    expect(exemplarRows([undefined, exemplar(1), undefined, exemplar(3)])).to.deep.equal({
      rows: [1, 3],
      exemplars: [exemplar(1), exemplar(3)],
    });
    expect(exemplarRows([undefined, undefined])).to.equal(undefined);
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
    expect(selectTicks(batch, [1, 2, 4]).exemplars).to.deep.equal({
      rows: [1, 2],
      exemplars: [exemplar(2), exemplar(4)],
    });
    expect(selectTicks(batch, [1, 3])).to.not.have.property('exemplars');
  });
});
