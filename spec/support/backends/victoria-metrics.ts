import { join } from 'node:path';
import { startServedBackend } from './served.js';

/** One exported series: `/api/v1/export` answers one such JSON object per line. */
export interface ExportedSeries {
  readonly metric: Record<string, string>;
  readonly values: number[];
  readonly timestamps: number[];
}

/** A private VictoriaMetrics (Debian `victoria-metrics`) on a free 127.0.0.1 port. */
export interface VictoriaMetrics {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Makes recent writes visible to queries. */
  forceFlush(): Promise<void>;
  /** Every series matching the selector, with all samples, sorted by their labels. */
  exportSeries(match: string): Promise<ExportedSeries[]>;
  /** A counter of VictoriaMetrics' own `/metrics`, summed over its label sets (e.g. `vm_rows_invalid_total`). */
  selfMetric(name: string): Promise<number>;
  stop(): Promise<void>;
}

/** Starts VictoriaMetrics with its data in a fresh temporary directory; ready within about a second. */
export async function startVictoriaMetrics(): Promise<VictoriaMetrics> {
  const { url, stop } = await startServedBackend({
    name: 'VictoriaMetrics',
    binary: 'victoria-metrics',
    debianPackage: 'victoria-metrics',
    readyPath: '/health',
    args: (dir, port) => [
      `-storageDataPath=${join(dir, 'data')}`,
      `-httpListenAddr=127.0.0.1:${port}`,
      '-retentionPeriod=1d',
      '-search.latencyOffset=0s',
      '-loggerLevel=ERROR',
    ],
  });
  return {
    url,
    async forceFlush() {
      const response = await fetch(`${url}/internal/force_flush`);
      if (!response.ok) throw new Error(`force_flush answered ${response.status}`);
    },
    async exportSeries(match) {
      const response = await fetch(`${url}/api/v1/export?match[]=${encodeURIComponent(match)}`);
      if (!response.ok) throw new Error(`export answered ${response.status}: ${await response.text()}`);
      const series = (await response.text())
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ExportedSeries);
      return series.sort((a, b) => JSON.stringify(a.metric).localeCompare(JSON.stringify(b.metric)));
    },
    async selfMetric(name) {
      const text = await (await fetch(`${url}/metrics`)).text();
      const pattern = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm');
      return [...text.matchAll(pattern)].reduce((sum, m) => sum + Number(m[1]), 0);
    },
    stop,
  };
}
