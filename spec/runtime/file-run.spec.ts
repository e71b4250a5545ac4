import { expect } from 'chai';
import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { Entry } from '../../lib/config/types.js';
import { startEntries } from '../../lib/runtime/file-run.js';
import { firstCrossing } from '../../lib/compile/crossing.js';
import { SplitMix64 } from '../../lib/random.js';
import { MemorySink } from '../support/sinks.js';
import { metricEntry } from '../support/entries.js';
import { settle } from '../support/clock.js';

const JAN_1 = Date.parse('2026-01-01T00:00:00Z');

/** Runs `entries` together in virtual time to the end; each entry writes to its own MemorySink. */
async function runTogether(entries: Entry[], until?: number) {
  const scheduler = new TestScheduler(() => undefined);
  scheduler.maxFrames = Infinity;
  const sinks = new Map(entries.map((entry) => [entry.id, new MemorySink()]));
  const fileRun = startEntries(entries, { scheduler, createSink: (entry) => sinks.get(entry.id)! });
  if (until !== undefined) scheduler.schedule(() => void fileRun.stop(), until);
  scheduler.flush();
  const outcomes = await fileRun.done;
  // Settle what the end of watched entries set off, in case it scheduled more virtual time.
  scheduler.flush();
  /** `[value, timestamp]` of every line an entry wrote. */
  const lines = (id: string) =>
    sinks
      .get(id)!
      .text.split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ').slice(-2).map(Number));
  return { fileRun, outcomes, sinks, lines, times: (id: string) => lines(id).map(([, t]) => t) };
}

const step = (id: string, fields: Partial<Entry> = {}) =>
  metricEntry({ id, name: id, generator: { type: 'step', start: 0, step_size: 1 }, duration: 1000, ...fields });

describe('startEntries: several entries together', () => {
  describe('phase_offset', () => {
    it('starts each entry that long after the file start; its windows and duration count from there', async () => {
      const { times } = await runTogether([
        step('a', { duration: 200 }),
        step('b', { duration: 200, phase_offset: 300 }),
        step('c', { duration: 400, phase_offset: 250, gaps: { every: 200, for: 100 } }),
      ]);
      expect(times('a')).to.deep.equal([0, 100]);
      expect(times('b')).to.deep.equal([300, 400]);
      // c's gap is the tail [100, 200) of each 200 ms cycle of its own clock: 350 and 550 are silent.
      expect(times('c')).to.deep.equal([250, 450]);
    });

    it('numbers ticks from 0 at the entry start', async () => {
      const { lines } = await runTogether([step('a', { duration: 300, phase_offset: 700 })]);
      expect(lines('a')).to.deep.equal([
        [0, 700],
        [1, 800],
        [2, 900],
      ]);
    });
  });

  describe('while', () => {
    // link: sin(2π t / 2 s) at 10/s for 3 s: above 0.5 at its ticks 200…800 ms and 2200…2800 ms.
    const link = metricEntry({
      id: 'link',
      name: 'link',
      generator: { type: 'sine', amplitude: 1, offset: 0, period_secs: 2 },
      duration: 3000,
    });
    // The gated entry ticks at 50, 150, … ms (its phase offset keeps its ticks off link's instants).
    const gated = (gate: Partial<NonNullable<Entry['while']>> = {}) =>
      step('drops', { duration: 3000, phase_offset: 50, while: { ref: 'link', op: '>', value: 0.5, ...gate } });
    const range = (from: number, to: number) => Array.from({ length: (to - from) / 100 + 1 }, (_, i) => from + 100 * i);

    it('passes ticks exactly while the watched value satisfies the comparison', async () => {
      const { times } = await runTogether([link, gated()]);
      expect(times('drops')).to.deep.equal([...range(250, 850), ...range(2250, 2850)]);
    });

    it('shifts the opening edge by delay.open and the closing edge by delay.close', async () => {
      const { times } = await runTogether([link, gated({ delay: { open: 300, close: 200 } })]);
      // Holds from 200 → opens at 500; fails from 900 → closes at 1100. Again from 2200 → 2500, to the end.
      expect(times('drops')).to.deep.equal([...range(550, 1050), ...range(2550, 2950)]);
    });

    it('counts the delays from the scheduled time of the watched ticks, not from the late wake-up that carried them', async () => {
      const entries = [link, gated({ delay: { open: 300, close: 200 } })];
      const { times: onTime } = await runTogether(entries);
      // link's sink takes nothing until 450 ms: its ticks 1 to 4 (100…400 ms; above 0.5 from 200) come then.
      const scheduler = new TestScheduler(() => undefined);
      const sinks = new Map(entries.map((entry) => [entry.id, new MemorySink()]));
      sinks.get('link')!.hold();
      const fileRun = startEntries(entries, { scheduler, createSink: (entry) => sinks.get(entry.id)! });
      scheduler.maxFrames = 450;
      scheduler.flush();
      sinks.get('link')!.release();
      await settle();
      scheduler.maxFrames = Infinity;
      scheduler.flush();
      await fileRun.done;
      const late = sinks
        .get('drops')!
        .text.split('\n')
        .filter(Boolean)
        .map((line) => Number(line.split(' ').at(-1)));
      // Holds from 200 → opens at 500 either way (it was 750: 450 + 300).
      expect(late).to.deep.equal(onTime('drops'));
      expect(late[0]).to.equal(550);
    });

    it('with snap_to, writes one last sample of that value at the first tick after each close', async () => {
      const { lines } = await runTogether([link, gated({ snap_to: 0 })]);
      const written = lines('drops');
      // Closes at 900 and 2900: the ticks at 950 and 2950 carry the snap value, once each.
      expect(written.filter(([value]) => value === 0)).to.deep.equal([
        [0, 950],
        [0, 2950],
      ]);
      expect(written.map(([, t]) => t)).to.deep.equal([...range(250, 950), ...range(2250, 2950)]);
    });
  });

  describe('after', () => {
    it('starts an entry at the first tick where the watched value crosses', async () => {
      // cpu: 0, 1, 2, … every 100 ms; > 4 first at tick 5 (500 ms).
      const { times, fileRun } = await runTogether([
        step('cpu'),
        step('alert', { duration: 200, after: { ref: 'cpu', op: '>', value: 4 } }),
      ]);
      expect(times('alert')).to.deep.equal([500, 600]);
      expect(fileRun.startedAt('alert')).to.equal(500);
    });

    it('waits delay after the crossing', async () => {
      const { times } = await runTogether([
        step('cpu'),
        step('alert', { duration: 200, after: { ref: 'cpu', op: '>', value: 4, delay: 250 } }),
      ]);
      expect(times('alert')).to.deep.equal([750, 850]);
    });

    it('counts the delay from the crossing tick scheduled time, not from the wake-up that carried it', async () => {
      // At 3/s tick 2 is due at 666.67 ms and emitted by the wake-up at 667 ms.
      const { times, fileRun } = await runTogether([
        step('cpu', { rate: 3, duration: 2000 }),
        step('alert', { duration: 100, after: { ref: 'cpu', op: '>', value: 1, delay: 1000 } }),
      ]);
      expect(fileRun.startedAt('alert')).to.be.closeTo(1666.667, 0.001);
      expect(times('alert')).to.deep.equal([1666]);
    });

    it('sees the first tick of the watched entry, emitted as the file starts', async () => {
      const { times } = await runTogether([
        step('cpu'),
        step('alert', { duration: 100, after: { ref: 'cpu', op: '>', value: -1 } }),
      ]);
      expect(times('alert')).to.deep.equal([0]);
    });

    it('compares strictly, in both directions', async () => {
      const { times } = await runTogether([
        step('down', { generator: { type: 'step', start: 10, step_size: -1 } }),
        step('below', { duration: 100, after: { ref: 'down', op: '<', value: 7 } }),
        step('equal', { duration: 100, after: { ref: 'down', op: '<', value: 8 } }),
      ]);
      expect(times('below')).to.deep.equal([400]);
      expect(times('equal')).to.deep.equal([300]);
    });

    it('chains two and three entries, each counting from its own start', async () => {
      const { times, lines } = await runTogether([
        step('cpu'),
        step('alert', { duration: 500, after: { ref: 'cpu', op: '>', value: 4, delay: 100 } }),
        step('page', { duration: 200, after: { ref: 'alert', op: '>', value: 1 } }),
      ]);
      expect(times('alert')).to.deep.equal([600, 700, 800, 900, 1000]);
      expect(lines('alert').map(([v]) => v)).to.deep.equal([0, 1, 2, 3, 4]);
      // alert > 1 at its tick 2 (800 ms).
      expect(times('page')).to.deep.equal([800, 900]);
    });

    it('lets several entries wait for the same one', async () => {
      const { times } = await runTogether([
        step('cpu'),
        step('warn', { duration: 100, after: { ref: 'cpu', op: '>', value: 2 } }),
        step('crit', { duration: 100, after: { ref: 'cpu', op: '>', value: 8 } }),
      ]);
      expect(times('warn')).to.deep.equal([300]);
      expect(times('crit')).to.deep.equal([900]);
    });

    it('fires on the watched entry from its first tick, also when that entry starts late', async () => {
      const { times } = await runTogether([
        step('cpu', { phase_offset: 1000 }),
        step('alert', { duration: 100, after: { ref: 'cpu', op: '>', value: 0 } }),
      ]);
      expect(times('alert')).to.deep.equal([1100]);
    });

    it('works on a sine, and agrees with the crossing lib/compile computes', async () => {
      const cpu = metricEntry({
        id: 'cpu',
        rate: 100,
        duration: 2000,
        generator: { type: 'sine', amplitude: 10, period_secs: 1, offset: 0 },
      });
      const after = { ref: 'cpu', op: '>' as const, value: 5 };
      const computed = firstCrossing(cpu, after);
      expect(computed).to.include({ kind: 'tick', tick: 9, offset: 90 });
      const { times } = await runTogether([cpu, step('alert', { duration: 100, after })]);
      expect(times('alert')).to.deep.equal([90]);
    });

    it('works on jittered values: the value after jitter crosses', async () => {
      const cpu = metricEntry({
        id: 'cpu',
        rate: 10,
        duration: 5000,
        generator: { type: 'constant', value: 0 },
        jitter: 10,
        jitter_seed: 7,
      });
      const random = new SplitMix64(7);
      let tick = 0;
      while (!((2 * random.unit(tick) - 1) * 10 > 8)) tick++;
      expect(tick, 'the seed should cross after a few ticks').to.be.within(1, 40);
      expect(firstCrossing(cpu, { ref: 'cpu', op: '>', value: 8 }).kind).to.equal('runtime');
      const { times } = await runTogether([
        cpu,
        step('alert', { duration: 100, after: { ref: 'cpu', op: '>', value: 8 } }),
      ]);
      expect(times('alert')).to.deep.equal([tick * 100]);
    });

    it('counts a crossing inside a gap of the watched entry: the value was generated, only not emitted', async () => {
      const { times } = await runTogether([
        step('cpu', { gaps: { every: 1000, for: 600 } }),
        step('alert', { duration: 100, after: { ref: 'cpu', op: '>', value: 5 } }),
      ]);
      expect(times('cpu')).to.deep.equal([0, 100, 200, 300]);
      expect(times('alert')).to.deep.equal([600]);
    });

    it('never starts an entry whose watched entry ends without crossing; the run still ends', async () => {
      const { times, fileRun, outcomes, sinks } = await runTogether([
        step('cpu', { duration: 300 }),
        step('alert', { after: { ref: 'cpu', op: '>', value: 50 } }),
        step('page', { after: { ref: 'alert', op: '>', value: 0 } }),
      ]);
      expect(outcomes).to.deep.equal([{}, {}, {}]);
      expect(times('alert')).to.deep.equal([]);
      expect(times('page')).to.deep.equal([]);
      expect(fileRun.startedAt('cpu')).to.equal(0);
      expect(fileRun.startedAt('alert')).to.equal(undefined);
      expect(sinks.get('alert')!.closed).to.equal(true);
      expect(fileRun.runs[1]!.stats.totalEvents).to.equal(0);
    });

    it('stop ends entries still waiting to start', async () => {
      const { times, outcomes } = await runTogether(
        [step('cpu', { duration: undefined }), step('alert', { after: { ref: 'cpu', op: '>', value: 1e9 } })],
        450,
      );
      expect(times('cpu')).to.have.length(5);
      expect(times('alert')).to.deep.equal([]);
      expect(outcomes).to.deep.equal([{}, {}]);
    });
  });

  describe('clock_group', () => {
    it('puts the entries of a group on one timeline: an absolute start_time stamps the group start', async () => {
      const start_time = { kind: 'absolute' as const, epochMs: JAN_1 };
      const { times } = await runTogether([
        step('a', { duration: 200, start_time, clock_group: 'g' }),
        step('b', { duration: 200, start_time, clock_group: 'g', phase_offset: 500 }),
        step('solo', { duration: 200, start_time, phase_offset: 500 }),
      ]);
      expect(times('a')).to.deep.equal([JAN_1, JAN_1 + 100]);
      expect(times('b')).to.deep.equal([JAN_1 + 500, JAN_1 + 600]);
      // Without a group, an absolute start_time stamps the entry's own start.
      expect(times('solo')).to.deep.equal([JAN_1, JAN_1 + 100]);
    });

    it('keeps an after entry on its group timeline', async () => {
      const start_time = { kind: 'absolute' as const, epochMs: JAN_1 };
      const { times } = await runTogether([
        step('cpu', { start_time, clock_group: 'chain_alert' }),
        step('alert', {
          duration: 100,
          start_time,
          clock_group: 'chain_alert',
          after: { ref: 'cpu', op: '>', value: 2 },
        }),
      ]);
      expect(times('alert')).to.deep.equal([JAN_1 + 300]);
    });

    it('shifts the group timeline by a relative start_time, and with now stamps the wall clock', async () => {
      const start_time = { kind: 'relative' as const, offsetMs: -3_600_000 };
      const { times } = await runTogether([
        step('a', { duration: 100, start_time, clock_group: 'g' }),
        step('b', { duration: 100, start_time, clock_group: 'g', phase_offset: 200 }),
        step('c', { duration: 100, clock_group: 'h', phase_offset: 300 }),
      ]);
      expect(times('a')).to.deep.equal([-3_600_000]);
      expect(times('b')).to.deep.equal([200 - 3_600_000]);
      expect(times('c')).to.deep.equal([300]);
    });
  });

  describe('startAt (the workers of one run)', () => {
    /** Runs `entries` from the instant 10,000 of another clock, given 500 ms after they were built. */
    const startedFrom = async (entries: Entry[]) => {
      const scheduler = new TestScheduler(() => undefined);
      scheduler.maxFrames = Infinity;
      const sinks = new Map(entries.map((entry) => [entry.id, new MemorySink()]));
      const startAt = new Subject<number>();
      const fileRun = startEntries(entries, { scheduler, createSink: (entry) => sinks.get(entry.id)!, startAt });
      scheduler.schedule(() => startAt.next(10_000), 500);
      scheduler.flush();
      await fileRun.done;
      const times = (id: string) => sinks.get(id)!.chunks.flatMap((chunk) => lines(chunk).map(lastNumber));
      return { fileRun, times };
    };
    const lines = (text: string) => text.split('\n').filter(Boolean);
    const lastNumber = (line: string) => Number(line.split(' ').at(-1));

    it('waits for the start, then stamps the timeline it was given, every start_time as from that instant', async () => {
      const absolute = { kind: 'absolute' as const, epochMs: JAN_1 };
      const { fileRun, times } = await startedFrom([
        step('now', { duration: 200 }),
        step('late', { duration: 100, phase_offset: 300 }),
        step('hour_ago', { duration: 100, start_time: { kind: 'relative', offsetMs: -3_600_000 } }),
        step('jan_1', { duration: 100, start_time: absolute }),
        step('grouped', { duration: 100, clock_group: 'g', phase_offset: 200 }),
        step('grouped_jan_1', { duration: 100, start_time: absolute, clock_group: 'h', phase_offset: 200 }),
      ]);
      expect(times('now')).to.deep.equal([10_000, 10_100]);
      expect(times('late')).to.deep.equal([10_300]);
      expect(times('hour_ago')).to.deep.equal([10_000 - 3_600_000]);
      expect(times('jan_1')).to.deep.equal([JAN_1]);
      expect(times('grouped')).to.deep.equal([10_200]);
      expect(times('grouped_jan_1')).to.deep.equal([JAN_1 + 200]);
      // Its own clock: the entries started when the start came, 500 ms in.
      expect(fileRun.startedAt('now')).to.equal(500);
      expect(fileRun.startedAt('late')).to.equal(800);
    });

    it('stops entries still waiting for the start: they never start', async () => {
      const scheduler = new TestScheduler(() => undefined);
      const sink = new MemorySink();
      const fileRun = startEntries([step('a')], { scheduler, createSink: () => sink, startAt: new Subject<number>() });
      scheduler.flush();
      expect(await fileRun.stop()).to.deep.equal([{}]);
      expect(fileRun.startedAt('a')).to.equal(undefined);
      expect(sink.text).to.equal('');
    });
  });

  it('refuses an after naming no entry of the file', () => {
    expect(() =>
      startEntries([step('a', { after: { ref: 'nope', op: '>', value: 1 } })], { createSink: () => new MemorySink() }),
    ).to.throw('a: after.ref names no entry of the file: "nope"');
  });
});
