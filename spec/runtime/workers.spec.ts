import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import type { Entry } from '../../lib/config/types.js';
import { defaultWorkers, MAX_WORKERS, ONE_CORE_EVENTS, startWorkers } from '../../lib/runtime/workers.js';
import {
  startRemoteWriteV2Receiver,
  type RemoteWriteV2Receiver,
} from '../support/backends/remote-write-v2-receiver.js';
import { entryOf, metric } from '../support/scenarios.js';
import { metricEntry } from '../support/entries.js';
import { settle } from '../support/clock.js';
import { temporaryDirectory } from '../support/directories.js';

const pods = (cardinality: number, fields: Partial<Entry> = {}): Entry =>
  metricEntry({ rate: 1e8, dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality }], ...fields });

describe('defaultWorkers: how many worker threads a run without --workers gets', () => {
  const cases: [string, readonly Entry[], { cores: number; backfill?: boolean }, number][] = [
    ['one per core when the demand is beyond one core', [pods(1000)], { cores: 2 }, 2],
    ['one per core on a bigger machine', [pods(1000)], { cores: 8 }, 8],
    [`at most ${MAX_WORKERS}`, [pods(1000)], { cores: 200 }, MAX_WORKERS],
    ['one on a single core', [pods(1000)], { cores: 1 }, 1],
    ['one below the threshold', [pods(1000, { rate: ONE_CORE_EVENTS - 1 })], { cores: 2 }, 1],
    ['more than one at the threshold', [pods(1000, { rate: ONE_CORE_EVENTS })], { cores: 2 }, 2],
    [
      'the entries of a file summed',
      [pods(10, { rate: ONE_CORE_EVENTS / 2 }), pods(10, { id: 'b', rate: ONE_CORE_EVENTS / 2 })],
      { cores: 2 },
      2,
    ],
    [
      'a burst counted at its multiplier',
      [pods(10, { rate: ONE_CORE_EVENTS / 4, bursts: { every: 60_000, for: 1000, multiplier: 4 } })],
      { cores: 2 },
      2,
    ],
    [
      'a burst that slows down is not counted below the rate',
      [pods(10, { rate: ONE_CORE_EVENTS, bursts: { every: 60_000, for: 1000, multiplier: 0.5 } })],
      { cores: 2 },
      2,
    ],
    ['one for a single series (nothing to split)', [metricEntry({ rate: 1e8 })], { cores: 8 }, 1],
    ['no more than there are series', [pods(3)], { cores: 8 }, 3],
    [
      'one when an entry has more label sets than are interned',
      [pods(1000), pods(70_000, { id: 'b' })],
      { cores: 2 },
      1,
    ],
    // Interned: the label operator's 65,536 codes count an absent rotating label too.
    ['one per core up to the interned label sets', [pods(65_535)], { cores: 2 }, 2],
    ['one just past them', [pods(65_536)], { cores: 2 }, 1],
    [
      'series of several entries summed',
      [metricEntry({ rate: 1e8 }), metricEntry({ id: 'b', rate: 1e8 })],
      { cores: 8 },
      2,
    ],
    [
      'a list-form label counted by its values',
      [metricEntry({ rate: 1e8, dynamic_labels: [{ key: 'az', form: 'list', values: ['a', 'b'] }] })],
      { cores: 8 },
      2,
    ],
    [
      'a spike counted with its absence',
      [
        metricEntry({
          rate: 1e8,
          cardinality_spikes: [
            { label: 'user', cardinality: 2, every: 60_000, for: 1000, strategy: 'counter', prefix: 'user_', seed: 0 },
          ],
        }),
      ],
      { cores: 8 },
      3,
    ],
    [
      'one for a one-document encoding into a file',
      [
        pods(1000, {
          encoder: { type: 'openmetrics' } as Entry['encoder'],
          sink: { type: 'file', path: '/tmp/x' } as Entry['sink'],
        }),
      ],
      { cores: 2 },
      1,
    ],
    ['one in a backfill', [pods(1000)], { cores: 2, backfill: true }, 1],
  ];
  for (const [title, entries, options, expected] of cases) {
    it(`${title}: ${expected}`, () => expect(defaultWorkers(entries, options)).to.equal(expected));
  }
});

describe('startWorkers: what the workers report of their sinks', function () {
  this.timeout(30_000);
  let receiver: RemoteWriteV2Receiver;
  afterEach(async () => receiver.stop());

  /** A 4-pod gauge for 300 ms into the receiver with remote write 2.0, on two workers, run to its end. */
  const runOnTwo = async () => {
    const entry = entryOf(
      metric({
        rate: 40,
        duration: '300ms',
        dynamic_labels: [{ key: 'pod', cardinality: 4 }],
        encoder: { type: 'remote_write' },
        sink: { type: 'remote_write', url: receiver.url, protocol: '2.0', batch_size: 4 },
      }),
    );
    const run = startWorkers([entry], 2);
    const [outcome] = await run.done;
    expect(outcome, JSON.stringify(outcome)).to.deep.equal({});
    return run.runs[0]!.stats;
  };

  it("sums what the receiver said it wrote over the workers' requests", async () => {
    receiver = await startRemoteWriteV2Receiver();
    const stats = await runOnTwo();
    const received = receiver.v2.flatMap((request) => request.series).length;
    expect(stats.totalEvents).to.equal(12);
    expect(received).to.equal(12);
    expect(stats.receiverWritten).to.deep.equal({ samples: received, histograms: 0, exemplars: 0 });
  });

  it('shows a warning of the sinks once, however many workers gave it', async () => {
    receiver = await startRemoteWriteV2Receiver({ refuseV2: true });
    const stats = await runOnTwo();
    expect(stats.sinkWarnings).to.have.length(1);
    expect(stats.sinkWarnings[0]).to.match(/does not take remote write 2\.0/);
  });
});

describe('startWorkers: a rate the workers cannot keep', function () {
  this.timeout(30_000);

  it('sums the events the workers could not make at the rate: with those written, every slot due', async () => {
    const entry = entryOf(
      metric({
        rate: 20_000_000,
        duration: '300ms',
        dynamic_labels: [{ key: 'pod', cardinality: 4 }],
        sink: { type: 'file', path: '/dev/null' },
      }),
    );
    const run = startWorkers([entry], 2);
    const [outcome] = await run.done;
    expect(outcome, JSON.stringify(outcome)).to.deep.equal({});
    const { totalEvents, missedEvents } = run.runs[0]!.stats;
    // No machine makes 20 million events a second here: each worker dropped its shortfall at the end.
    expect(missedEvents).to.be.above(0);
    expect(totalEvents + missedEvents).to.equal(6_000_000);
  });
});

describe('startWorkers: one start for every worker', function () {
  this.timeout(30_000);

  it("starts the workers together, once all are ready: each writes its series on the run's timeline", async () => {
    // Tick n (every 50 ms) is pod n mod 2's, and pod i is worker i's.
    const path = join(temporaryDirectory('svc-workers-'), 'out.prom');
    const entry = metricEntry({
      rate: 20,
      duration: 1000,
      dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 2 }],
      sink: { type: 'file', path } as Entry['sink'],
    });
    const called = Date.now();
    const run = startWorkers([entry], 2);
    expect(await run.done).to.deep.equal([{}]);
    const ticks = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => ({ pod: Number(line.match(/pod_(\d)/)![1]), at: Number(line.split(' ').at(-1)) }))
      .sort((a, b) => a.at - b.at);
    expect(ticks).to.have.length(20);
    const first = ticks[0]!.at;
    // Each worker loads for hundreds of ms, one later than the other; started together, their ticks keep
    // the 50 ms grid exactly, however a busy machine schedules the two threads.
    for (const [n, { pod, at }] of ticks.entries()) {
      expect(pod, `tick ${n}`).to.equal(n % 2);
      expect(at - first, `tick ${n}`).to.equal(n * 50);
    }
    // The entry started with the workers, not when they were asked for.
    const stats = run.runs[0]!.stats;
    expect(stats.startedAt - called).to.be.greaterThan(0);
    expect(Math.abs(stats.startedAt - first)).to.be.lessThan(20);
  });
});

describe('startWorkers: the end of each entry', function () {
  this.timeout(30_000);

  it('ends an entry when it ended on every worker, not when the run ends', async () => {
    // One series each, so each worker writes one of them; `short` ends 1.8 s before `long`.
    const long = metricEntry({ id: 'long', name: 'long', rate: 10, duration: 2000 });
    const short = metricEntry({ id: 'short', name: 'short', rate: 10, duration: 200 });
    const run = startWorkers([long, short], 2, { stdout: new PassThrough().resume() });
    const [longRun, shortRun] = run.runs;
    let longEnded = false;
    void longRun!.done.then(() => (longEnded = true));
    expect(await shortRun!.done).to.deep.equal({});
    // Its final figures are in by then.
    expect(shortRun!.stats.totalEvents).to.equal(2);
    await settle();
    expect(longEnded).to.equal(false);
    expect(await run.done).to.deep.equal([{}, {}]);
    expect(longRun!.stats.totalEvents).to.equal(20);
  });
});
