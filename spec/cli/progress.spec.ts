import { expect } from 'chai';
import { formatBytes, formatDuration, formatRate } from '../../lib/format.js';
import {
  FailureWarnings,
  SinkWarnings,
  progressLine,
  sinkErrorSaidBelow,
  stoppedLine,
  waitingLine,
} from '../../lib/cli/progress.js';
import { printedLines, redrawnRows } from '../../lib/cli/progress-display.js';
import { fakeTerminal } from '../support/terminal.js';
import { EntryStats } from '../../lib/runtime/stats.js';
import type { EntryOutcome, EntryRun } from '../../lib/runtime/run-entry.js';
import type { Entry } from '../../lib/config/types.js';
import { metricEntry } from '../support/entries.js';
import { readFileSync } from 'node:fs';
import { compileScenario } from '../../lib/compile/index.js';
import { loadScenario } from '../../lib/config/load.js';

function fakeRun(stats: EntryStats): EntryRun {
  return { entry: metricEntry({ id: 'cpu' }), stats, done: Promise.resolve({}), stop: () => Promise.resolve({}) };
}

describe('progress lines', () => {
  it('formats durations, bytes and rates for people', () => {
    expect([850, 1500, 59_940, 125_000, 3_723_000].map(formatDuration)).to.deep.equal([
      '850ms',
      '1.5s',
      '59.9s',
      '2m05s',
      '1h02m03s',
    ]);
    expect([512, 1536, 12.34 * 1024 * 1024].map(formatBytes)).to.deep.equal(['512 B', '1.5 KiB', '12.3 MiB']);
    expect([10, 0.5, 1234.56, 0].map(formatRate)).to.deep.equal(['10/s', '0.5/s', '1234.6/s', '0/s']);
    // Below 1, two significant digits: span metrics every 15 s, a rate of 0.01.
    expect([1 / 15, 0.01, 0.000001].map(formatRate)).to.deep.equal(['0.067/s', '0.01/s', '0.000001/s']);
  });

  it('reports events, rate, bytes and elapsed time', () => {
    const stats = new EntryStats(0);
    for (const at of [0, 1000, 2000]) stats.record({ kind: 'written', size: 10, bytes: 1024 }, at);
    expect(progressLine(fakeRun(stats), 2000)).to.equal(
      '[progress] cpu  events: 30 | rate: 10/s | bytes: 3 KiB | elapsed: 2s',
    );
  });

  it('an entry before its start says what it waits for, not a rate of 0/s that reads as stalled', () => {
    const waiting = (entry: Partial<Entry>, now: number) =>
      waitingLine({ ...fakeRun(new EntryStats(1000)), entry: metricEntry({ id: 'late', ...entry }) }, now);
    expect(waiting({ phase_offset: 300_000 }, 56_000)).to.equal(
      '[progress] late  not started: phase offset 5m00s, starts in 4m05s | elapsed: 55s',
    );
    expect(waiting({ after: { ref: 'cpu', op: '>', value: 75 } }, 11_000)).to.equal(
      '[progress] late  not started: waits for cpu > 75 | elapsed: 10s',
    );
  });

  it('an after entry whose condition was met counts down its delay, not "waits for" a condition that happened', () => {
    const run = {
      ...fakeRun(new EntryStats(1000)),
      entry: metricEntry({ id: 'late', after: { ref: 'cpu', op: '>', value: 75, delay: 30_000 } }),
    };
    // Before: 'waits for cpu > 75' until the delay ran out.
    expect(waitingLine(run, 21_000, 11_000)).to.equal(
      '[progress] late  not started: cpu > 75 happened, starts in 20s (delay 30s) | elapsed: 20s',
    );
  });

  it('gives span metrics the interval they are written at as their rate, not a rate that swings with each flush', () => {
    const origin = 'examples/incident.yaml';
    const text = readFileSync(new URL('../../examples/incident.yaml', import.meta.url), 'utf8');
    const { scenarios } = compileScenario(loadScenario(text, { origin, format: 'yaml' }), { origin });
    const calls = scenarios.find((entry) => entry.span_metrics_of?.family === 'calls')!;
    const stats = new EntryStats(0);
    // One flush of 14 points: a rate over the last 5 s swings between 0/s and a burst after each flush.
    stats.record({ kind: 'written', size: 14, bytes: 700 }, 15_000);
    const run = { entry: calls, stats, done: Promise.resolve({}), stop: () => Promise.resolve({}) };
    expect(progressLine(run, 16_000)).to.equal(
      `[progress] ${calls.id}  events: 14 | rate: every 15s | bytes: 700 B | elapsed: 16s`,
    );
  });

  it('adds what the receiver said it wrote (remote write 2.0), summed, once it said so', () => {
    const stats = new EntryStats(0);
    stats.record({ kind: 'written', size: 4, bytes: 100 }, 0);
    expect(progressLine(fakeRun(stats), 1000)).to.not.include('written:');
    stats.record({ kind: 'delivered', size: 2, bytes: 50, written: { samples: 1, histograms: 1, exemplars: 1 } }, 500);
    stats.record({ kind: 'delivered', size: 2, bytes: 50, written: { samples: 2, histograms: 0, exemplars: 0 } }, 600);
    expect(progressLine(fakeRun(stats), 1000)).to.match(/ \| written: 3 samples, 1 histograms, 1 exemplars$/);
    // A run shorter than the progress interval shows it on its STOPPED line only.
    expect(stoppedLine(fakeRun(stats), {}, 1000)).to.equal(
      '[progress] cpu  STOPPED | events: 4 | bytes: 100 B | elapsed: 1s | written: 3 samples, 1 histograms, 1 exemplars',
    );
    expect(stats.snapshot(1000).receiver_written).to.deep.equal({ samples: 3, histograms: 1, exemplars: 1 });
  });

  it("prints each of the sink's warnings once, as [warn] lines", () => {
    const stats = new EntryStats(0);
    const run = fakeRun(stats);
    const warnings = new SinkWarnings();
    expect(warnings.take(run)).to.deep.equal([]);
    stats.record({ kind: 'warning', message: 'sending 1.0 from now on' }, 0);
    expect(warnings.take(run)).to.deep.equal(['[warn] cpu: sending 1.0 from now on']);
    expect(warnings.take(run)).to.deep.equal([]);
    expect(stats.snapshot(0).sink_warnings).to.deep.equal(['sending 1.0 from now on']);
  });

  it('STOPPED names the sink error only when there was one', () => {
    const stats = new EntryStats(0);
    stats.record({ kind: 'written', size: 5, bytes: 100 }, 500);
    const run = fakeRun(stats);
    expect(stoppedLine(run, {}, 1000)).to.equal('[progress] cpu  STOPPED | events: 5 | bytes: 100 B | elapsed: 1s');
    expect(stoppedLine(run, { error: new Error('tcp sink: connection refused'), inSink: true }, 1000)).to.equal(
      '[progress] cpu  STOPPED (sink: tcp sink: connection refused) | events: 5 | bytes: 100 B | elapsed: 1s',
    );
  });

  it('says how many events the sink dropped, once it dropped some: events counts them too', () => {
    const stats = new EntryStats(0);
    const run = fakeRun(stats);
    stats.record({ kind: 'written', size: 30, bytes: 300 }, 0);
    stats.record({ kind: 'delivered', size: 10, bytes: 100 }, 100);
    expect(progressLine(run, 1000)).to.not.include('dropped');
    stats.record(
      { kind: 'failed', size: 20, bytes: 200, error: new Error('answered 429 (gave up after 5 attempts)') },
      900,
    );
    expect(progressLine(run, 1000)).to.match(/ \| elapsed: 1s \| dropped: 20$/);
    expect(stoppedLine(run, {}, 1000)).to.equal(
      '[progress] cpu  STOPPED (sink: answered 429 (gave up after 5 attempts)) | events: 30 | bytes: 300 B | elapsed: 1s | dropped: 20',
    );
  });

  it('STOPPED says error, not sink, for an error of the entry itself', () => {
    const run = fakeRun(new EntryStats(0));
    expect(
      stoppedLine(run, { error: new RangeError('slot 9007199254740992 cannot be counted exactly') }, 1000),
    ).to.equal(
      '[progress] cpu  STOPPED (error: slot 9007199254740992 cannot be counted exactly) | events: 0 | bytes: 0 B | elapsed: 1s',
    );
  });

  it('warns about sink failures at most once per interval, with the count dropped', () => {
    const stats = new EntryStats(0);
    const run = fakeRun(stats);
    const warnings = new FailureWarnings(5000);
    const fail = (at: number) => stats.record({ kind: 'failed', size: 1, bytes: 1, error: new Error('down') }, at);
    expect(warnings.check(run, 0)).to.deep.equal([]);
    fail(100);
    expect(warnings.check(run, 100)).to.deep.equal(['[warn] cpu: down (1 batch dropped, 1 in all)']);
    fail(200);
    fail(300);
    expect(warnings.check(run, 300)).to.deep.equal([]);
    expect(warnings.check(run, 5100)).to.deep.equal(['[warn] cpu: down (2 batches dropped, 3 in all)']);
    expect(warnings.check(run, 10_200)).to.deep.equal([]);
  });

  it('at the end, warns of sink failures not said yet unless a line below names the sink error: not when an error of the entry itself stopped it', () => {
    const stats = new EntryStats(0);
    const run = fakeRun(stats);
    stats.record({ kind: 'written', size: 2, bytes: 2 }, 0);
    stats.record({ kind: 'delivered', size: 1, bytes: 1 }, 0);
    stats.record({ kind: 'failed', size: 1, bytes: 1, error: new Error('down') }, 100);
    const final = (outcome: EntryOutcome, stoppedLineShown: boolean) =>
      new FailureWarnings(5000).check(run, 200, { saidBelow: sinkErrorSaidBelow(run, outcome, stoppedLineShown) });
    const warned = ['[warn] cpu: down (1 batch dropped, 1 in all)'];
    // Its STOPPED line names `down`; --quiet prints no STOPPED line, and nothing failed the run.
    expect(final({}, true)).to.deep.equal([]);
    expect(final({}, false)).to.deep.equal(warned);
    // The STOPPED line (and the error line) name the entry's own error, not `down`.
    const own = { error: new RangeError('slot 9007199254740992 cannot be counted exactly') };
    expect(stoppedLine(run, own, 200)).to.not.include('down');
    expect(final(own, true)).to.deep.equal(warned);
    expect(final(own, false)).to.deep.equal(warned);
    // Stopped by its sink: the STOPPED and error lines name that error.
    expect(final({ error: new Error('down'), inSink: true }, true)).to.deep.equal([]);
    expect(final({ error: new Error('down'), inSink: true }, false)).to.deep.equal([]);
  });

  it("a receiver's partial refusals: said once per streak however long, counted in rejected on the progress line", () => {
    const stats = new EntryStats(0);
    const run = fakeRun(stats);
    const warnings = new FailureWarnings(5000);
    const refuse = (at: number, refusal: number) =>
      stats.record({ kind: 'failed', size: 2, bytes: 20, error: new Error('refused 2 of 5'), refusal }, at);
    const said =
      '[warn] cpu: refused 2 of 5 (the receiver refuses part of the data: counted in rejected, said again once it took a whole request)';
    refuse(100, 1);
    expect(warnings.check(run, 100)).to.deep.equal([said]);
    // The streak goes on past the interval: nothing more is said.
    for (let n = 2; n <= 50; n++) refuse(100 * n, n);
    expect(warnings.check(run, 5200)).to.deep.equal([]);
    expect(warnings.check(run, 10_300, { saidBelow: false })).to.deep.equal([]);
    expect(progressLine(run, 10_300)).to.match(/ \| rejected: 100$/);
    // A whole request taken ended it (the sink counts from 1 again): a new streak is said again.
    refuse(10_400, 1);
    expect(warnings.check(run, 10_400)).to.deep.equal([said]);
    expect(stats.snapshot(10_400)).to.include({ receiver_rejected: 102, total_sink_failures: 51 });
  });

  it("printed lines: an ended entry's STOPPED line once, not again every 5 s while others run", () => {
    const written: string[] = [];
    const display = printedLines({ write: (line: string) => written.push(line) } as unknown as NodeJS.WritableStream);
    const stopped = '[progress] a  STOPPED | events: 3 | bytes: 30 B | elapsed: 2s';
    display.show([], [stopped, '[progress] b  events: 1 | rate: 0/s | bytes: 10 B | elapsed: 5s']);
    display.show(['[warn] b: down'], [stopped, '[progress] b  events: 1 | rate: 0/s | bytes: 10 B | elapsed: 10s']);
    display.show([], [stopped, '[progress] b  events: 1 | rate: 0/s | bytes: 10 B | elapsed: 15s']);
    expect(written.join('')).to.equal(
      [
        stopped,
        '[progress] b  events: 1 | rate: 0/s | bytes: 10 B | elapsed: 5s',
        '[warn] b: down',
        '[progress] b  events: 1 | rate: 0/s | bytes: 10 B | elapsed: 10s',
        '[progress] b  events: 1 | rate: 0/s | bytes: 10 B | elapsed: 15s',
        '',
      ].join('\n'),
    );
  });

  it('redrawn rows on a narrow terminal: a long id is shortened in its middle so that the figures fit', async () => {
    const terminal = fakeTerminal(80);
    const long = `node.${'node_cpu_seconds_total_'.repeat(3)}#2`;
    const figures = 'events: 120 | rate: 10/s | bytes: 1.2 KiB | elapsed: 12s';
    const display = redrawnRows(terminal.stream, [long, 'cpu']);
    display.show([], [`[progress] ${long}  ${figures}`, `[progress] cpu  ${figures}`]);
    const screen = await terminal.screen();
    display.stop();
    // One column spare: 79 cells.
    expect(screen).to.deep.equal([`[progress] node.…l_#2  ${figures}`, `[progress] cpu  ${figures}`]);
    expect(screen[0]).to.have.length(79);
  });

  it('printed lines keep the whole id however long', () => {
    const written: string[] = [];
    const display = printedLines({ write: (line: string) => written.push(line) } as unknown as NodeJS.WritableStream);
    const row = `[progress] node.${'node_cpu_seconds_total_'.repeat(3)}#2  events: 1 | rate: 0/s | bytes: 10 B | elapsed: 5s`;
    display.show([], [row]);
    expect(written).to.deep.equal([`${row}\n`]);
  });
});
