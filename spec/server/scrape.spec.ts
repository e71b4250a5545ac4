import { expect } from 'chai';
import {
  aggregate,
  aggregateSteps,
  eachRow,
  type LatestRow,
  MAX_LATEST_SERIES,
  MAX_SCRAPE_EVENTS,
  ScrapeBudget,
  ScrapeBuffer,
  Pace,
  sliced,
  STEP_ROWS,
  unsliced,
} from '../../lib/server/scrape.js';
import { protobufSteps } from '../../lib/server/scrape-protobuf.js';
import { seriesOf, seriesOfSorted } from '../../operators/model/series.js';
import type { Labelled, SampleBatch } from '../../operators/model/batch.js';
import { sampleBatch } from '../support/batches.js';
import { collectGarbage } from '../support/memory.js';

const gauge = (budget?: ScrapeBudget) => new ScrapeBuffer({ name: 'depth', type: 'gauge' }, budget);
/** One interned label set, as the labels operator hands every tick of a series. */
const queue = seriesOf({ queue: 'jobs' });

/** Records events `from`..`to - 1` as single-sample batches of `per` events; event n has value n at n ms. */
function recordEvents(buffer: ScrapeBuffer, from: number, to: number, per = 1): void {
  for (let n = from; n < to; n += per) {
    const values = Array.from({ length: Math.min(per, to - n) }, (_, k) => n + k);
    buffer.record(sampleBatch({ values, offsets: values, series: queue }));
  }
}

/** The values of the drained samples, in order; for gauges recorded by `recordEvents`, checks each timestamp is its value. */
function drained(buffer: ScrapeBuffer, limit: number, stampedByValue = true): number[] | undefined {
  const text = buffer.drain(limit);
  return text
    ?.split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, value, ms] = line.split(' ');
      if (stampedByValue) expect(ms, line).to.equal(value);
      return Number(value);
    });
}

/** A histogram-like batch: each event is a set of three rows (le="1", _sum, _count), values 10n, 10n+1, 10n+2. */
function seriesSets(events: readonly number[]): Labelled<SampleBatch> {
  const rows = [seriesOf({ le: '1' }, '_bucket'), seriesOf({}, '_sum'), seriesOf({}, '_count')];
  const batch = sampleBatch({
    values: events.flatMap((n) => [10 * n, 10 * n + 1, 10 * n + 2]),
    offsets: events.flatMap((n) => [n, n, n]),
    series: events.flatMap(() => rows),
  });
  return { ...batch, events: events.length };
}

describe('ScrapeBuffer: the ring of recent events behind GET /scenarios/{id}/metrics', () => {
  it('drains the classic rows of a histogram with a native one (text cannot show it), and keeps the latest of both', () => {
    const buffer = new ScrapeBuffer({ name: 'lat', type: 'histogram' });
    const series = [seriesOf({}, '_count'), seriesOf({})];
    const native = { schema: 0, zeroThreshold: 0, zeroCount: 0, count: 2, sum: 3 };
    const empty = { positiveSpans: [], positiveCounts: [], negativeSpans: [], negativeCounts: [] };
    buffer.record({
      ...sampleBatch({ values: [2, 2], series }),
      events: 1,
      native: [undefined, { ...native, ...empty }],
    });
    expect(buffer.drain(10)).to.equal('# TYPE lat histogram\nlat_count 2 0\n');
    expect(buffer.latestRows().map((row) => [row.series.suffix, row.native?.count])).to.deep.equal([
      ['_count', undefined],
      [undefined, 2],
    ]);
  });

  it('drains the most recent `limit` events oldest first, then is empty', () => {
    const buffer = gauge();
    expect(buffer.drain(10)).to.equal(undefined);
    recordEvents(buffer, 0, 5);
    expect(drained(buffer, 3)).to.deep.equal([2, 3, 4]);
    expect(drained(buffer, 3)).to.equal(undefined);
    recordEvents(buffer, 5, 7);
    expect(drained(buffer, 10)).to.deep.equal([5, 6]);
  });

  it(`keeps the most recent ${MAX_SCRAPE_EVENTS} events, overwriting the oldest, in order across the wrap`, () => {
    const buffer = gauge();
    recordEvents(buffer, 0, 2500);
    expect(drained(buffer, MAX_SCRAPE_EVENTS)).to.deep.equal(
      Array.from({ length: MAX_SCRAPE_EVENTS }, (_, k) => 1500 + k),
    );
    // Refilled after a drain that left the ring mid-way: still oldest first.
    recordEvents(buffer, 2500, 2503);
    expect(drained(buffer, 2)).to.deep.equal([2501, 2502]);
  });

  it('grows its ring as events pile up after a drain, keeping them in order', () => {
    const buffer = gauge();
    recordEvents(buffer, 0, 6);
    drained(buffer, 6);
    // Past the first ring's 8 events, twice.
    recordEvents(buffer, 6, 40);
    expect(drained(buffer, MAX_SCRAPE_EVENTS)).to.deep.equal(Array.from({ length: 34 }, (_, k) => 6 + k));
  });

  it('takes batches larger than the ring, and batches that wrap around it', () => {
    const buffer = gauge();
    recordEvents(buffer, 0, 2300, 2300);
    expect(drained(buffer, 2)).to.deep.equal([2298, 2299]);
    recordEvents(buffer, 0, 990);
    recordEvents(buffer, 990, 1030, 40);
    const kept = drained(buffer, MAX_SCRAPE_EVENTS)!;
    expect(kept).to.have.length(MAX_SCRAPE_EVENTS);
    expect([kept[0], kept.at(-1)]).to.deep.equal([30, 1029]);
  });

  it('counts a histogram series set as one event: limit and overwrite keep its rows together', () => {
    const buffer = new ScrapeBuffer({ name: 'latency_seconds', type: 'histogram' });
    buffer.record(seriesSets([0, 1]));
    expect(buffer.drain(1)).to.equal(
      '# TYPE latency_seconds histogram\nlatency_seconds_bucket{le="1"} 10 1\nlatency_seconds_sum 11 1\nlatency_seconds_count 12 1\n',
    );
    buffer.record(seriesSets(Array.from({ length: MAX_SCRAPE_EVENTS + 1 }, (_, n) => n)));
    const values = drained(buffer, MAX_SCRAPE_EVENTS, false)!;
    expect(values).to.have.length(3 * MAX_SCRAPE_EVENTS);
    expect(values.slice(0, 3)).to.deep.equal([10, 11, 12]);
    expect(values.slice(-3)).to.deep.equal([10000, 10001, 10002]);
  });

  it('holds a full ring in fixed memory: about 20 bytes an event for a single-sample entry', () => {
    // Typed arrays keep their numbers outside the heap.
    const used = () => {
      collectGarbage();
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return heapUsed + arrayBuffers;
    };
    const buffers = Array.from({ length: 100 }, () => gauge());
    const before = used();
    for (const buffer of buffers) recordEvents(buffer, 0, 3 * MAX_SCRAPE_EVENTS);
    const perEvent = (used() - before) / (buffers.length * MAX_SCRAPE_EVENTS);
    // Two numbers and a series index an event; objects per event would take several times more.
    expect(perEvent).to.be.below(40);
    expect(buffers.every((buffer) => drained(buffer, 1)!.length === 1)).to.equal(true);
  });

  it(`keeps the latest value of the first ${MAX_LATEST_SERIES} series only, by label text, whatever the cardinality`, () => {
    const buffer = gauge();
    const count = MAX_LATEST_SERIES + 10;
    // A new object per sample, as a transient series past interning: the same labels are one series.
    const pods = () => Array.from({ length: count }, (_, n) => seriesOf({ pod: `pod_${n}` }));
    for (const round of [1, 2]) {
      buffer.record(
        sampleBatch({
          values: Array.from({ length: count }, (_, n) => round * n),
          offsets: Array(count).fill(0),
          series: pods(),
        }),
      );
    }
    const rows = buffer.latestRows();
    expect(rows).to.have.length(MAX_LATEST_SERIES);
    expect(rows.at(-1)).to.deep.include({ value: 2 * (MAX_LATEST_SERIES - 1) });
    expect(rows.at(-1)!.series.labels).to.deep.equal({ pod: `pod_${MAX_LATEST_SERIES - 1}` });
  });
});

describe('GET /scenarios/metrics: a series the entry no longer writes leaves the scrape', () => {
  /** Records one event of each label set, in order, the n-th of value n. */
  const events = (buffer: ScrapeBuffer, sets: readonly Record<string, string>[]) => {
    for (const [n, labels] of sets.entries()) buffer.record(sampleBatch({ values: [n], series: seriesOf(labels) }));
  };
  /** The series of the scrape, as `labels value`. */
  const scraped = (buffer: ScrapeBuffer) =>
    aggregate([buffer], () => {})
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => line.slice('depth'.length));
  const pod = (n: number) => ({ pod: `pod_${n}` });

  it('keeps the series of a rotation that comes round to them, and drops one not written for a whole period', () => {
    const buffer = new ScrapeBuffer({ name: 'depth', type: 'gauge' }, undefined, { period: 3 });
    events(buffer, [pod(0), pod(1), pod(2), pod(9), pod(0), pod(1), pod(2)]);
    expect(scraped(buffer)).to.deep.equal(['{pod="pod_0"} 4', '{pod="pod_1"} 5', '{pod="pod_2"} 6']);
  });

  it("shows a spike's series while its window is open, and the series without its label before and after", () => {
    const buffer = new ScrapeBuffer({ name: 'depth', type: 'gauge' }, undefined, { period: 2, spikeLabels: ['user'] });
    events(buffer, [{}, {}, { user: 'u0' }, { user: 'u1' }]);
    expect(scraped(buffer)).to.deep.equal(['{user="u0"} 2', '{user="u1"} 3']);
    events(buffer, [{}]);
    // The series returns with its entry's latest value: a counter's keeps counting, read as no reset.
    expect(scraped(buffer)).to.deep.equal([' 0']);
  });

  it("drops the series of a spike's earlier window, when its window is shorter than its cardinality", () => {
    // Each window writes other values of the spike: those of the last one have its labels, within the period.
    const buffer = new ScrapeBuffer({ name: 'depth', type: 'gauge' }, undefined, { period: 4, spikeLabels: ['user'] });
    events(buffer, [{}, { user: 'u0' }, { user: 'u1' }, {}, { user: 'u2' }]);
    expect(scraped(buffer)).to.deep.equal(['{user="u2"} 4']);
  });

  it('keeps both series of a rotating label with an empty value, which the events without the label write', () => {
    // An empty value is no label: only a spike's label tells a window apart, not any label an event lacks.
    const buffer = new ScrapeBuffer({ name: 'depth', type: 'gauge' }, undefined, { period: 2, spikeLabels: ['user'] });
    events(buffer, [{ zone: 'a' }, {}, { zone: 'a' }, {}]);
    expect(scraped(buffer)).to.deep.equal(['{zone="a"} 2', ' 3']);
  });

  it('shows none of the series of an entry that ended', () => {
    const buffer = gauge();
    events(buffer, [pod(0)]);
    buffer.end();
    expect(aggregate([buffer], () => {})).to.equal('');
    // Its own table still answers GET /scenarios/{id}/series.
    expect(buffer.latestRows()).to.have.length(1);
  });

  it("reads none of an ended entry's table to leave it out of a scrape", () => {
    const buffer = gauge();
    events(buffer, range(0, 100).map(pod));
    buffer.end();
    let read = 0;
    const isLive = buffer.isLive.bind(buffer);
    buffer.isLive = (index) => (read++, isLive(index));
    expect(aggregate([buffer], () => {})).to.equal('');
    expect(read).to.equal(0);
  });

  it('shows none of the series of an entry that was deleted, though it has not ended yet', () => {
    // A scrape built after DELETE, before the entry's chain has run its end.
    const buffer = gauge();
    events(buffer, [pod(0)]);
    buffer.release();
    expect(aggregate([buffer], () => {})).to.equal('');
  });

  it('shows a series once in a scrape, though it left and came back into another slot while the scrape was built', () => {
    const buffer = new ScrapeBuffer({ name: 'depth', type: 'gauge' }, new ScrapeBudget(100, 3), {
      spikeLabels: ['user'],
    });
    events(buffer, [{ user: 'u0' }, { user: 'u1' }, { user: 'u2' }]);
    const shown: LatestRow[] = [];
    const pace = new Pace();
    // The build yields after the first slot, u0's.
    for (let row = 0; row < STEP_ROWS - 2; row++) pace.due();
    const walk = eachRow({ family: buffer.family, buffers: [buffer] }, pace, (row) => shown.push(row));
    expect(walk.next().done).to.equal(false);
    // Between two slices: the window closes (the sweep for room frees the spike's slots, the first one taken by the
    // series without the label), and opens again: u0 takes the next free slot, which the walk has yet to reach.
    events(buffer, [{}, { user: 'u0' }]);
    while (!walk.next().done);
    expect(shown.map((row) => row.series.labels.user)).to.deep.equal(['u0']);
  });

  it('sweeps a table full of series it still writes once a period, not at every batch', () => {
    // A rotation of 1,000,000 values past its 100,000 series: swept at every batch, 200 batches took 1 s, not 10 ms.
    const buffer = new ScrapeBuffer({ name: 'depth', type: 'gauge' }, undefined, { period: 1_000_000 });
    const pods = (from: number) =>
      sampleBatch({ values: range(0, 1000), series: range(from, from + 1000).map((n) => seriesOf(pod(n))) });
    for (let from = 0; from < MAX_LATEST_SERIES; from += 1000) buffer.record(pods(from));
    let read = 0;
    const isLive = buffer.isLive.bind(buffer);
    buffer.isLive = (index) => (read++, isLive(index));
    for (let from = MAX_LATEST_SERIES; from < 2 * MAX_LATEST_SERIES; from += 1000) buffer.record(pods(from));
    expect(read).to.equal(MAX_LATEST_SERIES);
    expect(buffer.latestRows()).to.have.length(MAX_LATEST_SERIES);
  });

  it('gives the room of the series it moved on from to new ones, when the table is full', () => {
    const budget = new ScrapeBudget(100, 10);
    const buffer = new ScrapeBuffer({ name: 'depth', type: 'gauge' }, budget, { period: 10, spikeLabels: ['user'] });
    events(
      buffer,
      range(0, 10).map((n) => ({ user: `u${n}` })),
    );
    // The window closed: the spike's series leave, and the table takes the rotation's.
    events(buffer, range(0, 10).map(pod));
    expect(scraped(buffer)).to.have.length(10);
    expect(buffer.latestRows().map((row) => row.series.labels.pod)).to.deep.equal(range(0, 10).map((n) => `pod_${n}`));
  });
});

describe('ScrapeBudget: the series whose latest values the entries of a server keep together', () => {
  /** Records one sample of each of `count` new pods (`pod_<first>`…) into `buffer`. */
  const pods = (buffer: ScrapeBuffer, first: number, count: number) =>
    buffer.record(
      sampleBatch({
        values: Array.from({ length: count }, (_, n) => first + n),
        offsets: Array(count).fill(0),
        series: Array.from({ length: count }, (_, n) => seriesOf({ pod: `pod_${first + n}` })),
      }),
    );

  it('keeps series first come while the server has room, and takes room back from a deleted entry', () => {
    const budget = new ScrapeBudget(100, 50);
    const [a, b] = [gauge(budget), gauge(budget)];
    pods(a, 0, 30);
    pods(b, 0, 30);
    // The first 30 of a, then b's first 20: the budget's 50.
    expect([a.latestRows().length, b.latestRows().length]).to.deep.equal([30, 20]);
    // Series already kept still take their latest values.
    pods(b, 0, 5);
    expect(b.latestRows()[4]!.value).to.equal(4);
    a.release();
    const c = gauge(budget);
    pods(c, 0, 40);
    expect(c.latestRows()).to.have.length(30);
  });

  it("gives an ended entry's room to the entries still running, once", () => {
    const budget = new ScrapeBudget(100, 10);
    const [a, b] = [gauge(budget), gauge(budget)];
    pods(a, 0, 10);
    a.end();
    // None of a's series shows: b's must, though a's filled the budget.
    pods(b, 0, 1);
    expect(aggregate([a, b], () => {})).to.equal('# TYPE depth gauge\ndepth{pod="pod_0"} 0\n');
    // a's rows stay for its own table, and its series take room neither again nor twice back when it is deleted.
    pods(a, 10, 20);
    expect(a.latestRows()).to.have.length(10);
    a.release();
    const c = gauge(budget);
    pods(c, 0, 20);
    expect(c.latestRows()).to.have.length(9);
  });

  it('keeps series within the characters of label text the server has room for: long label sets take more', () => {
    // `{pod="<100 characters>"}` is 108 characters: 9 such series fill 1000, whatever the count allows.
    const long = (n: number) => `${n}`.padStart(100, 'x');
    const record = (buffer: ScrapeBuffer, from: number, to: number) =>
      buffer.record(
        sampleBatch({
          values: range(from, to),
          offsets: range(from, to).map(() => 0),
          series: range(from, to).map((n) => seriesOf({ pod: long(n) })),
        }),
      );
    const budget = new ScrapeBudget(100, 50, 1000);
    const [a, b] = [gauge(budget), gauge(budget)];
    record(a, 0, 6);
    record(b, 6, 12);
    expect([a.latestRows().length, b.latestRows().length]).to.deep.equal([6, 3]);
    // Deleting an entry gives its text back.
    a.release();
    record(b, 12, 20);
    expect(b.latestRows()).to.have.length(9);
  });
});

/** `from`..`to - 1`, the values `recordEvents` gives those events. */
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

describe('ScrapeBudget: what the rings of a server hold together', () => {
  it('shares the budget equally among the rings that recorded: each keeps its newest share', () => {
    const budget = new ScrapeBudget(100);
    const rings = [gauge(budget), gauge(budget), gauge(budget)];
    // Entries tick side by side.
    for (let n = 0; n < 50; n++) for (const ring of rings) recordEvents(ring, n, n + 1);
    for (const ring of rings) expect(drained(ring, MAX_SCRAPE_EVENTS)).to.deep.equal(range(17, 50));
  });

  it('shrinks a full ring at its next event when more rings share the budget, keeping the newest', () => {
    const budget = new ScrapeBudget(100);
    const first = gauge(budget);
    recordEvents(first, 0, 150);
    recordEvents(gauge(budget), 0, 1);
    recordEvents(first, 150, 151);
    expect(drained(first, MAX_SCRAPE_EVENTS)).to.deep.equal(range(101, 151));
  });

  it("gives a deleted entry's share back: the others grow again, and the released ring records nothing", () => {
    const budget = new ScrapeBudget(100);
    const [kept, deleted] = [gauge(budget), gauge(budget)];
    recordEvents(kept, 0, 80);
    recordEvents(deleted, 0, 80);
    deleted.release();
    recordEvents(deleted, 80, 90);
    expect(drained(deleted, MAX_SCRAPE_EVENTS)).to.equal(undefined);
    recordEvents(kept, 80, 200);
    expect(drained(kept, MAX_SCRAPE_EVENTS)).to.deep.equal(range(100, 200));
  });

  it("counts rows, so a histogram's series set takes its width of the share; a ring keeps at least its latest event", () => {
    const budget = new ScrapeBudget(90);
    const histogram = new ScrapeBuffer({ name: 'latency_seconds', type: 'histogram' }, budget);
    recordEvents(gauge(budget), 0, 1);
    histogram.record(seriesSets(range(0, 40)));
    // 45 rows of 90: 15 series sets of three rows.
    expect(drained(histogram, MAX_SCRAPE_EVENTS, false)).to.have.length(45);
    const tight = new ScrapeBudget(1);
    const [one, other] = [gauge(tight), gauge(tight)];
    recordEvents(one, 0, 5);
    recordEvents(other, 0, 5);
    expect([drained(one, 10), drained(other, 10)]).to.deep.equal([[4], [4]]);
  });

  it('counts label text too: an event of long labels takes more of the share than its rows', () => {
    // A label set built per tick (past interning), its text `pod="…"` 106 characters; 2,000 for the server's rings.
    const pod = (n: number) => seriesOfSorted(['pod'], [`${'p'.repeat(94)}${String(n).padStart(6, '0')}`], true);
    const budget = new ScrapeBudget(1000, 50, 1000, 2000);
    const long = gauge(budget);
    for (let n = 0; n < 100; n++) long.record(sampleBatch({ values: [n], offsets: [n], series: pod(n) }));
    expect(drained(long, MAX_SCRAPE_EVENTS)).to.deep.equal(range(82, 100));
    // Short labels under the same budget: the rows bound.
    const short = gauge(new ScrapeBudget(1000, 50, 1000, 2000));
    recordEvents(short, 0, 100);
    expect(drained(short, MAX_SCRAPE_EVENTS)).to.have.length(100);
    // The same long labels interned: one shared label set, which the ring does not hold alone.
    const interned = gauge(new ScrapeBudget(1000, 50, 1000, 2000));
    const shared = seriesOfSorted(['pod'], ['p'.repeat(100)]);
    for (let n = 0; n < 100; n++) interned.record(sampleBatch({ values: [n], offsets: [n], series: shared }));
    expect(drained(interned, MAX_SCRAPE_EVENTS)).to.have.length(100);
  });

  it('takes no share for an entry of native histograms only: text shows none of its rows, and its drain is empty', () => {
    const budget = new ScrapeBudget(100);
    const native = new ScrapeBuffer({ name: 'lat', type: 'histogram' }, budget);
    const histogram = { schema: 0, zeroThreshold: 0, zeroCount: 0, count: 1, sum: 1 };
    const buckets = {
      positiveSpans: [{ offset: 0, length: 1 }],
      positiveCounts: [1],
      negativeSpans: [],
      negativeCounts: [],
    };
    for (let n = 0; n < 50; n++)
      native.record({
        ...sampleBatch({ values: [1], offsets: [n] }),
        events: 1,
        native: [{ ...histogram, ...buckets }],
      });
    const other = gauge(budget);
    recordEvents(other, 0, 100);
    expect(drained(other, MAX_SCRAPE_EVENTS)).to.deep.equal(range(0, 100));
    expect(native.drain(MAX_SCRAPE_EVENTS)).to.equal(undefined);
    expect(native.latestRows().map((row) => row.native?.count)).to.deep.equal([1]);
  });

  it(`gives a ring alone the whole budget, up to ${MAX_SCRAPE_EVENTS} events`, () => {
    const alone = gauge(new ScrapeBudget(300));
    recordEvents(alone, 0, 400);
    expect(drained(alone, MAX_SCRAPE_EVENTS)).to.have.length(300);
  });
});

describe('GET /scenarios/metrics: the exposition built in slices', () => {
  /** A gauge of `size` series, a counter sharing its name for the untyped path, and its expositions built at once. */
  function buffers(size: number): ScrapeBuffer[] {
    const many = gauge();
    const values = Array.from({ length: size }, (_, i) => i / 4);
    many.record(sampleBatch({ values, series: values.map((_, i) => seriesOf({ pod: `pod_${i}` })) }));
    const other = new ScrapeBuffer({ name: 'depth', type: 'counter' });
    other.record(sampleBatch({ values: [1, 2], series: [seriesOf({ pod: 'pod_0' }), seriesOf({ pod: 'extra' })] }));
    return [many, other];
  }

  for (const [format, steps] of [
    ['text', aggregateSteps],
    ['protobuf', protobufSteps],
  ] as const) {
    it(`lets the event loop run between its slices${format === 'text' ? ', and reads each row as it is then' : ''} (${format})`, async () => {
      const scraped = buffers(3 * STEP_ROWS);
      const events: string[] = [];
      // Queued before the build: without slices the build would be done before it ran.
      setImmediate(() => events.push('other work'));
      const build = sliced(
        (steps as typeof aggregateSteps)(scraped, () => {}),
        0,
      ).then((value) => {
        events.push('built');
        return value;
      });
      // The rows read in a later slice are at their latest value then.
      setImmediate(() => scraped[0]!.record(sampleBatch({ values: [-1], series: seriesOf({ pod: 'pod_2999' }) })));
      const value = await build;
      expect(events).to.deep.equal(['other work', 'built']);
      if (format === 'text') expect(value.toString()).to.include('depth{pod="pod_2999"} -1\n');
    });

    it(`yields every ${STEP_ROWS} rows however they are split over entries and names (${format})`, () => {
      // Six families of half a step each: counted family by family, no step was ever reached.
      const scraped = Array.from({ length: 6 }, (_, b) => {
        const buffer = new ScrapeBuffer({ name: `g${b}`, type: 'gauge' });
        const values = Array.from({ length: STEP_ROWS / 2 }, (_, i) => i);
        buffer.record(sampleBatch({ values, series: values.map((_, i) => seriesOf({ pod: `pod_${i}` })) }));
        return buffer;
      });
      const build = (steps as typeof aggregateSteps)(scraped, () => {});
      let yields = 0;
      while (!build.next().done) yields++;
      expect(yields).to.equal(3);
    });

    it(`keeps bytes, not objects or strings per series, while it is built (${format})`, () => {
      // What a build in flight holds lives through its slices into the old generation, whose collection stalled
      // the server: rows kept as objects and strings took about 400 bytes of heap a series.
      const [many] = buffers(20 * STEP_ROWS);
      const heapUsed = () => {
        collectGarbage();
        return process.memoryUsage().heapUsed;
      };
      const build = (steps as typeof aggregateSteps)([many!], () => {});
      // Compiled first, so that the code is not counted.
      unsliced((steps as typeof aggregateSteps)([many!], () => {}));
      // A few steps first, so that code optimised meanwhile is not counted either; then many, over which the heap's
      // noise (a few hundred kB, up to 62 bytes a series over 10 steps in runs of many spec files) spreads thin.
      for (let step = 0; step < 4; step++) build.next();
      const before = heapUsed();
      for (let step = 0; step < 16; step++) build.next();
      const perSeries = (heapUsed() - before) / (16 * STEP_ROWS);
      expect(perSeries).to.be.below(100);
      expect(unsliced(build).length).to.be.above(0);
    });
  }
});
