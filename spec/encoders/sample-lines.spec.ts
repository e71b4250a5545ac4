import { expect } from 'chai';
import fc from 'fast-check';
import { sampleLines } from '../../lib/encoders/sample-lines.js';
import { textValueFormat } from '../../lib/encoders/number.js';
import {
  carryingExemplars,
  exemplarRows,
  nanosecondsWithin,
  timestampOf,
  type Exemplar,
} from '../../operators/model/batch.js';
import { nanosecondsText } from '../../lib/protocols/epoch-text.js';
import { seriesOf } from '../../operators/model/series.js';
import { sampleBatch } from '../support/batches.js';

const T0 = Date.UTC(2024, 0, 1);
const [A, B] = ['a', 'b'].map((pod) => seriesOf({ pod }));

/** Line formats with exemplars, as OpenMetrics writes them but shorter: stamped in ms, or in ns as influx_lp is. */
const FORMATS = {
  milliseconds: { exactTimes: false, stamp: () => (ms: number) => ` ${ms}\n` },
  nanoseconds: {
    exactTimes: true,
    stamp: () => {
      const text = nanosecondsText();
      return (ms: number, nanos: number) => ` ${text(ms, nanos)}\n`;
    },
  },
};

const withExemplars = (format: keyof typeof FORMATS = 'milliseconds') =>
  sampleLines({
    lead: (series) => `m{${series.key}} `,
    middle: () => '',
    stamp: FORMATS[format].stamp(),
    exactTimes: FORMATS[format].exactTimes,
    value: textValueFormat(),
    exemplar: { open: ' # {t="', between: '",s="', close: '"} ' },
  });

/**
 * A row: its series, value, the step from the row before (whole milliseconds or less, so that runs of identical lines
 * happen, and lines within one millisecond), and its exemplar if any (its time its row's millisecond or the next).
 */
const row = fc.record({
  series: fc.constantFrom(A!, B!),
  value: fc.constantFrom(0, 1, 0.25, NaN),
  step: fc.constantFrom(0, 1, 2, 0.0004, 0.3),
  exemplar: fc.option(fc.record({ value: fc.constantFrom(0.5, 1 / 3, 7), later: fc.boolean() }), { freq: 4 }),
});

describe('sampleLines', () => {
  for (const format of Object.keys(FORMATS) as (keyof typeof FORMATS)[])
    it(`writes every line and exemplar as written one at a time, runs of identical lines ending at an exemplar or not (stamped in ${format}, before 1970 and after)`, () => {
      fc.assert(
        fc.property(
          fc.constantFrom(T0, T0 + 0.25, -5000.5),
          fc.array(fc.array(row, { maxLength: 40 }), { minLength: 1, maxLength: 3 }),
          (anchor, batches) => {
            const encoder = withExemplars(format);
            const stamp = FORMATS[format].stamp();
            let id = 0;
            for (const rows of batches) {
              const offsets: number[] = [];
              for (const r of rows) offsets.push((offsets.at(-1) ?? 0) + r.step);
              const plain = sampleBatch({
                anchor,
                offsets,
                values: rows.map((r) => r.value),
                series: rows.map((r) => r.series),
              });
              const exemplars = rows.map((r, i): Exemplar | undefined => {
                if (r.exemplar === null) return undefined;
                id++;
                return {
                  traceId: id.toString(16).padStart(32, '0'),
                  spanId: (id + 1).toString(16).padStart(16, '0'),
                  value: r.exemplar.value,
                  timestamp: timestampOf(plain, i) + (r.exemplar.later ? 1 : 0),
                };
              });
              const column = exemplarRows(exemplars);
              const chunk = encoder.encode(column ? carryingExemplars(plain, column) : plain);
              const lines = rows.map((r, i) => {
                const e = exemplars[i];
                const ms = timestampOf(plain, i);
                const nanos = FORMATS[format].exactTimes ? nanosecondsWithin(plain.anchor, plain.offset, i, ms) : 0;
                const line = `m{${r.series.key}} ${r.value}${stamp(ms, nanos).slice(0, -1)}`;
                if (!e) return `${line}\n`;
                return `${line} # {t="${e.traceId}",s="${e.spanId}"} ${e.value}${stamp(e.timestamp, 0)}`;
              });
              expect(chunk.data.toString()).to.equal(lines.join(''));
              let end = 0;
              expect(chunk.frames.ends).to.deep.equal(lines.map((line) => (end += line.length)));
            }
          },
        ),
        { numRuns: 300 },
      );
    });

  it('ends an exemplar in the middle of a long run of identical lines on its own line, the run copied around it', () => {
    const n = 1000;
    const plain = sampleBatch({ anchor: T0, offsets: new Array(n).fill(0), values: new Array(n).fill(1), series: A });
    const exemplars = Array.from({ length: n }, (_, i): Exemplar | undefined =>
      i === 500 ? { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), value: 2, timestamp: T0 } : undefined,
    );
    const out = withExemplars()
      .encode(carryingExemplars(plain, exemplarRows(exemplars)!))
      .data.toString()
      .split('\n');
    const line = `m{${A!.key}} 1 ${T0}`;
    expect(out.slice(0, 500)).to.deep.equal(new Array(500).fill(line));
    expect(out[500]).to.equal(`${line} # {t="${'a'.repeat(32)}",s="${'b'.repeat(16)}"} 2 ${T0}`);
    expect(out.slice(501)).to.deep.equal([...new Array(499).fill(line), '']);
  });

  it("writes the values after a run of identical lines into the buffer the run grew, through that buffer's view", () => {
    // Lines longer than the first batch's guess (96 bytes): the run's copies grow the buffer, with room enough for the
    // lines after it, whose values that are no integers go in through a view of the buffer (writeShortestAt).
    const long = seriesOf({ pod: 'p'.repeat(200) });
    const values = [...new Array(10).fill(1), 0.25, 0.5, 0.75, 1.5];
    const offsets = [...new Array(10).fill(0), 1, 2, 3, 4];
    const out = withExemplars()
      .encode(sampleBatch({ anchor: T0, offsets, values, series: long }))
      .data.toString();
    expect(out).to.equal(values.map((v, i) => `m{${long.key}} ${v} ${T0 + offsets[i]!}\n`).join(''));
  });

  it('leaves out an exemplar whose row is out of order, repeated or past the end, every line intact', () => {
    const plain = sampleBatch({ anchor: T0, values: [1, 2, 3, 4], series: A });
    const rows = Int32Array.from([2, 1, 2, 9]);
    const exemplars = {
      rows,
      value: Float64Array.from([5, 6, 7, 8]),
      timestamp: Float64Array.from(rows, (row) => T0 + row),
      traceId: Uint32Array.from({ length: 16 }, (_, w) => w),
      spanId: Uint32Array.from({ length: 8 }, (_, w) => w),
    };
    const out = withExemplars().encode(carryingExemplars(plain, exemplars)).data.toString();
    const line = (row: number) => `m{${A!.key}} ${row + 1} ${T0 + row}`;
    expect(out.split('\n')).to.deep.equal([
      line(0),
      line(1),
      `${line(2)} # {t="${'00000000000000010000000200000003'}",s="${'0000000000000001'}"} 5 ${T0 + 2}`,
      line(3),
      '',
    ]);
  });
});
