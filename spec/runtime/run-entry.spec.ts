import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { PassThrough, Writable } from 'node:stream';
import { streamSink } from '../../lib/sinks/core/stream-sink.js';
import { MemorySink, ReportingSink } from '../support/sinks.js';
import { metricEntry } from '../support/entries.js';
import { stoppedLine } from '../../lib/cli/progress.js';
import { settle } from '../support/clock.js';

const JAN_1 = Date.parse('2026-01-01T00:00:00Z');

function virtualRun(fields: Parameters<typeof metricEntry>[0], sink = new MemorySink()) {
  const scheduler = new TestScheduler(() => undefined);
  scheduler.maxFrames = Infinity;
  const run = runEntry(metricEntry(fields), { scheduler, createSink: () => sink });
  return { scheduler, run, sink };
}

describe('runEntry', () => {
  it('runs the whole chain: timestamps from start_time, labels, text exposition', async () => {
    const { scheduler, run, sink } = virtualRun({
      name: 'cpu',
      duration: 300,
      start_time: { kind: 'absolute', epochMs: JAN_1 },
      generator: { type: 'step', start: 5, step_size: 1 },
      labels: { host: 'a' },
    });
    scheduler.flush();
    expect(await run.done).to.deep.equal({});
    expect(sink.text).to.equal(
      `cpu{host="a"} 5 ${JAN_1}\ncpu{host="a"} 6 ${JAN_1 + 100}\ncpu{host="a"} 7 ${JAN_1 + 200}\n`,
    );
    expect(sink.flushes).to.be.at.least(1);
    expect(sink.closed).to.equal(true);
    expect(run.stats.snapshot(scheduler.now())).to.include({
      total_events: 3,
      bytes_emitted: sink.text.length,
      errors: 0,
    });
  });

  it('stamps relative start times from the entry start', async () => {
    const { scheduler, run, sink } = virtualRun({
      duration: 100,
      start_time: { kind: 'relative', offsetMs: -3_600_000 },
    });
    scheduler.flush();
    await run.done;
    expect(sink.text).to.equal(`up 1 ${-3_600_000}\n`);
  });

  it('starts after its phase offset', async () => {
    const { scheduler, run, sink } = virtualRun({ duration: 200, phase_offset: 500 });
    scheduler.flush();
    await run.done;
    expect(sink.text).to.equal('up 1 500\nup 1 600\n');
  });

  it('counts the events a held-back entry never made before its duration in missed_events, and says so when it stops', async () => {
    const sink = new MemorySink();
    sink.hold();
    const { scheduler, run } = virtualRun({ rate: 10, duration: 1000 }, sink);
    // The first write is held until the duration is over: the nine slots due after it are never made.
    scheduler.flush();
    sink.release();
    expect(await run.done).to.deep.equal({});
    expect(run.stats.snapshot(scheduler.now())).to.include({ total_events: 1, missed_events: 9 });
    expect(stoppedLine(run, {}, scheduler.now())).to.match(/ \| missed: 9 \(rate not kept\)$/);
    const kept = virtualRun({ rate: 10, duration: 1000 });
    kept.scheduler.flush();
    await kept.run.done;
    expect(kept.run.stats.snapshot(kept.scheduler.now())).to.include({ total_events: 10, missed_events: 0 });
    expect(stoppedLine(kept.run, {}, kept.scheduler.now())).to.not.include('missed');
  });

  it('stop delivers what was produced, flushes and closes', async () => {
    const { scheduler, run, sink } = virtualRun({});
    scheduler.schedule(() => void run.stop(), 450);
    scheduler.flush();
    expect(await run.done).to.deep.equal({});
    expect(sink.chunks.join('').split('\n').filter(Boolean)).to.have.length(5);
    expect(sink.closed).to.equal(true);
  });

  it('closes the sink once however the chain ends: completed, stopped, failed in its sink or in its close, or broken upstream', async () => {
    const completed = virtualRun({ duration: 300 });
    const stopped = virtualRun({});
    stopped.scheduler.schedule(() => void stopped.run.stop(), 450);
    const failing = new MemorySink();
    failing.failWith = new Error('file sink: cannot write');
    const failed = virtualRun({ on_sink_error: 'fail' }, failing);
    const closeFailing = new (class extends MemorySink {
      override async close(): Promise<void> {
        await super.close();
        throw new Error('file sink: cannot close');
      }
    })();
    const closeFailed = virtualRun({ on_sink_error: 'fail', duration: 300 }, closeFailing);
    const brokenSink = new MemorySink();
    const broken = runEntry(metricEntry({ duration: 300 }), {
      scheduler: completed.scheduler,
      createSink: () => brokenSink,
      hooks: {
        onValues: () => {
          throw new Error('a hook broke');
        },
      },
    });
    for (const { scheduler } of [completed, stopped, failed, closeFailed]) scheduler.flush();
    const outcomes = await Promise.all(
      [completed, stopped, failed, closeFailed].map(({ run }) => run.done).concat(broken.done),
    );
    expect(outcomes.map((outcome) => outcome.error?.message)).to.deep.equal([
      undefined,
      undefined,
      'file sink: cannot write',
      'file sink: cannot close',
      'a hook broke',
    ]);
    expect([completed.sink, stopped.sink, failing, closeFailing, brokenSink].map((sink) => sink.closes)).to.deep.equal([
      1, 1, 1, 1, 1,
    ]);
  });

  it('under on_sink_error fail ends with the sink error and counts it', async () => {
    const sink = new MemorySink();
    sink.failWith = new Error('file sink: cannot write');
    const { scheduler, run } = virtualRun({ on_sink_error: 'fail' }, sink);
    scheduler.flush();
    const outcome = await run.done;
    expect(outcome.error?.message).to.equal('file sink: cannot write');
    expect(run.stats.snapshot(scheduler.now())).to.include({
      total_sink_failures: 1,
      last_sink_error: 'file sink: cannot write',
    });
    expect(sink.closed).to.equal(true);
  });

  it('under warn keeps running, counts failures and resets them on success; a refused write is in total_events and dropped', async () => {
    const sink = new MemorySink();
    sink.failWith = new Error('down');
    const { scheduler, run } = virtualRun({ duration: 1000 }, sink);
    scheduler.schedule(() => (sink.failWith = undefined), 250);
    scheduler.flush();
    await run.done;
    const stats = run.stats.snapshot(scheduler.now());
    expect(stats).to.include({
      total_sink_failures: 3,
      consecutive_failures: 0,
      total_events: 10,
      dropped_events: 3,
      last_sink_error: 'down',
    });
    expect(stats.last_successful_write_at).to.equal(new Date(900).toISOString());
  });

  it('names the missing field of an entry the validator would have refused', () => {
    expect(() => runEntry(metricEntry({ signal_type: 'logs' }), { createSink: () => new MemorySink() })).to.throw(
      /up: log_generator is required for signal_type logs/,
    );
  });

  it('closes the sink it built when the chain cannot be built, and throws the chain error', async () => {
    const sink = new MemorySink();
    expect(() => runEntry(metricEntry({ signal_type: 'logs' }), { createSink: () => sink })).to.throw(
      /log_generator is required/,
    );
    await Promise.resolve();
    expect(sink.closes).to.equal(1);
  });

  it('counts a sink error under fail once, as the sink error; an error of the chain itself is no sink failure', async () => {
    const failing = new MemorySink();
    failing.failWith = new Error('tcp sink: connection refused');
    const sinkSide = virtualRun({ duration: 300, on_sink_error: 'fail' }, failing);
    sinkSide.scheduler.flush();
    expect(await sinkSide.run.done).to.deep.equal({ error: failing.failWith, inSink: true });
    expect(sinkSide.run.stats.totalSinkFailures).to.equal(1);

    const scheduler = new TestScheduler(() => undefined);
    scheduler.maxFrames = Infinity;
    const broken = new Error('a hook broke');
    const run = runEntry(metricEntry({ duration: 300 }), {
      scheduler,
      createSink: () => new MemorySink(),
      hooks: {
        onValues: () => {
          throw broken;
        },
      },
    });
    scheduler.flush();
    expect(await run.done).to.deep.equal({ error: broken, inSink: false });
    expect(run.stats.totalSinkFailures).to.equal(0);
    expect(run.stats.lastSinkError).to.equal(undefined);
  });

  it('under fail, counts what the sink still held as its close delivered or gave it up, the failure once', async () => {
    const sink = new ReportingSink();
    const refused = new Error('http_push sink: 400 Bad Request');
    const lost = new Error('http_push sink: connection refused (gave up after 5 attempts)');
    // The first batch is refused while the rest are held; the close delivers one of them and gives up the others.
    sink.close = async () => {
      sink.closes++;
      sink.reports.next({ kind: 'delivered', size: 1, bytes: 1 });
      sink.reports.next({ kind: 'failed', size: sink.chunks.length - 2, bytes: 1, error: lost });
      sink.reports.complete();
      throw lost;
    };
    const { scheduler, run } = virtualRun({ duration: 1000, on_sink_error: 'fail' }, sink);
    scheduler.schedule(() => sink.reports.next({ kind: 'failed', size: 1, bytes: 1, error: refused }), 250);
    scheduler.flush();
    expect(await run.done).to.deep.equal({ error: refused, inSink: true });
    expect(sink.chunks).to.have.length(3);
    expect(run.stats.snapshot(scheduler.now())).to.include({
      total_events: 3,
      dropped_events: 2,
      total_sink_failures: 2,
      last_sink_error: lost.message,
    });
    expect(run.stats.lastSuccessfulWriteAt).to.not.equal(undefined);
  });

  it('counts a destination that failed for good once, though the next write, the flush and the close each tell of it', async () => {
    const stream = new PassThrough();
    const sink = streamSink({ name: 'file', target: '/tmp/out.prom', stream });
    stream.destroy(new Error('EIO: i/o error'));
    await settle();
    const scheduler = new TestScheduler(() => undefined);
    scheduler.maxFrames = Infinity;
    const run = runEntry(metricEntry({ duration: 300 }), { scheduler, createSink: () => sink });
    scheduler.flush();
    await run.done;
    expect(run.stats.snapshot(scheduler.now())).to.include({ total_sink_failures: 1, dropped_events: 1 });
  });

  it('counts a chunk whose write waited when the destination failed in total_events as in dropped_events', async () => {
    // A stream that takes one chunk and never calls back: the next write waits on backpressure.
    const stream = new Writable({ highWaterMark: 1, write: () => undefined });
    const sink = streamSink({ name: 'file', target: '/tmp/out.prom', stream });
    const scheduler = new TestScheduler(() => undefined);
    scheduler.maxFrames = Infinity;
    const run = runEntry(metricEntry({ duration: 300 }), { scheduler, createSink: () => sink });
    scheduler.flush();
    stream.destroy(new Error('EIO: i/o error'));
    await settle();
    scheduler.flush();
    await run.done;
    const { total_events, dropped_events } = run.stats.snapshot(scheduler.now());
    expect(dropped_events).to.be.greaterThan(0);
    expect(total_events).to.equal(dropped_events);
  });
});
