import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ConfigError, loadScenario } from '../../lib/config/index.js';
import { compileScenario } from '../../lib/compile/index.js';
import { filesIn, metricTable, readReplays } from '../../lib/config/csv-replay.js';
import { valueGenerator } from '../../lib/generators/value.js';
import { LOCAL_YAML_BUDGET } from '../../lib/language/limits.js';
import type { GeneratorConfig } from '../../lib/language/types.js';
import { scenarioFromCsv } from '../../lib/new/from-csv.js';
import { SCHEMA_MODELINE } from '../../lib/new/modeline.js';
import {
  grafanaCsv,
  plainCsv,
  randomWalk,
  sampled,
  type Recorded,
  type SampleOptions,
} from '../support/recorded-series.js';
import { temporaryDirectory } from '../support/directories.js';

interface WrittenEntry {
  name: string;
  signal_type: string;
  rate: number;
  generator: Record<string, unknown> & { type: string };
  jitter?: number;
  labels?: Record<string, string>;
  metric_type?: string;
}

/** The entries of a written scenario, as YAML data. */
const entriesOf = (yaml: string): WrittenEntry[] => (parse(yaml) as { scenarios: WrittenEntry[] }).scenarios;

/** `actual` within `fraction` of `expected` (relative). */
const near = (actual: unknown, expected: number, fraction: number, what: string) =>
  expect(actual, what)
    .to.be.a('number')
    .and.closeTo(expected, Math.abs(expected) * fraction);

/**
 * One round trip per shape: rows of a known generator (svc's own code, starting at phase 0), the
 * fitted parameters checked within the stated tolerances.
 */
const SHAPES: readonly {
  name: string;
  generator: GeneratorConfig;
  rows: number;
  spacingMs: number;
  options?: SampleOptions;
  check: (entry: WrittenEntry) => void;
}[] = [
  {
    name: 'constant',
    generator: { type: 'constant', value: 7.5 },
    rows: 100,
    spacingMs: 15_000,
    check: ({ generator, jitter }) => {
      expect(generator).to.deep.equal({ type: 'constant', value: 7.5 });
      expect(jitter).to.equal(undefined);
    },
  },
  {
    name: 'noisy_constant',
    generator: { type: 'constant', value: 42 },
    rows: 1200,
    spacingMs: 1000,
    options: { jitter: 2 },
    // Value within 5 % of the noise, jitter within 10 %.
    check: ({ generator, jitter }) => {
      expect(generator.type).to.equal('constant');
      near(generator.value, 42, 0.1 / 42, 'value');
      near(jitter, 2, 0.1, 'jitter');
    },
  },
  {
    name: 'requests_total',
    generator: { type: 'step', start: 1000, step_size: 12 },
    rows: 400,
    spacingMs: 15_000,
    // start and step_size within 1e-6.
    check: ({ generator, metric_type }) => {
      expect(generator.type).to.equal('step');
      near(generator.start, 1000, 1e-6, 'start');
      near(generator.step_size, 12, 1e-6, 'step_size');
      expect(metric_type, 'a counter, as a step is by default').to.equal(undefined);
    },
  },
  {
    name: 'disk_free',
    generator: { type: 'step', start: 5000, step_size: -3 },
    rows: 1200,
    spacingMs: 1000,
    check: ({ generator, metric_type }) => {
      expect(generator.type).to.equal('step');
      near(generator.step_size, -3, 1e-6, 'step_size');
      expect(metric_type).to.equal('gauge');
    },
  },
  {
    name: 'heap_bytes',
    generator: { type: 'sawtooth', min: 100, max: 1000, period_secs: 100_000 },
    rows: 1000,
    spacingMs: 10_000,
    options: { jitter: 5 },
    // A leak: the sawtooth over the data's span, its slope within 5 %, min within 2 % of the rise.
    check: ({ generator, jitter }) => {
      expect(generator.type).to.equal('sawtooth');
      expect(generator.period_secs).to.equal(10_000);
      near(((generator.max as number) - (generator.min as number)) / 10_000, 900 / 100_000, 0.05, 'slope');
      expect(generator.min).to.be.closeTo(100, 0.02 * 90);
      near(jitter, 5, 0.1, 'jitter');
    },
  },
  {
    name: 'cpu_usage',
    generator: { type: 'sine', amplitude: 20, period_secs: 300, offset: 50 },
    rows: 2000,
    spacingMs: 1000,
    options: { jitter: 3 },
    // Period within 2 %, amplitude within 5 %, offset within 5 % of the amplitude, jitter within 10 %.
    check: ({ generator, jitter }) => {
      expect(generator.type).to.equal('sine');
      near(generator.period_secs, 300, 0.02, 'period_secs');
      near(generator.amplitude, 20, 0.05, 'amplitude');
      expect(generator.offset).to.be.closeTo(50, 0.05 * 20);
      near(jitter, 3, 0.1, 'jitter');
    },
  },
  {
    name: 'queue_depth',
    generator: { type: 'sawtooth', min: 10, max: 90, period_secs: 120 },
    rows: 1200,
    spacingMs: 1000,
    // min and max within 2 % of the range, period within 2 %.
    check: ({ generator }) => {
      expect(generator.type).to.equal('sawtooth');
      expect(generator.min).to.be.closeTo(10, 0.02 * 80);
      expect(generator.max).to.be.closeTo(90, 0.02 * 80);
      near(generator.period_secs, 120, 0.02, 'period_secs');
    },
  },
  {
    name: 'errors',
    generator: { type: 'spike', baseline: 5, magnitude: 40, duration_secs: 10, interval_secs: 60 },
    rows: 1200,
    spacingMs: 1000,
    // Levels exact, duration within one row spacing, interval within 2 %.
    check: ({ generator }) => {
      expect(generator).to.include({ type: 'spike', baseline: 5, magnitude: 40 });
      expect(generator.duration_secs).to.be.closeTo(10, 1);
      near(generator.interval_secs, 60, 0.02, 'interval_secs');
    },
  },
  {
    name: 'link_up',
    generator: { type: 'spike', baseline: 0, magnitude: 1, duration_secs: 30, interval_secs: 70 },
    rows: 1400,
    spacingMs: 1000,
    // Flapping, as the flap alias writes it (up 30 s, down 40 s).
    check: ({ generator }) =>
      expect(generator).to.deep.equal({
        type: 'spike',
        baseline: 0,
        magnitude: 1,
        duration_secs: 30,
        interval_secs: 70,
      }),
  },
];

const recordings = SHAPES.map((shape) => ({
  ...shape,
  recorded: sampled(shape.generator, shape.rows, shape.spacingMs, shape.options),
}));

/** Regenerates a written entry's generator at the recorded times (its jitter left out): the NRMSE against the recording. */
function regenerated(generator: GeneratorConfig, { times, values }: Recorded): number {
  const value = valueGenerator(generator);
  const squares = times.reduce((sum, at, n) => sum + (value(n, at) - values[n]!) ** 2, 0);
  return Math.sqrt(squares / times.length) / rangeOf(values);
}

/** The range of the values; a flat recording's errors are taken as they are. */
const rangeOf = (values: readonly number[]) => Math.max(...values) - Math.min(...values) || 1;

describe('new: scenarioFromCsv', () => {
  describe('round trips: rows of a known generator, exported as CSV, fitted back', () => {
    for (const { name, recorded, check } of recordings) {
      it(`${name}: a plain time,value CSV gives the generator's parameters back within tolerance`, () => {
        const [entry] = entriesOf(scenarioFromCsv(plainCsv(recorded, name), `${name}.csv`, `${name}.csv`));
        expect(entry).to.include({ name, signal_type: 'metrics' });
        check(entry!);
      });
    }

    it('a Grafana export of every shape at once gives each column its own entry, named and labelled from its header', () => {
      // One time column: the shapes recorded every second, cut to the shortest (1200 rows: 4 periods of the sine).
      const shared = recordings.filter((r) => r.spacingMs === 1000);
      const rows = Math.min(...shared.map((r) => r.rows));
      const csv = grafanaCsv(
        shared[0]!.recorded.times.slice(0, rows),
        shared.map((r) => ({ name: r.name, labels: { job: 'api' }, values: r.recorded.values.slice(0, rows) })),
      );
      const entries = entriesOf(scenarioFromCsv(csv, 'export.csv', 'export.csv'));
      expect(entries.map((e) => e.name)).to.deep.equal(shared.map((r) => r.name));
      shared.forEach((r, i) => {
        expect(entries[i]!.labels).to.deep.equal({ job: 'api' });
        expect(entries[i]!.rate).to.equal(1);
        r.check(entries[i]!);
      });
    });

    it('the written scenario validates with loadScenario, and its generators run by svc reproduce the recordings (NRMSE within 0.05 beside the noise)', () => {
      for (const { name, recorded, options } of recordings) {
        const yaml = scenarioFromCsv(plainCsv(recorded, name), `${name}.csv`, `${name}.csv`);
        const [entry] = loadScenario(yaml, { origin: `${name}.yaml`, yamlBudget: LOCAL_YAML_BUDGET }).scenarios;
        const noise = (options?.jitter ?? 0) / rangeOf(recorded.values);
        // The leak restarts after the data span: its last row is where the sawtooth wraps.
        expect(regenerated(entry!.generator!, recorded), name).to.be.below(0.05 + noise);
      }
    });
  });

  describe('the fallback', () => {
    it('a column no shape fits is a csv_replay of that column of the file, named by its header', () => {
      const walk = randomWalk(2000, 1000);
      const csv = grafanaCsv(walk.times, [{ name: 'latency', labels: { job: 'api' }, values: walk.values }]);
      const [entry] = entriesOf(scenarioFromCsv(csv, 'data/latency.csv', 'latency.csv'));
      expect(entry!.generator).to.deep.equal({
        type: 'csv_replay',
        file: 'latency.csv',
        columns: ['{__name__="latency", job="api"}'],
      });
      // The column names exactly the header that csv_replay will look for.
      expect(metricTable(csv, 'latency.csv').columns.map((c) => c.header)).to.deep.equal(entry!.generator.columns);
      expect(entry).to.include({ name: 'latency', rate: 1 });
    });

    it('replays the very column it names: read and compiled beside the CSV, its series is the recorded one', async () => {
      const walk = randomWalk(300, 1000);
      const wave = sampled({ type: 'sine', amplitude: 1, period_secs: 60, offset: 0 }, 300, 1000);
      const dir = temporaryDirectory('svc-new-');
      const csv = grafanaCsv(walk.times, [
        { name: 'wave', values: wave.values },
        { name: 'walk', labels: { job: 'api' }, values: walk.values },
      ]);
      writeFileSync(join(dir, 'two.csv'), csv);
      const yaml = scenarioFromCsv(csv, 'two.csv', 'two.csv');
      const read = await readReplays(loadScenario(yaml, { origin: join(dir, 'two.yaml') }), filesIn(dir));
      const [, replayed] = compileScenario(read, { origin: 'two.yaml' }).scenarios;
      expect(replayed).to.deep.include({ name: 'walk', labels: { job: 'api' } });
      expect(replayed!.generator?.type === 'csv_replay' && replayed!.generator.series?.values).to.deep.equal(
        walk.values,
      );
    });

    it('validates, fitted and replayed entries side by side', () => {
      const walk = randomWalk(500, 1000);
      const wave = sampled({ type: 'sine', amplitude: 1, period_secs: 60, offset: 0 }, 500, 1000);
      const csv = grafanaCsv(walk.times, [
        { name: 'walk', values: walk.values },
        { name: 'wave', values: wave.values },
      ]);
      const file = loadScenario(scenarioFromCsv(csv, 'mixed.csv', 'mixed.csv'), { origin: 'mixed.yaml' });
      expect(file.scenarios.map((e) => e.generator?.type)).to.deep.equal(['csv_replay', 'sine']);
    });
  });

  describe('the file', () => {
    const csv = grafanaCsv(sampled({ type: 'constant', value: 1 }, 200, 1000).times, [
      { name: 'up', labels: { instance: 'web-1' }, values: Array(200).fill(1) },
      { name: 'drift', values: randomWalk(200, 1000).values },
    ]);
    const yaml = scenarioFromCsv(csv, 'up.csv', 'up.csv');

    it('starts with the schema modeline, then a v2 runnable file', () => {
      expect(yaml.split('\n')[0]).to.equal(SCHEMA_MODELINE);
      expect(parse(yaml)).to.include({ version: 2, kind: 'runnable' });
    });

    it('has a comment above every entry: the column, what was found and how well it fits', () => {
      const lines = yaml.split('\n');
      const above = lines.flatMap((line, i) => (line.startsWith('  - name: ') ? [lines[i - 1]] : []));
      expect(above).to.have.length(2);
      expect(above[0]).to.equal('  # {__name__="up", instance="web-1"}: constant: value 1; fits exactly');
      expect(above[1]).to.match(
        /^ {2}# \{__name__="drift"\}: no shape fits \(closest: [a-z ]+, NRMSE 0\.\d{3}, residual not noise\): replayed as recorded$/,
      );
    });

    it('writes generators and labels in flow style, one line each', () => {
      expect(yaml).to.contain('    generator: { type: constant, value: 1 }\n    labels: { instance: web-1 }\n');
    });

    it('names a column without a metric name series_<column>', () => {
      const unnamed = `"Time","{job=""api""}"\n${Array.from({ length: 10 }, (_, i) => `${1000 * i},3`).join('\n')}`;
      expect(entriesOf(scenarioFromCsv(unnamed, 'u.csv', 'u.csv'))[0]).to.include({ name: 'series_1' });
    });

    it('writes a level that rounds to zero from below as 0, not -0', () => {
      const rows = Array.from(
        { length: 120 },
        (_, i) => `${1_700_000_000 + i},${10 * Math.sin((2 * Math.PI * i) / 30 + 0.3) - 1e-9}`,
      );
      const written = scenarioFromCsv(`time,wave\n${rows.join('\n')}\n`, 'w.csv', 'w.csv');
      expect(written).to.contain('generator: { type: sine, amplitude: 10, period_secs: 30, offset: 0 }');
    });

    it('refuses a text that is not a metrics CSV, naming its origin', () => {
      expect(() => scenarioFromCsv('when,value\nyesterday,1\n', 'bad.csv', 'bad.csv')).to.throw(
        ConfigError,
        /bad\.csv/,
      );
    });
  });
});
