/**
 * `node --import tsx bench/server-load.ts` (after `npm run build`): memory and latency of
 * `bin/svc-server` under many concurrent scenarios. It starts the server on a free port, posts
 * SCENARIOS metric entries at RATE events/s each (a few static labels and a small dynamic label,
 * `stdout` sink: the server's stdout is read and discarded here), scrapes `/scenarios/metrics`
 * every SCRAPE_SECONDS like a Prometheus would, and for SECONDS samples every SAMPLE_MS the
 * server's RSS (/proc/PID/status) and the latency of `GET /health`, from its start to its end;
 * latency is reported apart for the start-up (posting the scenarios) and for the run. Prints
 * figures; asserts nothing. Goal (issue 9): RSS under 256 MiB and /health p99 under 50 ms at
 * 1,000 × 10/s for 150 s.
 *
 * HEAP_MB=N runs the server with `--max-old-space-size=N`, the heap Node sizes for itself in a
 * container with an N MiB memory limit (it reads the cgroup limit); unset, the heap is sized from
 * this machine's memory and V8 lets garbage pile up longer before collecting it.
 *
 *   SCENARIOS=1000 RATE=10 SECONDS=150 [HEAP_MB=256] node --import tsx bench/server-load.ts
 */
import { readFileSync } from 'node:fs';
import { percentile } from '../spec/support/percentile.js';
import { startServerProcess } from '../spec/support/server-process.js';

const SCENARIOS = Number(process.env.SCENARIOS ?? 1000);
const RATE = Number(process.env.RATE ?? 10);
const SECONDS = Number(process.env.SECONDS ?? 150);
const SAMPLE_MS = Number(process.env.SAMPLE_MS ?? 100);
const SCRAPE_SECONDS = Number(process.env.SCRAPE_SECONDS ?? 15);
const HEAP_MB = process.env.HEAP_MB;
/** Entries per POST: one file each (a body stays far below the 1 MiB limit). */
const PER_POST = 100;

const server = await startServerProcess({
  nodeFlags: HEAP_MB ? [`--max-old-space-size=${HEAP_MB}`] : [],
  env: { SVC_LOG_LEVEL: 'warn' },
  quiet: true,
});
const { base } = server;

function rssMiB(): number {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1];
  return Number(kib) / 1024;
}

const rss: number[] = [];
/** /health latencies while the scenarios are posted, then while they run. */
const health = { startUp: [] as number[], run: [] as number[] };
let phase: keyof typeof health = 'startUp';
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const started = performance.now();
    rss.push(rssMiB());
    const res = await fetch(`${base}/health`);
    await res.arrayBuffer();
    health[phase].push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, SAMPLE_MS - (performance.now() - started))));
  }
})();

function entry(i: number) {
  return {
    id: `load_${i}`,
    signal_type: 'metrics',
    name: 'svc_bench_requests_total',
    rate: RATE,
    generator: { type: 'step', start: 0, step_size: 1 },
    labels: { service: `service-${i % 50}`, region: ['eu-west', 'us-east', 'ap-south'][i % 3]!, scenario: String(i) },
    dynamic_labels: [{ key: 'pod', cardinality: 3 }],
    sink: { type: 'stdout' },
  };
}

for (let first = 0; first < SCENARIOS; first += PER_POST) {
  const scenarios = Array.from({ length: Math.min(PER_POST, SCENARIOS - first) }, (_, k) => entry(first + k));
  const res = await fetch(`${base}/scenarios`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ version: 2, kind: 'runnable', scenarios }),
  });
  if (res.status !== 201) throw new Error(`POST /scenarios answered ${res.status}: ${await res.text()}`);
}
console.error(`${SCENARIOS} scenarios × ${RATE}/s started; running ${SECONDS} s`);
phase = 'run';

const started = performance.now();
let scrapedBytes = 0;
let nextScrape = SCRAPE_SECONDS > 0 ? SCRAPE_SECONDS : Infinity;
let nextReport = 10;
while (performance.now() - started < SECONDS * 1000) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  const elapsed = (performance.now() - started) / 1000;
  if (elapsed >= nextScrape) {
    scrapedBytes += (await (await fetch(`${base}/scenarios/metrics`)).arrayBuffer()).byteLength;
    nextScrape += SCRAPE_SECONDS;
  }
  if (elapsed >= nextReport) {
    console.error(
      `  ${Math.round(elapsed)} s: RSS ${rss.at(-1)!.toFixed(0)} MiB, last /health ${health.run.at(-1)!.toFixed(1)} ms`,
    );
    nextReport += 10;
  }
}
const list = (await (await fetch(`${base}/scenarios`)).json()) as {
  scenarios: { total_events: number; status: string }[];
};
sampling = false;
await sampler;
const finalRss = rssMiB();
server.child.kill('SIGTERM');
const code = await server.exited;

const total = list.scenarios.reduce((sum, s) => sum + s.total_events, 0);
const heap = HEAP_MB ? `heap sized for a ${HEAP_MB} MiB container` : 'heap sized from this machine';
console.log(
  `svc-server load: ${SCENARIOS} scenarios × ${RATE}/s for ${SECONDS} s, ${heap}, /scenarios/metrics scraped every ${SCRAPE_SECONDS} s (${scrapedBytes.toLocaleString('en')} B)`,
);
console.log(
  `  RSS          max ${Math.max(...rss).toFixed(1)} MiB, final ${finalRss.toFixed(1)} MiB (${rss.length} samples)  goal: < 256 MiB`,
);
console.log(
  `  GET /health  p50 ${percentile(health.run, 0.5).toFixed(1)} ms, p99 ${percentile(health.run, 0.99).toFixed(1)} ms, max ${Math.max(...health.run).toFixed(1)} ms over the run (${health.run.length} samples)  goal: p99 < 50 ms`,
);
console.log(
  `               max ${Math.max(...health.startUp).toFixed(1)} ms while the scenarios were posted (${health.startUp.length} samples)`,
);
console.log(
  `  events       ${total.toLocaleString('en')} (scheduled ≈ ${(SCENARIOS * RATE * SECONDS).toLocaleString('en')} over the measured span), ${list.scenarios.filter((s) => s.status === 'running').length} running`,
);
console.log(`  exit         ${code} after SIGTERM`);
