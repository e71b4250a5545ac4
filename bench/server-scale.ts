/**
 * Ten thousand scenarios on one svc-server (issue 28; `npm run bench -- scale`): SCENARIOS metric entries
 * at 1 event/s each (stdout sink, read and discarded here), posted 500 to a file. Reports the time to post
 * them, the server's RSS (VmRSS of /proc/PID/status) and the latency of `GET /health` sampled every 100 ms
 * over SECONDS of running, the time to walk `GET /scenarios` page by page (limit 1000), and the time to
 * DELETE every one of them (32 requests at a time). Goals: RSS <= 400 MiB, /health p99 < 50 ms, DELETE of
 * all in seconds. Runs the built server (`npm run build` after changing lib/).
 */
import { readFileSync } from 'node:fs';
import { percentile } from '../spec/support/percentile.js';
import { startServerProcess } from '../spec/support/server-process.js';

const PER_POST = 500;
const DELETES_AT_ONCE = 32;
const SAMPLE_MS = 100;

function rssMiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

function entry(i: number) {
  return {
    id: `s${i}`,
    signal_type: 'metrics',
    name: 'svc_scale_requests_total',
    rate: 1,
    generator: { type: 'step', start: 0, step_size: 1 },
    labels: { service: `service-${i % 100}`, scenario: String(i) },
    sink: { type: 'stdout' },
  };
}

/** Runs `task` on every item, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

export async function serverScaleBench({ scenarios = 10_000, seconds = 60, heapMb = 0 } = {}): Promise<void> {
  const server = await startServerProcess({
    env: { SVC_LOG_LEVEL: 'warn' },
    nodeFlags: heapMb ? [`--max-old-space-size=${heapMb}`] : [],
    quiet: true,
  });
  const { base } = server;
  const pid = server.child.pid!;
  const rss: number[] = [];
  const health: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const started = performance.now();
      rss.push(rssMiB(pid));
      await (await fetch(`${base}/health`)).arrayBuffer();
      health.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, SAMPLE_MS - (performance.now() - started))));
    }
  })();
  try {
    let started = performance.now();
    for (let first = 0; first < scenarios; first += PER_POST) {
      const body = {
        version: 2,
        kind: 'runnable',
        scenarios: Array.from({ length: Math.min(PER_POST, scenarios - first) }, (_, k) => entry(first + k)),
      };
      const res = await fetch(`${base}/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`POST /scenarios answered ${res.status}: ${await res.text()}`);
    }
    const postSeconds = (performance.now() - started) / 1000;
    const postingHealth = health.splice(0);
    const postingRss = Math.max(...rss.splice(0));

    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const runHealth = health.slice();
    const runRss = rss.slice();

    started = performance.now();
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = (await (await fetch(`${base}/scenarios?limit=1000${cursor ? `&cursor=${cursor}` : ''}`)).json()) as {
        scenarios: { id: string; total_events: number }[];
        next_cursor: string | null;
      };
      ids.push(...page.scenarios.map((s) => s.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    const listMs = performance.now() - started;

    started = performance.now();
    await inParallel(ids, DELETES_AT_ONCE, async (id) => {
      const res = await fetch(`${base}/scenarios/${id}`, { method: 'DELETE' });
      if (res.status !== 200) throw new Error(`DELETE answered ${res.status}`);
      await res.arrayBuffer();
    });
    const deleteSeconds = (performance.now() - started) / 1000;
    const left = ((await (await fetch(`${base}/scenarios`)).json()) as { scenarios: unknown[] }).scenarios.length;

    const ms = (values: number[]) =>
      `p50 ${percentile(values, 0.5).toFixed(1)} ms, p99 ${percentile(values, 0.99).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;
    const heap = heapMb ? `heap sized for a ${heapMb} MiB container` : 'heap sized from this machine';
    console.log(
      `svc-server with ${scenarios.toLocaleString('en')} scenarios x 1 event/s (stdout sink), ${seconds} s, ${heap}`,
    );
    console.log(
      `  POST          ${postSeconds.toFixed(1)} s (${PER_POST} a request); RSS max ${postingRss.toFixed(0)} MiB`,
    );
    console.log(`                /health while posting: ${ms(postingHealth)}`);
    console.log(
      `  RSS           max ${Math.max(...runRss).toFixed(1)} MiB, last ${runRss.at(-1)!.toFixed(1)} MiB over the run  goal: <= 400 MiB`,
    );
    // Each about a minute of samples: a long run shows whether memory levels off.
    const perMinute = 60_000 / SAMPLE_MS;
    if (runRss.length > perMinute) {
      const minutes = Array.from({ length: Math.ceil(runRss.length / perMinute) }, (_, m) =>
        Math.max(...runRss.slice(m * perMinute, (m + 1) * perMinute)).toFixed(0),
      );
      console.log(`                max by minute (MiB): ${minutes.join(' ')}`);
    }
    console.log(`  GET /health   ${ms(runHealth)} over the run (${runHealth.length} samples)  goal: p99 < 50 ms`);
    console.log(
      `  GET /scenarios ${pages} pages of 1000: ${listMs.toFixed(0)} ms for ${ids.length.toLocaleString('en')}`,
    );
    console.log(
      `  DELETE        all ${ids.length.toLocaleString('en')} in ${deleteSeconds.toFixed(1)} s (${DELETES_AT_ONCE} at a time), ${left} left`,
    );
  } finally {
    sampling = false;
    await sampler.catch(() => undefined);
    server.child.kill('SIGTERM');
    await server.exited;
  }
}
