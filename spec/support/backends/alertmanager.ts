import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary } from './binaries.js';
import { startBackend } from './child.js';
import { freeTcpPort, waitFor } from './ports.js';

/**
 * A private Alertmanager (Debian `prometheus-alertmanager`, 0.25: binary `prometheus-alertmanager`)
 * that holds the alerts a Prometheus sends it (startPrometheus({ alertmanager: url })) and notifies
 * no one: one route to a receiver without integrations. Clustering is off
 * (`--cluster.listen-address=`), else it would take port 9094 and look for peers; its silences and
 * notification log go to a fresh storage directory, removed on stop.
 */
export interface Alertmanager {
  readonly url: string;
  /** The alerts it holds, as `GET /api/v2/alerts` lists them. */
  alerts(): Promise<{ labels: Record<string, string>; status: { state: string } }[]>;
  stop(): Promise<void>;
}

export async function startAlertmanager(): Promise<Alertmanager> {
  const binary = requireBinary('prometheus-alertmanager', 'prometheus-alertmanager');
  const dir = await mkdtemp(join(tmpdir(), 'svc-alertmanager-'));
  const port = await freeTcpPort();
  const url = `http://127.0.0.1:${port}`;
  await writeFile(join(dir, 'alertmanager.yml'), ['route: { receiver: nobody, group_wait: 0s }', 'receivers: [{ name: nobody }]'].join('\n'));
  const backend = startBackend(binary, [
    `--config.file=${join(dir, 'alertmanager.yml')}`,
    `--storage.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--cluster.listen-address=',
    '--log.level=warn',
  ]);
  await waitFor('Alertmanager ready', async () => ((await fetch(`${url}/-/ready`)).ok ? true : undefined), 15_000).catch((error) => {
    throw new Error(`${error.message}\n${backend.output()}`);
  });
  return {
    url,
    async alerts() {
      return (await (await fetch(`${url}/api/v2/alerts`)).json()) as never;
    },
    async stop() {
      await backend.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
