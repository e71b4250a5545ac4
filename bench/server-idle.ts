/**
 * Idle memory of `bin/svc-server` (issue 15): its resident set (VmRSS of /proc/PID/status) 1.5 s
 * after it printed its start-up line, with no scenario posted, as the median of several starts;
 * then the same after 20 `GET /health`, as a probed server idles. Runs the built server, as
 * bench/server-load.ts does (`npm run build` after changing lib/). Goal: idle RSS ≤ 60 MiB.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from '../spec/support/percentile.js';
import { startServerProcess } from '../spec/support/server-process.js';

const SETTLE_MS = 1500;
const PROBES = 20;

function rssMiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

/** Idle RSS, then RSS after {@link PROBES} health probes, of one fresh server. */
async function oneStart(): Promise<{ idle: number; probed: number }> {
  const server = await startServerProcess({ quiet: true });
  try {
    await sleep(SETTLE_MS);
    const idle = rssMiB(server.child.pid!);
    for (let i = 0; i < PROBES; i++) await (await fetch(`${server.base}/health`)).arrayBuffer();
    await sleep(SETTLE_MS);
    return { idle, probed: rssMiB(server.child.pid!) };
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

export async function serverIdleBench(starts = 5): Promise<void> {
  const runs = [];
  for (let i = 0; i < starts; i++) runs.push(await oneStart());
  const line = (values: number[]) =>
    `median ${percentile(values, 0.5).toFixed(1)} MiB (min ${Math.min(...values).toFixed(1)}, max ${Math.max(...values).toFixed(1)})`;
  console.log(
    `svc-server idle RSS, ${starts} starts, ${SETTLE_MS / 1000} s after its start-up line, no scenario (goal: <= 60 MiB)`,
  );
  console.log(`  idle                ${line(runs.map((run) => run.idle))}`);
  console.log(`  after ${PROBES} /health  ${line(runs.map((run) => run.probed))}`);
}
