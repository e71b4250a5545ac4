import { expect } from 'chai';
import type { EncodedBatch } from '../../../operators/model/batch.js';
import type { SinkReport } from '../../../operators/deliver.js';
import {
  batchingSink,
  type BatchingOptions,
  type Receipt,
  type Request,
  type Stored,
} from '../../../lib/sinks/core/batching-sink.js';
import { SinkError } from '../../../lib/sinks/core/errors.js';
import { chunk } from '../../support/batches.js';
import { ManualScheduler, settle } from '../../support/clock.js';
import { runEntry } from '../../../lib/runtime/run-entry.js';
import { metricEntry } from '../../support/entries.js';
import { isSettled } from '../../support/streams.js';

interface Body extends Request {
  readonly body: string;
}

/** A transport whose sends are answered by `answer` (default: at once, successfully). */
function fakeTransport() {
  const sent: string[] = [];
  const pending: { resolve: () => void; reject: (e: Error) => void }[] = [];
  /** `stored`: tells a part of the request acknowledged (a Kafka send whose brokers answer apart). */
  let answer: (body: string, attempt: number, stored: (part: Stored) => void) => 'ok' | 'hang' | Error = () => 'ok';
  let attempts = 0;
  let released = false;
  return {
    sent,
    pending,
    get released() {
      return released;
    },
    answerWith(next: typeof answer) {
      answer = next;
    },
    transport: {
      prepare: (chunks: readonly EncodedBatch[]): Body[] => {
        const body = chunks.map((c) => c.data as string).join('');
        if (body.includes('unframable')) throw new Error('cannot frame this');
        return [{ body, size: chunks.reduce((n, c) => n + c.size, 0), bytes: body.length }];
      },
      send: (request: Body, stored: (part: Stored) => void): Promise<void> => {
        const outcome = answer(request.body, ++attempts, stored);
        if (outcome === 'hang') return new Promise((resolve, reject) => pending.push({ resolve, reject }));
        if (outcome instanceof Error) return Promise.reject(outcome);
        sent.push(request.body);
        return Promise.resolve();
      },
      release: () => void (released = true),
    },
  };
}

function setup(options: Partial<BatchingOptions> = {}) {
  const scheduler = new ManualScheduler();
  const fake = fakeTransport();
  const sink = batchingSink(fake.transport, {
    name: 'http_push',
    target: 'http://receiver/push',
    batchSize: 16,
    maxAge: 1000,
    retry: { maxAttempts: 3, initialBackoff: 100, maxBackoff: 1000 },
    scheduler,
    random: () => 0.5,
    ...options,
  });
  const reports: SinkReport[] = [];
  sink.reports!.subscribe((r) => reports.push(r));
  return { scheduler, fake, sink, reports };
}

const retryable = (status: number) => new SinkError('http_push', `answered ${status}`, { retryable: true });

describe('batchingSink (the batching core of http_push and logstore)', () => {
  it('holds a small batch until the oldest chunk is max-age old, then sends it', async () => {
    const { scheduler, fake, sink, reports } = setup();
    expect(sink.write(chunk('a 1\n'))).to.equal(undefined);
    await scheduler.advance(500);
    sink.write(chunk('b 2\n'));
    await scheduler.advance(499);
    expect(fake.sent).to.deep.equal([]);
    await scheduler.advance(1);
    expect(fake.sent).to.deep.equal(['a 1\nb 2\n']);
    expect(reports).to.deep.equal([{ kind: 'delivered', size: 2, bytes: 8 }]);
  });

  it('sends at once when batch_size bytes are buffered', async () => {
    const { fake, sink } = setup({ batchSize: 16 });
    sink.write(chunk('0123456789\n'));
    await settle();
    expect(fake.sent).to.deep.equal([]);
    sink.write(chunk('abcdef\n'));
    await settle();
    expect(fake.sent).to.deep.equal(['0123456789\nabcdef\n']);
  });

  it('sends one request at a time; what arrives meanwhile goes out together in the next one', async () => {
    const { fake, sink } = setup({ batchSize: 4 });
    fake.answerWith((_, n) => (n === 1 ? 'hang' : 'ok'));
    sink.write(chunk('first\n'));
    await settle();
    sink.write(chunk('second\n'));
    sink.write(chunk('third\n'));
    await settle();
    expect(fake.pending).to.have.length(1);
    fake.pending[0]!.resolve();
    await settle();
    expect(fake.sent).to.deep.equal(['second\nthird\n']);
  });

  it('caps a request at max_request_bytes of whole chunks; the rest follows at once', async () => {
    const { fake, sink } = setup({ batchSize: 4, maxRequestBytes: 12 });
    fake.answerWith((_, n) => (n === 1 ? 'hang' : 'ok'));
    sink.write(chunk('xxxx\n'));
    await settle();
    for (const c of ['aaaa\n', 'bbbb\n', 'cccc\n', 'dddd\n']) sink.write(chunk(c));
    fake.pending[0]!.resolve();
    await settle();
    expect(fake.sent).to.deep.equal(['aaaa\nbbbb\n', 'cccc\ndddd\n']);
  });

  it("counting records or events, sends at once when a request's bytes are buffered, short of batch_size: the writer is never held back waiting for max_age", async () => {
    for (const batchUnit of ['records', 'events'] as const) {
      const { fake, sink } = setup({ batchSize: 1000, batchUnit, maxRequestBytes: 13 });
      sink.write(chunk('aaaa\n'));
      sink.write(chunk('bbbb\n'));
      await settle();
      expect(fake.sent, batchUnit).to.deep.equal([]);
      // Thirteen bytes fill a request; the high-water mark (4 requests) is not reached yet.
      expect(sink.write(chunk('cc\n'))).to.equal(undefined);
      await settle();
      expect(fake.sent, batchUnit).to.deep.equal(['aaaa\nbbbb\ncc\n']);
    }
  });

  it('retries a retryable failure with exponential backoff and full jitter, then delivers', async () => {
    const { scheduler, fake, sink, reports } = setup();
    fake.answerWith((_, n) => (n <= 2 ? retryable(503) : 'ok'));
    sink.write(chunk('0123456789abcdef\n'));
    await settle();
    // random 0.5: waits 0.5 × 100 ms, then 0.5 × 200 ms.
    expect(reports.map((r) => r.kind === 'retrying' && [r.attempt, r.delay])).to.deep.equal([[1, 50]]);
    await scheduler.advance(49);
    expect(reports).to.have.length(1);
    await scheduler.advance(1);
    expect(reports.map((r) => r.kind === 'retrying' && [r.attempt, r.delay])).to.deep.equal([
      [1, 50],
      [2, 100],
    ]);
    await scheduler.advance(100);
    expect(fake.sent).to.deep.equal(['0123456789abcdef\n']);
    expect(reports[2]).to.deep.equal({ kind: 'delivered', size: 1, bytes: 17 });
  });

  it('gives up after max_attempts: the batch is reported failed and flush rejects with that error', async () => {
    const { scheduler, fake, sink, reports } = setup({ retry: { maxAttempts: 2, initialBackoff: 10, maxBackoff: 10 } });
    fake.answerWith(() => retryable(500));
    sink.write(chunk('a\n', 3));
    const flushed = sink.flush().catch((e: unknown) => e);
    await scheduler.advance(10);
    const failed = reports.find((r) => r.kind === 'failed');
    expect(failed).to.deep.include({ kind: 'failed', size: 3 });
    const error = (failed as { error: Error }).error;
    expect(error.message).to.equal('http_push sink: answered 500 (gave up after 2 attempts)');
    expect(await flushed).to.equal(error);
    // The next batch starts over.
    fake.answerWith(() => 'ok');
    sink.write(chunk('b\n'));
    await sink.flush();
    expect(fake.sent).to.deep.equal(['b\n']);
  });

  it('a failed attempt that stored part of the request: that part is delivered at once, and only the rest is retried and given up', async () => {
    const { scheduler, fake, sink, reports } = setup({
      name: 'broker',
      retry: { maxAttempts: 3, initialBackoff: 10, maxBackoff: 10 },
    });
    // As a Kafka send whose partitions answer apart: the first attempt stores 2 of 5 events, the next 1 more.
    const parts = [2, 1];
    fake.answerWith((_, attempt, stored) => {
      if (attempt <= parts.length) stored({ size: parts[attempt - 1]!, bytes: 2 * parts[attempt - 1]! });
      return new SinkError('broker', 'answered NOT_LEADER_OR_FOLLOWER', { retryable: true });
    });
    sink.write(chunk('a\nb\nc\nd\ne\n', 5));
    const flushed = sink.flush().catch((e: unknown) => e);
    await scheduler.advance(20);
    const settled = reports.flatMap((r) =>
      r.kind === 'delivered' || r.kind === 'failed' ? [[r.kind, r.size, r.bytes]] : [],
    );
    expect(settled).to.deep.equal([
      ['delivered', 2, 4],
      ['delivered', 1, 2],
      ['failed', 2, 4],
    ]);
    expect(((await flushed) as Error).message).to.equal(
      'broker sink: answered NOT_LEADER_OR_FOLLOWER (gave up after 3 attempts)',
    );
  });

  it('a part stored, then the rest acknowledged: each is delivered once, nothing failed', async () => {
    const { scheduler, fake, sink, reports } = setup({ name: 'broker' });
    fake.answerWith((_, _attempt, stored) => {
      stored({ size: 2, bytes: 4 });
      return 'ok';
    });
    sink.write(chunk('a\nb\nc\nd\ne\n', 5));
    await sink.flush();
    await scheduler.advance(0);
    expect(reports).to.deep.equal([
      { kind: 'delivered', size: 2, bytes: 4 },
      { kind: 'delivered', size: 3, bytes: 6 },
    ]);
  });

  it('a part stored, then the flush runs out of time: only the part still in flight is counted failed', async () => {
    const { scheduler, fake, sink, reports } = setup({ name: 'broker', flushTimeout: 1000 });
    // As a Kafka send over two brokers: one stores its share at once, the other never answers.
    fake.answerWith((_, _attempt, stored) => {
      stored({ size: 1, bytes: 2 });
      return 'hang';
    });
    sink.write(chunk('a\nb\n', 2));
    const flushed = sink.flush().catch((e: Error) => e);
    await scheduler.advance(1000);
    const error = (await flushed) as Error;
    // One broker's share arrived: not "acknowledged nothing".
    expect(error.message).to.equal(
      'broker sink: http://receiver/push: 1 event was acknowledged since the flush began, but not the rest within 1 s of the flush; the data still held was dropped',
    );
    expect(reports).to.deep.equal([
      { kind: 'delivered', size: 1, bytes: 2 },
      { kind: 'failed', size: 1, bytes: 2, error },
    ]);
  });

  it("a receipt's warning is said once per sink: the first receipt's that brings one, none after it", async () => {
    const scheduler = new ManualScheduler();
    const answers: ((receipt: Receipt) => void)[] = [];
    const sink = batchingSink<Body>(
      {
        prepare: (chunks) => [{ body: '', size: chunks.length, bytes: 1 }],
        send: () => new Promise<Receipt>((resolve) => answers.push(resolve)),
      },
      {
        name: 'otlp_http',
        target: 't',
        batchSize: 1,
        maxAge: 0,
        flushTimeout: 1000,
        scheduler,
        retry: { maxAttempts: 1, initialBackoff: 10, maxBackoff: 10 },
      },
    );
    const warnings: string[] = [];
    sink.reports!.subscribe((report) => report.kind === 'warning' && warnings.push(report.message));
    sink.write(chunk('a\n'));
    const flushed = sink.flush().catch((e: Error) => e);
    await scheduler.advance(1000);
    await flushed;
    // The answer came after the flush cut its request: the core reads no receipt of a cut request, so this one is
    // nothing to it (a protocol that marked a warning said when it read its answer lost it: the once rule is here).
    answers[0]!({ warning: 'cut' });
    for (const [i, warning] of ['second', 'third'].entries()) {
      sink.write(chunk('b\n'));
      await settle();
      answers[i + 1]!({ warning });
      await settle();
    }
    expect(warnings).to.deep.equal(['second']);
  });

  it('a flush whose first requests were acknowledged and the last hangs says how many arrived, not "nothing"', async () => {
    const { scheduler, fake, sink } = setup({ batchSize: 4, maxRequestBytes: 4, flushTimeout: 1000 });
    fake.answerWith((_, attempt) => (attempt === 1 ? 'ok' : 'hang'));
    sink.write(chunk('a\nb\n', 2));
    sink.write(chunk('c\nd\n', 2));
    const flushed = sink.flush().catch((e: Error) => e);
    await scheduler.advance(1000);
    expect(((await flushed) as Error).message).to.equal(
      'http_push sink: http://receiver/push: 2 events were acknowledged since the flush began, but not the rest within 1 s of the flush; the data still held was dropped',
    );
  });

  it('a part stored counts as progress for the stall rule: the stall is timed from it, not from the write', async () => {
    const { scheduler, fake, sink, reports } = setup({
      name: 'broker',
      maxAge: 5000,
      flushTimeout: 10_000,
      retry: { maxAttempts: 3, initialBackoff: 12_000, maxBackoff: 12_000 },
    });
    // One broker stores its share at the first attempt (5 s); the other is down, its retries 6 s apart.
    fake.answerWith((_, attempt, stored) => {
      if (attempt === 1) stored({ size: 1, bytes: 2 });
      return retryable(503);
    });
    sink.write(chunk('a\nb\n', 2));
    await scheduler.advance(10_000);
    sink.write(chunk('c\n'));
    expect(
      reports.filter((r) => r.kind === 'failed'),
      'not stalled 10 s after the write',
    ).to.deep.equal([]);
    await scheduler.advance(5_000);
    sink.write(chunk('d\n'));
    const [dropped] = reports.filter((r) => r.kind === 'failed');
    expect((dropped as { error: Error }).error.message).to.match(/acknowledged nothing for 10 s/);
  });

  it('does not retry a refusal (a 4xx other than 408/429)', async () => {
    const { fake, sink, reports } = setup();
    const refusal = new SinkError('http_push', 'answered 400: check content_type');
    fake.answerWith(() => refusal);
    sink.write(chunk('0123456789abcdef\n'));
    await settle();
    expect(reports).to.deep.equal([{ kind: 'failed', size: 1, bytes: 17, error: refusal }]);
  });

  it('fails only the batch the transport cannot frame', async () => {
    const { fake, sink, reports } = setup();
    sink.write(chunk('unframable\n'));
    expect(await sink.flush().catch((e: Error) => e.message)).to.equal(
      'http_push sink: cannot build a request: cannot frame this',
    );
    sink.write(chunk('fine\n'));
    await sink.flush();
    expect(fake.sent).to.deep.equal(['fine\n']);
    expect(reports.map((r) => r.kind)).to.deep.equal(['failed', 'delivered']);
  });

  it('applies backpressure: with a stalled destination it holds at most max_buffered_bytes', async () => {
    const { fake, sink } = setup({ batchSize: 10, maxRequestBytes: 100, maxBufferedBytes: 300 });
    fake.answerWith(() => 'hang');
    let accepted = 0;
    let wait: void | Promise<void>;
    for (;;) {
      wait = sink.write(chunk(`${'x'.repeat(49)}\n`));
      accepted++;
      if (wait) break;
      await settle();
    }
    expect(accepted).to.equal(6); // 6 × 50 bytes = 300: the write that reaches the bound waits
    expect(await isSettled(wait)).to.equal(false);
    fake.answerWith(() => 'ok');
    fake.pending[0]!.resolve(); // the request in flight (the first chunk) is delivered: room again
    await wait;
    await sink.flush();
    expect(fake.sent.join('').length).to.equal(5 * 50); // the rest, besides the chunk that hung
  });

  it('flush sends what is buffered at once and resolves when it was delivered', async () => {
    const { fake, sink } = setup();
    sink.write(chunk('a\n'));
    const flushed = sink.flush();
    sink.write(chunk('b\n'));
    await flushed;
    expect(fake.sent).to.deep.equal(['a\n']);
  });

  it('close flushes every buffered byte, then releases the transport; later writes are refused', async () => {
    const { fake, sink } = setup();
    sink.write(chunk('a\n'));
    sink.write(chunk('b\n'));
    const closing = sink.close();
    expect(sink.close()).to.equal(closing);
    await closing;
    expect(fake.sent).to.deep.equal(['a\nb\n']);
    expect(fake.released).to.equal(true);
    expect(() => sink.write(chunk('c\n'))).to.throw(SinkError, /closed/);
  });

  it('a flush gives up what a stalled destination has not acknowledged after flush_timeout', async () => {
    const { scheduler, fake, sink, reports } = setup({ flushTimeout: 10_000 });
    fake.answerWith(() => 'hang');
    sink.write(chunk('a\n', 2));
    sink.write(chunk('b\n', 3));
    const flushed = sink.flush().catch((e: Error) => e);
    await scheduler.advance(9_999);
    expect(await isSettled(flushed)).to.equal(false);
    await scheduler.advance(1);
    const error = (await flushed) as Error;
    expect(error.message).to.equal(
      'http_push sink: http://receiver/push acknowledged nothing within 10 s of the flush; the data still held was dropped',
    );
    expect(reports).to.deep.equal([{ kind: 'failed', size: 5, bytes: 4, error }]);
    // The sink goes on with what is written next.
    fake.answerWith(() => 'ok');
    sink.write(chunk('c\n'));
    await sink.flush();
    expect(fake.sent).to.deep.equal(['c\n']);
  });

  it('a flush timeout counts every event it gives up: the request in flight and those buffered behind it', async () => {
    const scheduler = new ManualScheduler();
    const fake = fakeTransport();
    fake.answerWith(() => 'hang');
    const sink = batchingSink(fake.transport, {
      name: 'http_push',
      target: 'http://receiver/push',
      batchSize: 4096,
      maxAge: 100,
      retry: { maxAttempts: 3, initialBackoff: 100, maxBackoff: 1000 },
      flushTimeout: 10_000,
      scheduler,
    });
    // The first request goes out after 100 ms and never gets an answer; the other events wait behind it.
    const run = runEntry(metricEntry({ rate: 10, duration: 2000 }), { scheduler, createSink: () => sink });
    await scheduler.advance(12_000);
    await run.done;
    const stats = run.stats.snapshot(scheduler.now());
    expect(fake.pending).to.have.length(1);
    expect(stats.total_events).to.equal(20);
    expect(stats.dropped_events, 'every event given up is counted').to.equal(20);
    expect(stats.total_sink_failures).to.equal(2);
  });

  it('a flush timeout cuts a backoff wait short and names the last error', async () => {
    const { scheduler, fake, sink, reports } = setup({
      flushTimeout: 1000,
      retry: { maxAttempts: 10, initialBackoff: 60_000, maxBackoff: 60_000 },
    });
    fake.answerWith(() => retryable(503));
    sink.write(chunk('a\n'));
    const flushed = sink.flush().catch((e: Error) => e);
    await scheduler.advance(1000);
    expect(((await flushed) as Error).message).to.equal(
      'http_push sink: http://receiver/push acknowledged nothing within 1 s of the flush; the data still held was dropped (last error: answered 503)',
    );
    expect(reports.map((r) => r.kind)).to.deep.equal(['retrying', 'failed']);
  });

  it('a destination that acknowledges nothing for flush_timeout is a failure: new events are dropped until it answers again', async () => {
    const { scheduler, fake, sink, reports } = setup({ batchSize: 10, maxBufferedBytes: 100, flushTimeout: 10_000 });
    fake.answerWith(() => 'hang');
    let wait: void | Promise<void>;
    while (!(wait = sink.write(chunk(`${'x'.repeat(19)}\n`)))) await settle();
    await scheduler.advance(9_999);
    expect(await isSettled(wait)).to.equal(false);
    expect(reports).to.deep.equal([]);
    await scheduler.advance(1);
    expect(await isSettled(wait), 'the writer is not held back past the stall').to.equal(true);

    expect(sink.write(chunk('dropped\n', 2))).to.equal(undefined);
    expect(reports).to.have.length(1);
    expect(reports[0]).to.deep.include({ kind: 'failed', size: 2, bytes: 8 });
    expect((reports[0] as { error: Error }).error.message).to.equal(
      'http_push sink: http://receiver/push acknowledged nothing for 10 s (is the endpoint overloaded or stuck?): new events are dropped until it answers again',
    );
    expect(sink.write(chunk('dropped\n')), 'every event while stalled').to.equal(undefined);
    expect(reports.map((r) => r.kind)).to.deep.equal(['failed', 'failed']);

    fake.answerWith(() => 'ok');
    fake.pending[0]!.resolve(); // it answers again
    await settle();
    expect(sink.write(chunk('after\n'))).to.equal(undefined);
    await sink.flush();
    expect(fake.sent.join('')).to.not.contain('dropped');
    expect(fake.sent.join('')).to.match(/after\n$/);
  });

  it("a stall's message says the wait asked for while svc waits it, then that the attempt after it is out and unanswered", async () => {
    const { scheduler, fake, sink, reports } = setup({ batchSize: 1, flushTimeout: 10_000 });
    const HOUR = 3_600_000;
    const asked = new SinkError('http_push', 'answered 429', { retryable: true, retryAfter: 100 * HOUR });
    fake.answerWith((_, attempt) => (attempt === 1 ? asked : 'hang'));
    sink.write(chunk('a\n'));
    await settle();
    const stalled = async () => {
      sink.write(chunk('dropped\n'));
      return (reports.at(-1) as { error: Error }).error.message;
    };
    await scheduler.advance(10_000);
    expect(await stalled()).to.equal(
      'http_push sink: http://receiver/push acknowledged nothing for 10 s (last error: answered 429; it asked for a wait of 100h before the next attempt: svc waits 1h (its longest backoff) and sends nothing to it until then): new events are dropped until it answers again',
    );
    await scheduler.advance(HOUR - 10_000);
    expect(fake.pending, 'the attempt after the wait').to.have.length(1);
    expect(await stalled()).to.equal(
      'http_push sink: http://receiver/push acknowledged nothing for 10 s (last error: answered 429; it asked for a wait of 100h before the next attempt, which svc sent after 1h (its longest backoff) and has had no answer to since): new events are dropped until it answers again',
    );
  });

  it('the catch-up after a stall is bounded: the timer is held back at most flush_timeout and what falls due while stalled is dropped and counted', async () => {
    const scheduler = new ManualScheduler();
    const fake = fakeTransport();
    const shortestLine = 'up 1 0\n'.length; // the entry writes "up 1 <ms>\n" per event
    fake.answerWith(() => 'hang');
    const sink = batchingSink(fake.transport, {
      name: 'http_push',
      target: 'http://receiver/push',
      batchSize: 200,
      maxAge: 100,
      retry: { maxAttempts: 1, initialBackoff: 1, maxBackoff: 1 },
      maxBufferedBytes: 400,
      flushTimeout: 10_000,
      scheduler,
    });
    const run = runEntry(metricEntry({ rate: 100, duration: 40_000 }), { scheduler, createSink: () => sink });
    await scheduler.advance(30_000); // the destination hangs for 30 s
    fake.answerWith(() => 'ok');
    fake.pending.splice(0).forEach((request) => request.resolve());
    const sentBefore = fake.sent.join('').length;
    await scheduler.advance(1_000);
    const burst = fake.sent.join('').slice(sentBefore).split('\n').length - 1;
    // What went out in the second after the stall: the buffer (400 bytes) and one second at the entry's rate, not 30 s of backlog.
    expect(burst).to.be.at.most(Math.ceil(400 / shortestLine) + 100 + 1);
    await scheduler.advance(10_000);
    await run.done;
    const stats = run.stats.snapshot(scheduler.now());
    // Dropped from the stall's start (10 s, the flush timeout) until the destination answers (30 s): 20 s at 100/s.
    expect(stats.total_sink_failures, 'events dropped while stalled are failures').to.be.within(1_950, 2_050);
    expect(stats.last_sink_error).to.match(/acknowledged nothing for 10 s/);
  });
});
