import { expect } from 'chai';
import { of } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { gaps } from '../../operators/gaps.js';
import { labels } from '../../operators/labels.js';
import { generateLogs } from '../../operators/generate-logs.js';
import type { Labelled, LogBatch, LogTemplate } from '../../operators/model/batch.js';
import { collect, perTick, virtualTime } from '../support/marbles.js';

describe('generateLogs: templates', () => {
  it("puts each record's template in the template column, through gaps and labels, the same object for one template", () => {
    const hello: LogTemplate = { parts: ['hello ', 0], names: ['who'] };
    const out = collect(
      of(RateSchedule.constant(100)).pipe(
        ticks({ duration: 60 }),
        generateLogs((n) =>
          n % 3
            ? { severity: 'info', message: `hello ${n}`, fields: { who: String(n) }, template: hello }
            : { severity: 'info', message: 'bye', fields: { who: '' } },
        ),
        gaps({ every: 30, for: 10 }),
        labels(),
      ),
      (b: Labelled<LogBatch>, i) => [b.message[i], b.template?.[i]],
    );
    expect(out).to.deep.equal([
      ['bye', undefined],
      ['hello 1', hello],
      ['bye', undefined],
      ['hello 4', hello],
    ]);
    expect(out[1]![1]).to.equal(hello);
  });
});

describe('generateLogs', () => {
  it('gives every tick a record and carries labels and gaps like metrics', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(100)).pipe(
        ticks({ duration: 60 }),
        generateLogs((n) => ({ severity: n % 2 ? 'warn' : 'info', message: `tick ${n}`, fields: { n: String(n) } })),
        gaps({ every: 30, for: 10 }),
        labels({ dynamic: [{ key: 'pod', values: ['a', 'b'] }] }),
        perTick(
          (b: Labelled<LogBatch>, i) => `${b.severity[i]} ${b.message[i]} ${b.series[i]!.labels.pod} ${b.fields[i]!.n}`,
        ),
      );
      expectObservable(source).toBe('a 9ms b 19ms c 9ms d 19ms |', {
        a: 'info tick 0 a 0',
        b: 'warn tick 1 b 1',
        c: 'warn tick 3 b 3',
        d: 'info tick 4 a 4',
      });
    });
  });
});
