/**
 * Memory against hostile receivers (issue 28, docs/reliability.md): `bin/svc run` at 100,000 events/s for
 * {@link SECONDS} s (`BENCH_HOSTILE_SECONDS`, default 60) into a receiver that accepts the connection and then
 * never answers, answers one byte a second, never reads or reads one byte a second; beside it the same run
 * into a receiver that answers at once. Reports the process's peak resident set (VmHWM of /proc/PID/status,
 * read every second until it exits), the events it counted and the bytes the receiver read. Runs the built
 * CLI (`npm run build` after changing lib/). Prints figures; asserts nothing (spec/sinks/hostile-receivers.spec.ts
 * asserts the bound on what a sink holds). Alone: `node --import tsx bench/hostile-receivers.ts [seconds]`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startHostileReceiver, type Hostility } from '../spec/support/backends/hostile.js';

const SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS ?? 60);
const RATE = 100_000;

/** The sink (YAML flow text) and encoder of each case, for a receiver at `address`. */
const CASES: { name: string; hostility: Hostility | 'answers'; sink: (address: string) => string; encoder?: string }[] =
  [
    {
      name: 'http_push, answers 204 at once',
      hostility: 'answers',
      sink: (a) => `{ type: http_push, url: "http://${a}/" }`,
    },
    { name: 'http_push, never answers', hostility: 'silent', sink: (a) => `{ type: http_push, url: "http://${a}/" }` },
    {
      name: 'http_push, one byte a second',
      hostility: 'trickle',
      sink: (a) => `{ type: http_push, url: "http://${a}/" }`,
    },
    {
      name: 'otlp_grpc, never answers',
      hostility: 'silent',
      sink: (a) => `{ type: otlp_grpc, endpoint: "${a}" }`,
      encoder: '{ type: otlp }',
    },
    { name: 'tcp, never reads', hostility: 'stuck', sink: (a) => `{ type: tcp, address: "${a}" }` },
    { name: 'tcp, reads one byte a second', hostility: 'sipping', sink: (a) => `{ type: tcp, address: "${a}" }` },
  ];

function status(pid: number): { hwm: number; rss: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1]);
    return { hwm: kib('VmHWM') / 1024, rss: kib('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

/** A receiver that answers every request at once, as the baseline. */
async function answering(): Promise<{ address: string; received: () => number; stop: () => Promise<void> }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.on('data', (part: Buffer) => (received += part.length));
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as { port: number }).port}`,
    received: () => received,
    stop: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function oneCase(dir: string, { name, hostility, sink, encoder }: (typeof CASES)[number], seconds: number) {
  const receiver = hostility === 'answers' ? await answering() : await startHostileReceiver(hostility);
  const file = join(dir, 'hostile.yaml');
  writeFileSync(
    file,
    [
      'version: 2',
      'kind: runnable',
      'scenarios:',
      '  - signal_type: metrics',
      '    name: load',
      `    rate: ${RATE}`,
      `    duration: ${seconds}s`,
      '    generator: { type: step, start: 0, step_size: 1 }',
      '    dynamic_labels: [{ key: pod, cardinality: 50 }]',
      ...(encoder ? [`    encoder: ${encoder}`] : []),
      `    sink: ${sink(receiver.address)}`,
      '',
    ].join('\n'),
  );
  const child = spawn('bin/svc', ['run', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (part: string) => (stderr = (stderr + part).slice(-20_000)));
  let peak = 0;
  let last = 0;
  const sampler = setInterval(() => {
    const now = status(child.pid!);
    if (now) [peak, last] = [Math.max(peak, now.hwm), now.rss];
  }, 1000);
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(sampler);
  const took = (Date.now() - started) / 1000;
  const events = /STOPPED.*\| events: (\d+)/.exec(stderr)?.[1] ?? '?';
  const read = receiver.received();
  await receiver.stop();
  console.log(
    `  ${name.padEnd(32)} peak RSS ${peak.toFixed(0).padStart(4)} MiB (RSS ${last.toFixed(0)} MiB at the last reading)` +
      `  events ${Number(events).toLocaleString('en-US').padStart(11)}  receiver read ${(read / 2 ** 20).toFixed(1)} MiB` +
      `  exit ${code} after ${took.toFixed(0)} s`,
  );
}

export async function hostileReceiversBench(seconds = SECONDS): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-hostile-'));
  console.log(
    `svc run at ${RATE.toLocaleString('en-US')} events/s for ${seconds} s into hostile receivers (peak RSS: VmHWM)`,
  );
  try {
    for (const one of CASES) await oneCase(dir, one, seconds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  await hostileReceiversBench(Number(process.argv[2] ?? SECONDS));
