import { expect } from 'chai';
import type { Sink } from '../../operators/deliver.js';
import type { EncodedBatch } from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';
import { metricsText } from '../../lib/encoders/metrics-text.js';
import { otlpMetrics } from '../../lib/encoders/otlp.js';
import { httpPushSink } from '../../lib/sinks/http-push.js';
import { otlpGrpcSink } from '../../lib/sinks/otlp-grpc.js';
import { tcpSink } from '../../lib/sinks/tcp.js';
import { sampleBatch } from '../support/batches.js';
import { settle } from '../support/clock.js';
import { startHostileReceiver, type Hostility, type HostileReceiver } from '../support/backends/hostile.js';

const MiB = 1 << 20;
/** How long each case writes as fast as the sink lets it; the bench (bench/hostile-receivers.ts) runs 60 s. */
const WRITING_MS = 1500;
/** Short, so that the stall rule (a destination that settles nothing for this long) engages within the case. */
const FLUSH_TIMEOUT = 500;

/** 1,000 events of a labelled gauge, about 60 KB of text. */
const batch = sampleBatch({
  values: Array.from({ length: 1000 }, (_, i) => i),
  series: Array.from({ length: 1000 }, (_, i) => seriesOf({ pod: `pod-${i % 50}`, zone: 'eu-west-1a' })),
});

/**
 * Each sink against receivers that take its connection and then do not play along, with its documented bound
 * on the bytes it holds (docs/sinks.md "Stalls": 4 MiB for the batching sinks, 8 MB for the OTLP ones, 1 MiB for tcp).
 */
const CASES: {
  sink: string;
  hostility: Hostility;
  bound: number;
  open: (receiver: HostileReceiver) => { sink: Sink; chunk: EncodedBatch };
}[] = [
  ...(['silent', 'trickle'] as const).map((hostility) => ({
    sink: 'http_push',
    hostility,
    bound: 4 * MiB,
    open: (receiver: HostileReceiver) => ({
      sink: httpPushSink({ url: `http://${receiver.address}/ingest`, flushTimeout: FLUSH_TIMEOUT }),
      chunk: metricsText({ name: 'load' }).encode(batch),
    }),
  })),
  {
    sink: 'otlp_grpc',
    hostility: 'silent',
    // docs/sinks.md: 8 MB buffered and in flight.
    bound: 8_000_000,
    open: (receiver) => ({
      sink: otlpGrpcSink({ endpoint: receiver.address, signal: 'metrics', flushTimeout: FLUSH_TIMEOUT }),
      chunk: otlpMetrics({ name: 'load' }).encode(batch),
    }),
  },
  ...(['stuck', 'sipping'] as const).map((hostility) => ({
    sink: 'tcp',
    hostility,
    bound: MiB,
    open: (receiver: HostileReceiver) => ({
      sink: tcpSink({ address: receiver.address, flushTimeout: FLUSH_TIMEOUT }),
      chunk: metricsText({ name: 'load' }).encode(batch),
    }),
  })),
];

/**
 * Memory bounded whatever the receiver does (docs/reliability.md): a sink written to as fast as it lets the
 * writer go, for {@link WRITING_MS}, holds at most its bound (what was written and not yet reported delivered
 * or failed); backpressure holds the writer back, the stall rule then drops and counts; at the end every byte is
 * accounted for.
 */
describe('sinks against receivers that never answer or answer one byte a second', function () {
  this.timeout(20_000);
  for (const { sink: kind, hostility, bound, open } of CASES)
    it(`${kind}, receiver ${hostility}: held bytes stay within ${(bound / MiB).toFixed(1)} MiB, backpressure then counted drops`, async () => {
      const receiver = await startHostileReceiver(hostility);
      try {
        const { sink, chunk } = open(receiver);
        // Counted in events, which every report carries (a chunk is 1,000 of them, its bytes shared alike).
        let held = 0;
        let most = 0;
        let failed = 0;
        sink.reports!.subscribe((report) => {
          if (report.kind === 'delivered' || report.kind === 'failed') held -= report.size;
          if (report.kind === 'failed') failed += report.size;
        });
        let written = 0;
        let heldBack = false;
        const deadline = Date.now() + WRITING_MS;
        const end = new Promise<void>((resolve) => setTimeout(resolve, WRITING_MS).unref());
        while (Date.now() < deadline) {
          held += chunk.size;
          written += chunk.size;
          const wait = sink.write(chunk);
          most = Math.max(most, held);
          if (wait) {
            heldBack = true;
            await Promise.race([wait, end]);
          } else await settle();
        }
        await sink.close().catch(() => undefined);
        const bytesPerEvent = chunk.bytes / chunk.size;
        expect(heldBack, 'backpressure held the writer back').to.equal(true);
        expect(most * bytesPerEvent).to.be.at.most(bound + chunk.bytes);
        // Far more was offered than the bound: the rest was dropped and counted, never buffered.
        expect(written * bytesPerEvent).to.be.greaterThan(4 * bound);
        expect(failed).to.be.greaterThan(written / 2);
        expect(held, 'every event reported delivered or failed').to.equal(0);
      } finally {
        await receiver.stop();
      }
    });
});
