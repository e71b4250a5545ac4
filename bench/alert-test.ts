/**
 * `svc test` of a 1-hour incident (issue 17): the HighErrorRate example run for an hour, sampled
 * at 15 s and checked with promtool. Goal: under 5 s.
 */
import { PassThrough } from 'node:stream';
import { main } from '../lib/cli/main.js';

export async function alertTestBench(): Promise<void> {
  const out = new PassThrough();
  let printed = '';
  out.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const argv = [
    'test',
    'examples/alerts/error-burst.yaml',
    '--rules',
    'examples/alerts/error-burst.rules.yml',
    '--duration',
    '1h',
  ];
  const started = performance.now();
  const code = await main(argv, { stdin: process.stdin, stdout: out, stderr: out, env: process.env, colorDepth: 1 });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    'svc test: a 1-hour incident (examples/alerts/error-burst.yaml --duration 1h) at 15 s with promtool (goal: under 5 s)',
  );
  console.log(`  ${seconds.toFixed(2)} s, exit ${code}: ${printed.trim()}`);
}
