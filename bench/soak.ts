/**
 * The soak bench (issue 28; `npm run bench -- soak [--minutes N]`, 30 minutes by default): one svc-server
 * process (`node --expose-gc`, bench/soak-server.ts) runs SCENARIOS metric entries at RATE events/s each,
 * 100,000 events/s in all, into a TCP receiver here that counts the lines it reads. Every SAMPLE_SECONDS the
 * server collects its garbage fully and reports its heap; the bench prints the samples and the least-squares
 * slope of the heap after the first sample (warm-up excluded), in MiB per hour. At the end it deletes every
 * scenario (each flushes its sink) and compares the servers' `total_events` with the lines received.
 */
import { fork } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { waitFor } from '../spec/support/backends/ports.js';

const SCENARIOS = 100;
const RATE = 1_000;
const SAMPLE_SECONDS = 10;

/** A TCP server counting newline-terminated records, whatever their connection. */
async function countingReceiver() {
  let lines = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (chunk: Buffer) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    lines: () => lines,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

export async function soakBench(minutes = 30): Promise<void> {
  const receiver = await countingReceiver();
  const child = fork(new URL('./soak-server.js', import.meta.url).pathname, ['--port', '0'], {
    execArgv: ['--expose-gc'],
    env: { ...process.env, SVC_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  const heapAfterGc = () =>
    new Promise<number>((resolve) => {
      child.once('message', (message) => resolve((message as { heapUsed: number }).heapUsed));
      child.send('gc');
    });
  try {
    const port = await waitFor('the start-up line', () => /"port":(\d+)/.exec(out)?.[1], 20_000);
    const base = `http://127.0.0.1:${port}`;
    const scenarios = Array.from({ length: SCENARIOS }, (_, i) => ({
      id: `soak_${i}`,
      signal_type: 'metrics',
      name: 'svc_soak_total',
      rate: RATE,
      generator: { type: 'step', start: 0, step_size: 1 },
      labels: { scenario: String(i) },
      sink: { type: 'tcp', address: receiver.address },
    }));
    const res = await fetch(`${base}/scenarios`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ version: 2, kind: 'runnable', scenarios }),
    });
    if (res.status !== 201) throw new Error(`POST /scenarios answered ${res.status}: ${await res.text()}`);
    const ids = ((await res.json()) as { scenarios: { id: string }[] }).scenarios.map((s) => s.id);
    console.log(
      `soak: ${SCENARIOS} scenarios x ${RATE.toLocaleString('en')}/s (${(SCENARIOS * RATE).toLocaleString('en')} events/s) into a counting TCP receiver, ${minutes} min, heap after a full GC every ${SAMPLE_SECONDS} s`,
    );

    const started = performance.now();
    const samples: { x: number; y: number }[] = [];
    while (performance.now() - started < minutes * 60_000) {
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_SECONDS * 1000));
      const minutesIn = (performance.now() - started) / 60_000;
      const heap = (await heapAfterGc()) / 2 ** 20;
      samples.push({ x: minutesIn, y: heap });
      console.log(
        `  ${minutesIn.toFixed(1).padStart(5)} min  heap ${heap.toFixed(1)} MiB  received ${receiver.lines().toLocaleString('en')}`,
      );
    }

    let total = 0;
    for (const id of ids) {
      const deleted = (await (await fetch(`${base}/scenarios/${id}`, { method: 'DELETE' })).json()) as {
        total_events: number;
      };
      total += deleted.total_events;
    }
    // Deleting flushed every sink; the last bytes may still be in the receiver's socket.
    await waitFor(
      'the receiver to count every flushed line',
      () => (receiver.lines() >= total ? true : undefined),
      10_000,
    ).catch(() => undefined);
    const seconds = (performance.now() - started) / 1000;
    const warm = samples.slice(1);
    console.log(
      `  heap slope ${(slope(warm) * 60).toFixed(2)} MiB/hour after the first sample (first ${samples[0]?.y.toFixed(1)} MiB, last ${samples.at(-1)?.y.toFixed(1)} MiB, ${samples.length} samples)`,
    );
    console.log(
      `  events: server total_events ${total.toLocaleString('en')}, receiver counted ${receiver.lines().toLocaleString('en')} (${receiver.lines() === total ? 'equal' : 'DIFFERENT'}); ${Math.round(total / seconds).toLocaleString('en')} events/s achieved`,
    );
  } finally {
    child.kill('SIGTERM');
    receiver.close();
  }
}
