import { expect } from 'chai';
import { BehaviorSubject, NEVER, lastValueFrom, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { entryChain } from '../../../lib/runtime/chain/index.js';
import type { Entry } from '../../../lib/config/types.js';
import { MemorySink } from '../../support/sinks.js';
import { histogramEntry, metricEntry } from '../../support/entries.js';

const JAN_1 = Date.parse('2026-01-01T00:00:00Z');

/** Entries of every signal whose pipeline keeps state across ticks (cumulative series, interned labels). */
const entries: Record<string, Partial<Entry>> = {
  histogram: histogramEntry,
  summary: {
    signal_type: 'summary',
    name: 'size_bytes',
    generator: undefined,
    distribution: { type: 'normal', mean: 100, stddev: 10 },
    quantiles: [0.5, 0.9],
    observations_per_tick: 5,
    seed: 1,
    metric_type: 'summary',
  },
  'counter with rotating labels': {
    generator: { type: 'step', start: 0, step_size: 1 },
    dynamic_labels: [{ form: 'counter', key: 'pod', prefix: 'pod_', cardinality: 3 }],
  },
};

describe('an entry chain subscribed twice', () => {
  for (const [name, fields] of Object.entries(entries)) {
    it(`${name}: the second subscription writes exactly what the first wrote`, async () => {
      const scheduler = new TestScheduler(() => undefined);
      scheduler.maxFrames = Infinity;
      const sink = new MemorySink();
      const entry = metricEntry({
        start_time: { kind: 'absolute', epochMs: JAN_1 },
        duration: 1000,
        labels: { svc: 'api' },
        ...fields,
      });
      const chain = entryChain(entry, { scheduler, sink, stop: NEVER, backpressure: new BehaviorSubject(false) });
      const outputs: string[] = [];
      for (let run = 0; run < 2; run++) {
        const from = sink.text.length;
        const done = lastValueFrom(chain.pipe(toArray()));
        scheduler.flush();
        await done;
        outputs.push(sink.text.slice(from));
      }
      expect(outputs[0]).to.have.length.greaterThan(0);
      expect(outputs[1]).to.equal(outputs[0]);
    });
  }
});
