import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import type { EncodedBatch } from '../../operators/model/batch.js';
import type { Entry } from '../../lib/config/types.js';
import { startEntries } from '../../lib/runtime/file-run.js';
import { backfillEntries, unboundedEntries } from '../../lib/runtime/backfill.js';
import { MemorySink } from '../support/sinks.js';
import { settle } from '../support/clock.js';
import { waitFor } from '../support/backends/ports.js';
import { histogramEntry, metricEntry } from '../support/entries.js';

const JAN_1 = Date.parse('2026-01-01T00:00:00Z');

/** Real time in these specs: a clock standing at JAN_1 (only its `now()` is read: the sinks are in memory). */
const realTime = () => {
  const scheduler = new TestScheduler(() => undefined);
  scheduler.frame = JAN_1;
  return scheduler;
};

/** What each entry wrote, by id, running `entries` together on RxJS's TestScheduler from JAN_1 (the reference run). */
async function referenceRun(entries: Entry[]): Promise<Map<string, string>> {
  const scheduler = realTime();
  scheduler.maxFrames = Infinity;
  const sinks = new Map(entries.map((entry) => [entry.id, new MemorySink()]));
  const fileRun = startEntries(entries, { scheduler, createSink: (entry) => sinks.get(entry.id)! });
  scheduler.flush();
  await fileRun.done;
  return new Map([...sinks].map(([id, sink]) => [id, sink.text]));
}

/** What each entry wrote, by id, backfilling `entries` started at JAN_1 into `sinkOf(entry)`. */
async function backfill(entries: Entry[], sinkOf: (entry: Entry) => MemorySink = () => new MemorySink()) {
  const sinks = new Map(entries.map((entry) => [entry.id, sinkOf(entry)]));
  const run = backfillEntries(entries, { scheduler: realTime(), createSink: (entry) => sinks.get(entry.id)! });
  const outcomes = await run.done;
  return { run, outcomes, text: new Map([...sinks].map(([id, sink]) => [id, sink.text])) };
}

const step = (id: string, fields: Partial<Entry> = {}) =>
  metricEntry({ id, name: id, generator: { type: 'step', start: 0, step_size: 1 }, duration: 1000, ...fields });

/** Every timing feature of a file at once: offsets, gaps, bursts, spikes, after chains, clock groups, start times. */
const HOURS = 3_600_000;
const timingFile = (): Entry[] => {
  const absolute = { kind: 'absolute' as const, epochMs: JAN_1 - 6 * HOURS };
  return [
    step('offset', {
      rate: 3,
      duration: 2 * HOURS,
      phase_offset: 1234,
      start_time: { kind: 'relative', offsetMs: -2 * HOURS },
    }),
    metricEntry({
      id: 'wave',
      name: 'wave',
      rate: 0.5,
      duration: 6 * HOURS,
      start_time: absolute,
      clock_group: 'g',
      generator: { type: 'sine', amplitude: 10, period_secs: 600, offset: 50 },
      jitter: 2,
      jitter_seed: 7,
      gaps: { every: 900_000, for: 120_000 },
      bursts: { every: 1_800_000, for: 300_000, multiplier: 4 },
      dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod-', cardinality: 5 }],
      cardinality_spikes: [
        { label: 'user', cardinality: 3, every: 3_600_000, for: 600_000, strategy: 'random', prefix: 'u', seed: 3 },
      ],
    }),
    step('alert', {
      rate: 1,
      duration: 600_000,
      start_time: absolute,
      clock_group: 'g',
      after: { ref: 'wave', op: '>', value: 58, delay: 90_000 },
    }),
    step('page', {
      rate: 0.2,
      duration: 300_000,
      start_time: absolute,
      clock_group: 'g',
      after: { ref: 'alert', op: '>', value: 100, delay: 1500 },
    }),
    metricEntry({
      ...histogramEntry,
      id: 'latency',
      rate: 2,
      duration: HOURS,
      phase_offset: 10_000,
      start_time: { kind: 'now' },
    }),
  ];
};

describe('backfillEntries: a file on virtual time', () => {
  it('writes what a run in real time writes: timestamps, values, windows, phase offsets, after triggers, clock groups', async () => {
    const entries = timingFile();
    const { text, outcomes } = await backfill(entries);
    expect(outcomes.every((outcome) => !outcome.error)).to.equal(true);
    const reference = await referenceRun(entries);
    for (const { id } of entries) {
      expect(text.get(id), id).to.equal(reference.get(id));
      expect(text.get(id), id).to.not.equal('');
    }
  });

  it('produces every slot of the duration however long the sink makes it wait', async () => {
    // Every write waits for the event loop: in real time the duration would cut most of them off.
    class SlowSink extends MemorySink {
      inWrite = 0;
      mostInWrite = 0;
      override write(chunk: EncodedBatch): Promise<void> {
        super.write(chunk);
        this.mostInWrite = Math.max(this.mostInWrite, ++this.inWrite);
        return settle().then(() => void this.inWrite--);
      }
    }
    const sinks: SlowSink[] = [];
    const entries = [
      step('a', { rate: 10, duration: HOURS, gaps: { every: 10_000, for: 5000 } }),
      step('b', { rate: 7, duration: HOURS / 2, phase_offset: 500 }),
    ];
    const { text } = await backfill(entries, () => {
      const sink = new SlowSink();
      sinks.push(sink);
      return sink;
    });
    const reference = await referenceRun(entries);
    expect(text.get('a')!.split('\n').filter(Boolean)).to.have.length(18_000);
    expect(text.get('a')).to.equal(reference.get('a'));
    expect(text.get('b')).to.equal(reference.get('b'));
    // One chunk at a time reaches each sink: the backfill waited for every write before the next.
    expect(sinks.map((sink) => sink.mostInWrite)).to.deep.equal([1, 1]);
  });

  it('holds the clock while a sink holds its chain back, and moves on when it lets go', async () => {
    const held = new MemorySink();
    held.hold();
    const entries = [step('held', { rate: 10, duration: 300_000 }), step('free', { rate: 10, duration: 300_000 })];
    const sinks = new Map([
      ['held', held],
      ['free', new MemorySink()],
    ]);
    const run = backfillEntries(entries, { scheduler: realTime(), createSink: (entry) => sinks.get(entry.id)! });
    const lines = (id: string) => sinks.get(id)!.text.split('\n').filter(Boolean).length;
    await waitFor('the first writes of both entries', () =>
      lines('held') > 0 && lines('free') > 0 ? true : undefined,
    );
    // The first write of `held` waits: virtual time stays at the file start, for `free` too,
    // which wrote only what its first wake-up carries (the slots of the first minute).
    expect(run.clock.now()).to.equal(JAN_1);
    expect(lines('free')).to.equal(601);
    held.release();
    await run.done;
    expect(held.text.split('\n').filter(Boolean)).to.have.length(3000);
    expect(run.clock.now()).to.equal(JAN_1 + 300_000);
  });

  it('stops at once when stopped, flushing what was produced', async () => {
    const sink = new MemorySink();
    sink.hold();
    const run = backfillEntries([step('a', { rate: 10, duration: 24 * HOURS })], {
      scheduler: realTime(),
      createSink: () => sink,
    });
    await waitFor('the first write, held by the sink', () => (sink.chunks.length > 0 ? true : undefined));
    const stopped = run.stop();
    sink.release();
    const [outcome] = await stopped;
    expect(outcome).to.deep.equal({});
    expect(sink.flushes).to.be.greaterThan(0);
    expect(run.clock.now()).to.be.lessThan(JAN_1 + 24 * HOURS);
  });

  it('refuses entries without a finite duration, naming them', () => {
    const entries = [step('a'), step('b', { duration: undefined }), step('c', { duration: undefined })];
    expect(unboundedEntries(entries)).to.deep.equal(['b', 'c']);
    expect(() => backfillEntries(entries)).to.throw('a backfill needs a finite duration on every entry; none on: b, c');
  });
});
