import { expect } from 'chai';
import { Subject } from 'rxjs';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { lines, scenarioDir, STOPPED, svc } from '../support/cli.js';
import { backfilledLine, backfillLine } from '../../lib/cli/progress.js';
import type { EntryRun } from '../../lib/runtime/run-entry.js';
import { EntryStats } from '../../lib/runtime/stats.js';
import { metricEntry } from '../support/entries.js';
import { collectGarbage } from '../support/memory.js';
import { startHttpReceiver } from '../support/backends/http-receiver.js';

const sorted = (text: string) => lines(text).sort();

/** Newlines in the file at `path`, read as a stream (the file may be large). */
async function lineCount(path: string): Promise<number> {
  let count = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) count++;
  }
  return count;
}

describe('svc run --backfill', () => {
  const { dir, scenario } = scenarioDir('svc-backfill-');

  // Windows, jitter, spikes, seeded histograms and a phase offset: what decides the samples, and
  // none of it depends on when real timers fire. (Entries started by `after` or in a clock group
  // stamp their own start, which a real timer may give a few ms late: spec/runtime/backfill.spec.ts
  // checks them against a run on the TestScheduler.)
  const shortScenario = (out: string) => `
version: 2
kind: runnable
defaults:
  duration: 1500ms
  start_time: 2026-01-01T00:00:00Z
  sink: {type: file, path: ${out}}
scenarios:
  - signal_type: metrics
    name: cpu
    rate: 40
    generator: {type: sine, amplitude: 30, period_secs: 1, offset: 50}
    jitter: 3
    jitter_seed: 11
    dynamic_labels: [{key: pod, cardinality: 3}]
    gaps: {every: 400ms, for: 100ms}
    bursts: {every: 500ms, for: 200ms, multiplier: 3}
    cardinality_spikes: [{label: user, every: 600ms, for: 200ms, cardinality: 5, strategy: random, seed: 7}]
  - signal_type: histogram
    name: latency_seconds
    rate: 10
    phase_offset: 300ms
    distribution: {type: exponential, rate: 8}
    observations_per_tick: 20
    seed: 3
    buckets: [0.05, 0.1, 0.5]
`;

  it('writes the samples a real-time run writes, byte for byte', async () => {
    const live = join(dir, 'live.prom');
    const backfilled = join(dir, 'backfilled.prom');
    const realTime = await svc(['run', '-q', scenario('live.yaml', shortScenario(live))]);
    const backfill = await svc(['run', '--backfill', scenario('backfill.yaml', shortScenario(backfilled))]);
    expect(realTime.code, realTime.stderr).to.equal(0);
    expect(backfill.code, backfill.stderr).to.equal(0);
    const samples = sorted(readFileSync(live, 'utf8'));
    expect(samples.length).to.be.greaterThan(60);
    expect(sorted(readFileSync(backfilled, 'utf8'))).to.deep.equal(samples);
    // Entries end at their duration in virtual time; the closing line gives the real time it took.
    const stderr = lines(backfill.stderr);
    expect(stderr.filter((line) => STOPPED.test(line)).map((line) => line.split(' | ').at(-1))).to.deep.equal([
      'elapsed: 1.5s',
      'elapsed: 1.8s',
    ]);
    expect(stderr.at(-1)).to.match(/^\[info\] backfilled 1\.8s in \S+ \(\S+× real time\)$/);
  });

  it('refuses an entry without a duration, naming it, with exit code 2', async () => {
    const file = scenario(
      'unbounded.yaml',
      `
version: 2
kind: runnable
scenarios:
  - {signal_type: metrics, name: a, rate: 1, duration: 1h, generator: {type: constant, value: 1}}
  - {signal_type: metrics, name: b, rate: 1, generator: {type: constant, value: 1}}
  - {signal_type: metrics, name: c, rate: 1, generator: {type: constant, value: 1}}
`,
    );
    for (const argv of [
      ['run', '--backfill', file],
      ['run', '--backfill', '--dry-run', file],
    ]) {
      const { code, stdout, stderr } = await svc(argv);
      expect(code).to.equal(2);
      expect(stdout).to.equal('');
      expect(stderr).to.contain(
        '--backfill: a backfill needs a finite duration on every entry; none on: b, c (give each a duration, or --duration)',
      );
    }
    // --duration gives every entry one.
    const { code, stderr } = await svc([
      'run',
      '--backfill',
      '-q',
      '--duration',
      '2s',
      '--sink',
      'file',
      '--endpoint',
      join(dir, 'bounded.prom'),
      file,
    ]);
    expect(code, stderr).to.equal(0);
    expect(lines(readFileSync(join(dir, 'bounded.prom'), 'utf8'))).to.have.length(6);
  });

  it('warns of each entry it would stamp past now, with the start_time that fills the past instead', async () => {
    const file = scenario(
      'future.yaml',
      `
version: 2
kind: runnable
defaults: {duration: 24h, generator: {type: constant, value: 1}}
scenarios:
  - {signal_type: metrics, name: now, rate: 1}
  - {signal_type: metrics, name: offset, rate: 1, phase_offset: 90s}
  - {signal_type: metrics, name: straddles, rate: 1, start_time: -1h, duration: 3h}
  - {signal_type: metrics, name: past, rate: 1, start_time: -24h}
  - {signal_type: metrics, name: absolute, rate: 1, start_time: 2020-01-01T00:00:00Z}
  - {signal_type: metrics, id: web-1, name: up, labels: {instance: web-1}, rate: 1, duration: 1h, clock_group: rollout}
  - {signal_type: metrics, id: web-2, name: up, labels: {instance: web-2}, rate: 1, duration: 1h, clock_group: rollout, phase_offset: 30m}
`,
    );
    const { code, stderr } = await svc(['run', '--backfill', '--dry-run', '-q', file]);
    expect(code, stderr).to.equal(0);
    expect(lines(stderr)).to.deep.equal([
      '[warn] now: the backfill writes timestamps up to 24h00m00s past now (start_time now, duration 24h00m00s): start_time: -24h (or earlier) fills the past up to now',
      '[warn] offset: the backfill writes timestamps up to 24h01m30s past now (start_time now, duration 24h00m00s): start_time: -86490s (or earlier) fills the past up to now',
      '[warn] straddles: the backfill writes timestamps up to 2h00m00s past now (start_time -1h, duration 3h00m00s): start_time: -3h (or earlier) fills the past up to now',
      // One start_time for the clock group: the one that ends its last entry at now.
      '[warn] web-1: the backfill writes timestamps up to 1h00m00s past now (start_time now, duration 1h00m00s): start_time: -90m (or earlier) fills the past up to now',
      '[warn] web-2: the backfill writes timestamps up to 1h30m00s past now (start_time now, duration 1h00m00s): start_time: -90m (or earlier) fills the past up to now',
    ]);
    // A run in real time is meant to stamp the present: no warning.
    expect((await svc(['run', '--dry-run', '-q', file])).stderr).to.equal('');
  });

  it("exits with the signal's code, naming what it left out, when a signal cuts it short", async () => {
    const file = scenario(
      'cut.yaml',
      `
version: 2
kind: runnable
defaults: {duration: 1000h, sink: {type: stdout}}
scenarios:
  - {signal_type: metrics, name: long, rate: 100, generator: {type: constant, value: 1}}
  - {signal_type: metrics, name: late, rate: 1, phase_offset: 999h, generator: {type: constant, value: 1}}
`,
    );
    for (const [signal, exitCode] of [
      ['SIGTERM', 143],
      ['SIGINT', 130],
    ] as const) {
      // The signal comes with the first events written: a few seconds of the 1,000 hours.
      const signals = new Subject<string>();
      const stdout = new Writable({
        write(_chunk, _encoding, done) {
          signals.next(signal);
          done();
        },
      });
      const { code, stderr } = await svc(['run', '--backfill', '-q', file], { stdout, signals });
      expect(code, stderr).to.equal(exitCode);
      const errors = lines(stderr).filter((line) => line.startsWith('error: '));
      expect(errors).to.have.length(2);
      expect(errors[0]).to.match(
        new RegExp(
          `^error: long: backfilled (\\S+) of 1000h00m00s \\(its sink may hold up to 1m00s more, written ahead of the clock\\); the rest is missing \\(the backfill was stopped by ${signal}\\)$`,
        ),
      );
      expect(errors[1]).to.equal(
        `error: late: never started; nothing of it was backfilled (the backfill was stopped by ${signal})`,
      );
    }
  });

  it('exits 1 naming the events its sink dropped, when the sink refused part of the span', async () => {
    const receiver = await startHttpReceiver();
    try {
      // The receiver takes the first request and refuses the rest, as a TSDB refuses samples older than its head.
      receiver.answer(() =>
        receiver.accepted.length === 0 ? { status: 204 } : { status: 400, body: 'out of bounds' },
      );
      const file = scenario(
        'refused.yaml',
        `
version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: cpu
    rate: 1
    duration: 1h
    start_time: -1h
    generator: {type: constant, value: 1}
    sink: {type: http_push, url: ${receiver.url}/import, batch_size: 1000}
`,
      );
      const { code, stderr } = await svc(['run', '--backfill', '-q', file]);
      const delivered = lines(receiver.text()).length;
      expect(delivered).to.be.within(1, 3599);
      expect(code, stderr).to.equal(1);
      expect(lines(stderr).at(-1)).to.match(
        new RegExp(
          `^error: cpu: its sink dropped ${3600 - delivered} of 3600 events \\(http_push sink: POST \\S+ answered 400 Bad Request: "out of bounds".*\\); the backfilled span is missing them$`,
        ),
      );
    } finally {
      await receiver.stop();
    }
  });

  it('exits 0 when the reader of its stdout goes away, as a live run does', async () => {
    const file = scenario(
      'piped.yaml',
      `
version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: cpu
    rate: 10
    duration: 1h
    start_time: -1h
    generator: {type: constant, value: 1}
    sink: {type: stdout}
`,
    );
    let written = 0;
    const stdout = new Writable({
      write(_chunk, _encoding, done) {
        done(++written > 1 ? Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }) : undefined);
      },
    });
    const { code, stderr } = await svc(['run', '--backfill', '-q', file], { stdout });
    expect(code, stderr).to.equal(0);
    expect(stderr).to.not.match(/error/);
  });

  it('backfills hours into a file with bounded memory', async function () {
    this.timeout(60_000);
    // Live memory: what a full collection leaves.
    const live = () => {
      collectGarbage();
      const { heapUsed, external, arrayBuffers } = process.memoryUsage();
      return heapUsed + external + arrayBuffers;
    };
    const out = join(dir, 'hours.prom');
    // 6 hours of 1,000 series at one sample per 15 s: 1,440,001 lines, about 70 MiB.
    const file = scenario(
      'hours.yaml',
      `
version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: cpu
    rate: 66.6667
    duration: 6h
    start_time: -6h
    generator: {type: sine, amplitude: 30, period_secs: 600, offset: 50}
    dynamic_labels: [{key: pod, cardinality: 1000}]
    sink: {type: file, path: ${out}}
`,
    );
    const before = live();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, live())), 200);
    const { code, stderr } = await svc(['run', '--backfill', '-q', file]);
    clearInterval(sampler);
    expect(code, stderr).to.equal(0);
    expect(await lineCount(out)).to.equal(1_440_001);
    // The sink's buffer (1 MiB) and a few batches are live at a time, not the 70 MiB written.
    expect((peak - before) / 2 ** 20).to.be.below(32);
  });

  it('counts in its rows the time its events reached, which runs ahead of the clock', async function () {
    this.timeout(30_000);
    // 20 s fall within the minute a backfill's timer writes ahead of its clock, which therefore stays at the start
    // until the end: rows said `backfilled: 0ms of 20s | 0.0× real time` while millions of events went out.
    const file = scenario(
      'ahead.yaml',
      `
version: 2
kind: runnable
scenarios:
  - {signal_type: metrics, name: fast, rate: 1000, duration: 20s, start_time: -1m, generator: {type: constant, value: 1}}
`,
    );
    // Stdout holds its first write until a progress row (every 5 s) was printed.
    let release: (() => void) | undefined;
    let held = true;
    const stdout = new Writable({
      write(_chunk, _encoding, done) {
        if (held) release = done;
        else done();
      },
    });
    let text = '';
    const stderr = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        if (held && text.includes('backfilled:')) {
          held = false;
          release?.();
        }
        done();
      },
    });
    const { code } = await svc(['run', '--backfill', file], { stdout, stderr });
    expect(code, text).to.equal(0);
    const row = lines(text).find((line) => line.includes('backfilled:'))!;
    const [, reached, speed] = /backfilled: (\S+) of 20s \| (\S+) real time$/.exec(row)!;
    expect(reached, row).to.not.equal('0ms');
    expect(speed, row).to.not.equal('0.0×');
  });

  it('shows the virtual time covered and the speed-up in its progress rows', () => {
    const stats = new EntryStats(0);
    stats.record({ kind: 'written', size: 1200, bytes: 40_000 }, 0);
    const run = { entry: metricEntry({ id: 'cpu', duration: 24 * 3_600_000 }), stats } as unknown as EntryRun;
    expect(backfillLine(run, 5_445_000, 1519.6)).to.equal(
      '[progress] cpu  events: 1200 | bytes: 39.1 KiB | backfilled: 1h30m45s of 24h00m00s | 1520× real time',
    );
    expect(backfillLine(run, 0, Infinity)).to.contain('| backfilled: 0ms of 24h00m00s | -× real time');
    expect(backfilledLine(6 * 3_600_000, 2500)).to.equal('[info] backfilled 6h00m00s in 2.5s (8640× real time)');
  });
});
