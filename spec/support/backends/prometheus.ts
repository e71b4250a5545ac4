import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServedBackend } from './served.js';

/** A private Prometheus (Debian `prometheus`): a scraper of one target, a remote-write receiver, or both; a rule evaluator. */
export interface Prometheus {
  readonly url: string;
  /** Result vector of an instant query. */
  query(expression: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Every sample of the matching series within the last `window` (a range query), series sorted by labels. */
  samples(selector: string, window?: string): Promise<{ metric: Record<string, string>; values: [number, string][] }[]>;
  /** A range query from `start` to `end` (epoch ms) every `step` seconds: each series' values at each step. */
  range(
    expression: string,
    start: number,
    end: number,
    step: number,
  ): Promise<{ metric: Record<string, string>; values: [number, string][] }[]>;
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
  /** `--enable-feature` flags (`native-histograms`, `exemplar-storage`). */
  readonly features?: readonly string[];
}

export async function startPrometheus({
  scrape: target,
  receiver,
  outOfOrderWindow,
  dataDir,
  rules,
  alertmanager,
  features,
}: PrometheusOptions): Promise<Prometheus> {
  const { url, stop } = await startServedBackend({
    name: 'Prometheus',
    binary: 'prometheus',
    debianPackage: 'prometheus',
    readyPath: '/-/ready',
    async args(dir, port) {
      if (rules !== undefined) await writeFile(join(dir, 'rules.yml'), rules);
      const config = [
        'global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }',
        ...(rules !== undefined ? [`rule_files: [${JSON.stringify(join(dir, 'rules.yml'))}]`] : []),
        ...(alertmanager
          ? [
              `alerting: { alertmanagers: [{ static_configs: [{ targets: [${JSON.stringify(new URL(alertmanager).host)}] }] }] }`,
            ]
          : []),
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
      return [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${dataDir ?? join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
        ...(receiver ? ['--web.enable-remote-write-receiver'] : []),
        ...(features?.length ? [`--enable-feature=${features.join(',')}`] : []),
      ];
    },
  });
  /** The result of an HTTP API answer, or its error. */
  const resultOf = async (response: Response, what: string) => {
    const body = (await response.json()) as { status: string; data: { result: never[] }; error?: string };
    if (body.status !== 'success') throw new Error(`${what}: ${body.error}`);
    return body.data.result;
  };
  const query = async (expression: string) =>
    resultOf(await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`), `query ${expression}`);
  return {
    url,
    query,
    async samples(selector, window = '1d') {
      const found: { metric: Record<string, string>; values: [number, string][] }[] = await query(
        `${selector}[${window}]`,
      );
      return found.sort((a, b) => JSON.stringify(a.metric).localeCompare(JSON.stringify(b.metric)));
    },
    async range(expression, start, end, step) {
      const response = await fetch(
        `${url}/api/v1/query_range?query=${encodeURIComponent(expression)}&start=${start / 1000}&end=${end / 1000}&step=${step}`,
      );
      return resultOf(response, `range query ${expression}`);
    },
    stop,
  };
}
