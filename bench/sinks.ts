/**
 * `node --import tsx bench/sinks.ts`: events/s of one metric entry at an unbounded rate into each
 * network sink, against minimal local receivers in this process (they count bytes and answer at
 * once, so the figure is the sink's own cost plus loopback I/O). Prints figures; asserts nothing.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { runEntry } from '../lib/runtime/run-entry.js';
import type { SinkConfig } from '../lib/config/types.js';
import { benchGauge } from './entry.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

const entry = (sink: SinkConfig) =>
  benchGauge({ name: 'bench_sink', sink, encoder: { type: 'metrics_text' }, seconds: SECONDS, series: 10 });

async function measure(name: string, sink: SinkConfig, received: () => number): Promise<void> {
  const started = performance.now();
  const run = runEntry(entry(sink));
  const outcome = await run.done;
  if (outcome.error) throw outcome.error;
  const seconds = (performance.now() - started) / 1000;
  const { totalEvents, bytes } = run.stats;
  const perSecond = Math.round(totalEvents / seconds);
  const mib = (bytes / seconds / 2 ** 20).toFixed(1);
  console.log(
    `${name.padEnd(10)} ${perSecond.toLocaleString('en').padStart(11)} events/s  ${mib.padStart(6)} MiB/s  received ${received().toLocaleString('en')} B of ${bytes.toLocaleString('en')} B`,
  );
}

let tcpBytes = 0;
const tcp = createTcpServer((socket) => socket.on('data', (part) => (tcpBytes += part.length)));
await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));

let udpBytes = 0;
const udp = createSocket('udp4');
udp.on('message', (message) => (udpBytes += message.length + 1));
await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));

let httpBytes = 0;
const http = createHttpServer((req, res) => {
  req.on('data', (part: Buffer) => (httpBytes += part.length));
  req.on('end', () => res.writeHead(204).end());
});
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const httpUrl = `http://127.0.0.1:${(http.address() as { port: number }).port}`;

console.log(`each sink for ${SECONDS} s at an unbounded rate, 10 label sets:`);
await measure('tcp', { type: 'tcp', address: `127.0.0.1:${(tcp.address() as { port: number }).port}` }, () => tcpBytes);
await measure('udp', { type: 'udp', address: `127.0.0.1:${udp.address().port}` }, () => udpBytes);
await measure('http_push', { type: 'http_push', url: `${httpUrl}/import` }, () => httpBytes);
httpBytes = 0;
await measure('logstore', { type: 'logstore', url: httpUrl }, () => httpBytes);

tcp.close();
udp.close();
http.close();
