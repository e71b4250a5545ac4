import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServedBackend } from './served.js';

/** A private InfluxDB 1.x (Debian `influxdb`) on a free 127.0.0.1 port, with one database. */
export interface InfluxDb {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Its line-protocol endpoint for the database (timestamps in nanoseconds, the default). */
  readonly writeUrl: string;
  /** The rows of an InfluxQL query: one object per row, keyed by column (`time` in milliseconds since the epoch). */
  query(influxql: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

const DATABASE = 'svc';

/** Starts InfluxDB with its files in a fresh temporary directory and creates the database; ready within seconds. */
export async function startInfluxDb(): Promise<InfluxDb> {
  const { url, stop } = await startServedBackend({
    name: 'InfluxDB',
    binary: 'influxd',
    debianPackage: 'influxdb',
    readyPath: '/ping',
    async args(dir, port) {
      const config = join(dir, 'influxdb.conf');
      await writeFile(
        config,
        [
          'reporting-disabled = true',
          // Its RPC port (8088 by default) is taken by any other InfluxDB on the machine.
          'bind-address = "127.0.0.1:0"',
          `[meta]\n  dir = "${join(dir, 'meta')}"`,
          `[data]\n  dir = "${join(dir, 'data')}"\n  wal-dir = "${join(dir, 'wal')}"\n  query-log-enabled = false`,
          `[http]\n  bind-address = "127.0.0.1:${port}"\n  log-enabled = false`,
          '[logging]\n  level = "error"',
        ].join('\n'),
      );
      return ['-config', config];
    },
  });
  const query = async (q: string): Promise<Record<string, unknown>[]> => {
    const response = await fetch(`${url}/query?db=${DATABASE}&epoch=ms`, {
      method: 'POST',
      body: new URLSearchParams({ q }),
    });
    if (!response.ok) throw new Error(`InfluxDB query answered ${response.status}: ${await response.text()}`);
    const { results } = (await response.json()) as {
      results: { error?: string; series?: { columns: string[]; values: unknown[][] }[] }[];
    };
    const [result] = results;
    if (result?.error) throw new Error(`InfluxDB query failed: ${result.error}`);
    return (result?.series ?? []).flatMap(({ columns, values }) =>
      values.map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]]))),
    );
  };
  await query(`CREATE DATABASE ${DATABASE}`);
  return { url, writeUrl: `${url}/write?db=${DATABASE}`, query, stop };
}
