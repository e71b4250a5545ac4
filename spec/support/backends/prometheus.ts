import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary } from './binaries.js';
import { startBackend } from './child.js';
import { freeTcpPort, waitFor } from './ports.js';

/** A private Prometheus (Debian `prometheus`): a scraper of one target, a remote-write receiver, or both; a rule evaluator. */
export interface Prometheus {
  readonly url: string;
  /** Result vector of an instant query. */
  query(expression: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Every sample of the matching series within the last `window` (a range query), series sorted by labels. */
  samples(selector: string, window?: string): Promise<{ metric: Record<string, string>; values: [number, string][] }[]>;
  /** A range query from `start` to `end` (epoch ms) every `step` seconds: each series' values at each step. */
  range(expression: string, start: number, end: number, step: number): Promise<{ metric: Record<string, string>; values: [number, string][] }[]>;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** Scraped every second. */
  readonly scrape?: { host: string; path: string; bearer?: string };
  /** Accept remote write on `/api/v1/write` (`--web.enable-remote-write-receiver`). */
  readonly receiver?: boolean;
  /** `storage.tsdb.out_of_order_time_window`: without it, samples older than the head block are refused. */
  readonly outOfOrderWindow?: string;
  /** The TSDB directory to open (blocks made by `promtool tsdb create-blocks-from`); default a fresh one, removed on stop. */
  readonly dataDir?: string;
  /** A rules file's text, evaluated every second (`evaluation_interval: 1s`). */
  readonly rules?: string;
  /** An Alertmanager's base URL (spec/support/backends/alertmanager.ts): firing alerts are sent there. */
  readonly alertmanager?: string;
}

export async function startPrometheus({ scrape: target, receiver, outOfOrderWindow, dataDir, rules, alertmanager }: PrometheusOptions): Promise<Prometheus> {
  const binary = requireBinary('prometheus', 'prometheus');
  const dir = await mkdtemp(join(tmpdir(), 'svc-prom-'));
  const port = await freeTcpPort();
  const url = `http://127.0.0.1:${port}`;
  if (rules !== undefined) await writeFile(join(dir, 'rules.yml'), rules);
  const config = [
    'global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }',
    ...(rules !== undefined ? [`rule_files: [${JSON.stringify(join(dir, 'rules.yml'))}]`] : []),
    ...(alertmanager ? [`alerting: { alertmanagers: [{ static_configs: [{ targets: [${JSON.stringify(new URL(alertmanager).host)}] }] }] }`] : []),
    ...(outOfOrderWindow ? [`storage: { tsdb: { out_of_order_time_window: ${outOfOrderWindow} } }`] : []),
    ...(target
      ? [
          'scrape_configs:',
          '  - job_name: svc',
          `    metrics_path: ${target.path}`,
          ...(target.bearer ? [`    authorization: { credentials: ${JSON.stringify(target.bearer)} }`] : []),
          `    static_configs: [{ targets: ["${target.host}"] }]`,
        ]
      : []),
  ].join('\n');
  await writeFile(join(dir, 'prometheus.yml'), config);
  const backend = startBackend(binary, [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${dataDir ?? join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
    ...(receiver ? ['--web.enable-remote-write-receiver'] : []),
  ]);
  await waitFor('Prometheus ready', async () => ((await fetch(`${url}/-/ready`)).ok ? true : undefined), 15_000).catch((error) => {
    throw new Error(`${error.message}\n${backend.output()}`);
  });
  const query = async (expression: string) => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`);
    const body = (await res.json()) as { status: string; data: { result: never[] }; error?: string };
    if (body.status !== 'success') throw new Error(`query ${expression}: ${body.error}`);
    return body.data.result;
  };
  return {
    url,
    query,
    async samples(selector, window = '1d') {
      const found: { metric: Record<string, string>; values: [number, string][] }[] = await query(`${selector}[${window}]`);
      return found.sort((a, b) => JSON.stringify(a.metric).localeCompare(JSON.stringify(b.metric)));
    },
    async range(expression, start, end, step) {
      const res = await fetch(`${url}/api/v1/query_range?query=${encodeURIComponent(expression)}&start=${start / 1000}&end=${end / 1000}&step=${step}`);
      const body = (await res.json()) as { status: string; data: { result: never[] }; error?: string };
      if (body.status !== 'success') throw new Error(`range query ${expression}: ${body.error}`);
      return body.data.result;
    },
    async stop() {
      await backend.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
