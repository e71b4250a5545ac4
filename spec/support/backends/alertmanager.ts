import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServedBackend } from './served.js';

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
  const { url, stop } = await startServedBackend({
    name: 'Alertmanager',
    binary: 'prometheus-alertmanager',
    debianPackage: 'prometheus-alertmanager',
    readyPath: '/-/ready',
    async args(dir, port) {
      await writeFile(
        join(dir, 'alertmanager.yml'),
        ['route: { receiver: nobody, group_wait: 0s }', 'receivers: [{ name: nobody }]'].join('\n'),
      );
      return [
        `--config.file=${join(dir, 'alertmanager.yml')}`,
        `--storage.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--cluster.listen-address=',
        '--log.level=warn',
      ];
    },
  });
  return {
    url,
    async alerts() {
      return (await (await fetch(`${url}/api/v2/alerts`)).json()) as never;
    },
    stop,
  };
}
