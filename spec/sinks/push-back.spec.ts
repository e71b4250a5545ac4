import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import type { Delivery } from '../../operators/deliver.js';
import type { Entry } from '../../lib/config/types.js';
import { runEntry, type EntryRun } from '../../lib/runtime/run-entry.js';
import { startHttpReceiver, type Answer, type HttpReceiver } from '../support/backends/http-receiver.js';
import { startOtlpReceiver, type OtlpAnswer, type OtlpReceiver } from '../support/backends/otlp-receiver.js';
import { waitFor } from '../support/backends/ports.js';
import { ManualScheduler } from '../support/clock.js';
import { metricEntry } from '../support/entries.js';
import { lines, scenarioDir, STOPPED, svc, upScenario } from '../support/cli.js';

/**
 * Receivers that push back (docs/reliability.md): every HTTP sink and otlp_grpc against a receiver that answers
 * 429/503 with a wait, 503 without one, or a refusal. The sink's timers run on a {@link ManualScheduler}: a
 * wait is proven by the next attempt not arriving one virtual millisecond before it ends, and arriving at it.
 */
describe('sinks against receivers that push back', function () {
  this.timeout(20_000);

  /** One sink under test: its entry against the receiver, how many attempts arrived, how to answer them. */
  interface Subject {
    entry(retry?: Record<string, unknown>): Entry;
    attempts(): number;
    /** Answers attempt n (1-based): a wait (ms, or an HTTP date), a refusal, acceptance, or never (HTTP only). */
    answer(next: (n: number) => 'accept' | 'stall' | { wait?: number | Date; status?: number; body?: string }): void;
  }

  /** The entry (one tick, then a flush) run with its sink's timers on `clock`, every delivery recorded. */
  function start(entry: Entry, clock: ManualScheduler): { run: EntryRun; deliveries: Delivery[] } {
    const deliveries: Delivery[] = [];
    const run = runEntry(entry, { sinkScheduler: clock, hooks: { onDelivery: (d) => deliveries.push(d) } });
    return { run, deliveries };
  }
  const tick = { rate: 10, duration: 100 };
  const retries = (deliveries: Delivery[]) =>
    deliveries.filter((d): d is Extract<Delivery, { kind: 'retrying' }> => d.kind === 'retrying');

  const HTTP_KINDS = {
    http_push: (url: string) => ({ sink: { type: 'http_push' as const, url } }),
    logstore: (url: string) => ({ sink: { type: 'logstore' as const, url } }),
    remote_write: (url: string) => ({
      encoder: { type: 'remote_write' as const },
      sink: { type: 'remote_write', url },
    }),
    otlp_http: (url: string) => ({
      encoder: { type: 'otlp' as const },
      sink: { type: 'otlp_http', url, signal_type: 'metrics' },
    }),
  };

  const subjects: Record<string, () => Promise<Subject & { stop(): Promise<void> }>> = {
    ...Object.fromEntries(
      Object.entries(HTTP_KINDS).map(([kind, fields]) => [
        kind,
        async () => {
          const receiver: HttpReceiver = await startHttpReceiver();
          return {
            entry: (retry) =>
              metricEntry({ ...tick, ...fields(receiver.url), sink: { ...fields(receiver.url).sink, retry } } as never),
            attempts: () => receiver.requests.length,
            answer(next) {
              receiver.answer((): Answer => {
                const said = next(receiver.requests.length);
                if (said === 'accept') return { status: 204 };
                if (said === 'stall') return 'stall';
                const { wait, status = 503, body } = said;
                const retryAfter = wait instanceof Date ? wait.toUTCString() : wait && String(wait / 1000);
                return { status, body, headers: retryAfter ? { 'Retry-After': retryAfter } : {} };
              });
            },
            stop: () => receiver.stop(),
          };
        },
      ]),
    ),
    otlp_grpc: async () => {
      const receiver: OtlpReceiver = await startOtlpReceiver();
      const codes: Record<number, grpc.status> = {
        429: grpc.status.RESOURCE_EXHAUSTED,
        503: grpc.status.UNAVAILABLE,
        400: grpc.status.INVALID_ARGUMENT,
        401: grpc.status.UNAUTHENTICATED,
        403: grpc.status.PERMISSION_DENIED,
      };
      return {
        entry: (retry) =>
          metricEntry({
            ...tick,
            encoder: { type: 'otlp' },
            sink: { type: 'otlp_grpc', endpoint: receiver.grpcAddress, signal_type: 'metrics', retry },
          } as never),
        attempts: () => receiver.calls,
        answer(next) {
          receiver.answer((): OtlpAnswer => {
            const said = next(receiver.calls);
            if (said === 'accept') return { accept: true };
            if (said === 'stall') throw new Error('the OTLP receiver answers every call');
            const { wait, status = 503, body } = said;
            if (wait instanceof Date) throw new Error('gRPC has no dates: RetryInfo is a duration');
            return { grpc: codes[status]!, details: body, retryAfterMs: wait };
          });
        },
        stop: () => receiver.stop(),
      };
    },
  };

  for (const [kind, open] of Object.entries(subjects)) {
    describe(kind, () => {
      let subject: Awaited<ReturnType<typeof open>>;
      let clock: ManualScheduler;
      beforeEach(async () => {
        subject = await open();
        clock = new ManualScheduler(Date.now());
      });
      afterEach(() => subject.stop());

      /** Steps virtual time to 1 ms short of `ms`: no new attempt; then to it: the next attempt arrives. */
      const waitsExactly = async (ms: number, attempts: number) => {
        if (ms > 0) {
          await clock.advance(ms - 1);
          expect(subject.attempts(), `an attempt before the ${ms} ms wait ended`).to.equal(attempts);
        }
        await clock.advance(Math.min(ms, 1));
        await waitFor(`attempt ${attempts + 1}`, () => (subject.attempts() > attempts ? true : undefined));
      };

      const busy = kind === 'otlp_grpc' ? 'RESOURCE_EXHAUSTED' : '429';
      it(`${busy} asking for 7 s (${kind === 'otlp_grpc' ? 'RetryInfo' : 'Retry-After: 7'}) waits exactly that, then delivers`, async () => {
        subject.answer((n) => (n === 1 ? { wait: 7000, status: 429, body: 'slow down' } : 'accept'));
        const { run, deliveries } = start(subject.entry(), clock);
        await waitFor('the first attempt refused', () => (retries(deliveries).length > 0 ? true : undefined));
        expect(retries(deliveries)[0]!.delay).to.equal(7000);
        await waitsExactly(7000, 1);
        expect(await run.done).to.deep.equal({});
        expect(run.stats.snapshot(clock.now())).to.include({ sink_retries: 1, total_sink_failures: 0 });
      });

      // Asked to come back in an hour (or more: svc waits its longest backoff), the sink sends nothing meanwhile: its
      // give-up and stall messages say so, where they said only the 429 and "until it answers again".
      for (const [asked, named, said] of [
        [3_600_000, '1 h', 'it asked for a wait of 1h before the next attempt, and svc sends nothing to it until then'],
        [
          360_000_000,
          '100 h',
          'it asked for a wait of 100h before the next attempt: svc waits 1h (its longest backoff) and sends nothing to it until then',
        ],
        // Read as at most 2^31 s (RFC 9111's bound of a delta-seconds), by either protocol: not 10^15 hours.
        [
          2 ** 62 * 1000,
          '2^62 s',
          'it asked for a wait of 596523h14m8s before the next attempt: svc waits 1h (its longest backoff) and sends nothing to it until then',
        ],
      ] as const)
        it(`${busy} asking for ${named}: the give-up 10 s after the flush says the wait asked for`, async () => {
          subject.answer(() => ({ wait: asked, status: 429, body: 'slow down' }));
          const { run, deliveries } = start(subject.entry(), clock);
          await waitFor('the first attempt refused', () => (retries(deliveries).length > 0 ? true : undefined));
          await clock.advance(10_000);
          await run.done;
          expect(subject.attempts()).to.equal(1);
          const { last_sink_error } = run.stats.snapshot(clock.now());
          expect(last_sink_error).to.include('within 10 s of the flush').and.include('slow down').and.include(said);
        });

      if (kind !== 'otlp_grpc')
        it('the attempt sent once the wait asked for ended, never answered: the give-up says it waits for its answer, not that svc sends nothing', async () => {
          subject.answer((n) => (n === 1 ? { wait: 2000, status: 429, body: 'slow down' } : 'stall'));
          const { run, deliveries } = start(subject.entry(), clock);
          await waitFor('the first attempt refused', () => (retries(deliveries).length > 0 ? true : undefined));
          await waitsExactly(2000, 1);
          await clock.advance(8000);
          await run.done;
          const { last_sink_error } = run.stats.snapshot(clock.now());
          expect(last_sink_error)
            .to.include('within 10 s of the flush')
            .and.include('slow down')
            .and.include(
              'it asked for a wait of 2s before the next attempt, which svc sent then and has had no answer to since',
            )
            .and.not.include('sends nothing');
        });

      if (kind !== 'otlp_grpc')
        it('503 with Retry-After as an HTTP date waits until that date, then delivers', async () => {
          const date = new Date(Date.now() + 8000);
          subject.answer((n) => (n === 1 ? { wait: date, status: 503 } : 'accept'));
          const { run, deliveries } = start(subject.entry(), clock);
          await waitFor('the first attempt refused', () => (retries(deliveries).length > 0 ? true : undefined));
          // An HTTP date has whole seconds: the wait is up to the date, less the time the answer took.
          const { delay } = retries(deliveries)[0]!;
          expect(delay).to.be.within(6000, 8000);
          await waitsExactly(delay, 1);
          expect(await run.done).to.deep.equal({});
        });

      it(`${kind === 'otlp_grpc' ? 'UNAVAILABLE' : '503'} without a wait: capped exponential backoff with jitter, then given up, counted, the error kept`, async () => {
        subject.answer(() => ({ status: 503, body: 'overloaded\nat line 2' }));
        const retry = { max_attempts: 5, initial_backoff: 1000, max_backoff: 3000 };
        const { run, deliveries } = start(subject.entry(retry), clock);
        for (let n = 1; n < 5; n++) {
          await waitFor(`retry ${n}`, () => (retries(deliveries).length >= n ? true : undefined));
          const { delay, attempt } = retries(deliveries)[n - 1]!;
          expect(attempt).to.equal(n);
          // Full jitter under a ceiling that doubles from initial_backoff and stops at max_backoff.
          expect(delay)
            .to.be.at.least(0)
            .and.below(Math.min(3000, 1000 * 2 ** (n - 1)));
          await waitsExactly(delay, n);
        }
        await run.done;
        const stats = run.stats.snapshot(clock.now());
        expect(subject.attempts()).to.equal(5);
        expect(stats).to.include({ sink_retries: 4, total_sink_failures: 1 });
        expect(stats.last_sink_error).to.include('overloaded').and.include('(gave up after 5 attempts)');
        expect(stats.last_sink_error).to.not.include('line 2');
      });

      const refusals = kind === 'otlp_grpc' ? [400, 401, 403] : [400, 401, 404, 413];
      for (const status of refusals)
        it(`${kind === 'otlp_grpc' ? `${status} as gRPC` : status}: not retried; the batch is dropped, counted, the answer's first line in last_sink_error`, async () => {
          subject.answer(() => ({ status, body: 'bad data in series 3\ngoroutine 1 [running]:' }));
          const { run, deliveries } = start(subject.entry(), clock);
          await run.done;
          expect(subject.attempts()).to.equal(1);
          expect(retries(deliveries)).to.have.length(0);
          const failed = deliveries.filter((d) => d.kind === 'failed');
          expect(failed.map((d) => (d as { size: number }).size)).to.deep.equal([1]);
          const stats = run.stats.snapshot(clock.now());
          expect(stats.total_sink_failures).to.equal(1);
          expect(stats.last_sink_error).to.include(': "bad data in series 3"').and.not.include('goroutine');
        });
    });
  }
});

/**
 * OTLP partial success (docs/reliability.md): a collector that takes a request but refuses some of its data
 * points. The refused ones are counted (`receiver_rejected`, and as sink failures), each report says how many
 * requests in a row were refused, and the run says so once per streak, not once per request.
 */
describe('OTLP partial success', function () {
  this.timeout(30_000);
  let receiver: OtlpReceiver;
  beforeEach(async () => (receiver = await startOtlpReceiver()));
  afterEach(() => receiver.stop());
  const { scenario } = scenarioDir('svc-partial-');

  for (const via of ['grpc', 'http'] as const) {
    const sink = () =>
      via === 'grpc'
        ? { type: 'otlp_grpc', endpoint: receiver.grpcAddress, signal_type: 'metrics', batch_size: 1 }
        : { type: 'otlp_http', url: receiver.httpUrl, signal_type: 'metrics', batch_size: 1 };

    it(`otlp_${via}: refused points counted in receiver_rejected; the reports number the requests of a streak, a whole request ends it`, async () => {
      // Requests 1-3 refused, 4 taken whole, 5 on refused: two streaks.
      receiver.answer(() =>
        receiver.calls === 4 ? { accept: true } : { accept: true, rejected: 1, message: 'value out of range' },
      );
      const refusals: number[] = [];
      const run = runEntry(metricEntry({ rate: 10, duration: 800, encoder: { type: 'otlp' }, sink: sink() } as never), {
        hooks: { onDelivery: (d) => d.kind === 'failed' && refusals.push(d.refusal ?? 0) },
      });
      await run.done;
      expect(receiver.calls).to.equal(8);
      expect(refusals).to.deep.equal([1, 2, 3, 1, 2, 3, 4]);
      const stats = run.stats.snapshot(Date.now());
      expect(stats).to.include({ receiver_rejected: 7, total_sink_failures: 7 });
      expect(stats.last_sink_error).to.equal(
        `otlp_${via} sink: the collector refused 1 of 1 data points: "value out of range"`,
      );
    });
  }

  it('bin/svc says a streak once, however many requests it lasts, and shows the count on its STOPPED line', async () => {
    receiver.answer(() => ({ accept: true, rejected: 1, message: 'value out of range' }));
    const file = scenario(
      'partial.yaml',
      upScenario(`{ type: otlp_http, url: "${receiver.httpUrl}", batch_size: 1 }`, [
        'rate: 20',
        'duration: 1500ms',
        'encoder: { type: otlp }',
      ]),
    );
    const result = await svc(['run', file]);
    expect(receiver.calls).to.equal(30);
    const said = lines(result.stderr).filter((line) => line.includes('refuses part of the data'));
    expect(said).to.deep.equal([
      '[warn] up: otlp_http sink: the collector refused 1 of 1 data points: "value out of range" (the receiver refuses part of the data: counted in rejected, said again once it took a whole request)',
    ]);
    expect(lines(result.stderr).find((line) => STOPPED.test(line))).to.match(/ \| rejected: 30$/);
    // Everything was refused: nothing was delivered, and the run says so.
    expect(result.code).to.equal(1);
  });

  it('with --workers 2 the counts are summed over the workers, and the streaks are said once', async () => {
    receiver.answer(() => ({ accept: true, rejected: 1, message: 'value out of range' }));
    const file = scenario(
      'partial-workers.yaml',
      upScenario(`{ type: otlp_http, url: "${receiver.httpUrl}", batch_size: 1 }`, [
        'rate: 20',
        'duration: 1500ms',
        'encoder: { type: otlp }',
        'dynamic_labels: [{ key: pod, cardinality: 2 }]',
      ]),
    );
    const result = await svc(['run', file, '--workers', '2']);
    expect(receiver.calls).to.equal(30);
    expect(lines(result.stderr).filter((line) => line.includes('refuses part of the data'))).to.have.length(1);
    expect(lines(result.stderr).find((line) => STOPPED.test(line))).to.match(/ \| rejected: 30$/);
  });
});
