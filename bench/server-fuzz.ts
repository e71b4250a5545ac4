/**
 * `node --import tsx bench/server-fuzz.ts`: FUZZ_RUNS (default 10,000) hostile bodies sent to a
 * real svc-server process, 8 at a time (see spec/support/fuzz.ts), while /health is probed; prints
 * crashes, freezes, 500s, the slowest answer, /health latency and the count of each status.
 * Needs `npm run build` first.
 */
import { temporaryDirectory } from '../spec/support/directories.js';
import { fuzzServer } from '../spec/support/fuzz-run.js';
import { percentile } from '../spec/support/percentile.js';
import { startServerProcess } from '../spec/support/server-process.js';

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const seed = Number(process.env.FUZZ_SEED ?? 42);
const server = await startServerProcess({
  args: ['--file-root', temporaryDirectory('svc-fuzz-')],
  quiet: true,
});
const started = performance.now();
const outcome = await fuzzServer(server, runs, { seed });
server.kill();
const ms = (value: number) => `${value.toFixed(1)} ms`;
console.log(`fuzz: ${outcome.sent} bodies in ${((performance.now() - started) / 1000).toFixed(1)} s (seed ${seed})`);
console.log(
  `crashes: ${outcome.crashed ? 1 : 0}, freezes: ${outcome.frozen.length}, 500s: ${outcome.unexpected.length}, slowest answer: ${ms(outcome.slowestMs)}`,
);
console.log(
  `/health meanwhile: ${outcome.health.length} probes, p50 ${ms(percentile(outcome.health, 0.5))}, p99 ${ms(percentile(outcome.health, 0.99))}, max ${ms(Math.max(...outcome.health))}`,
);
console.log(`statuses: ${JSON.stringify(outcome.statuses)}`);
if (outcome.crashed) console.log(`server stderr (end): ${server.stderr().slice(-2000)}`);
for (const request of outcome.frozen.slice(0, 3)) console.log(`froze on: ${JSON.stringify(request).slice(0, 500)}`);
for (const { request, answer } of outcome.unexpected.slice(0, 3))
  console.log(`500 on: ${JSON.stringify(request).slice(0, 500)}\n  answer: ${answer}`);
