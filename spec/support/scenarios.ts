import { expect } from 'chai';
import { ConfigError, loadScenario, type CliOverrides, type Entry, type ScenarioFile } from '../../lib/config/index.js';

type Fields = Record<string, unknown>;

/** Minimal valid entries of each signal type, as scenario-file fields; `extra` adds or replaces fields. */
export const metric = (extra: Fields = {}): Fields => ({
  signal_type: 'metrics',
  name: 'cpu',
  rate: 1,
  generator: { type: 'constant', value: 1 },
  ...extra,
});
export const logs = (extra: Fields = {}): Fields => ({
  signal_type: 'logs',
  name: 'app',
  rate: 1,
  log_generator: { type: 'template', templates: [{ message: 'hello' }] },
  ...extra,
});
export const histogram = (extra: Fields = {}): Fields => ({
  signal_type: 'histogram',
  name: 'latency',
  rate: 1,
  distribution: { type: 'exponential', rate: 2 },
  ...extra,
});
/** A cardinality spike on `pod`: 5 values for 10 s of every minute. */
export const spike = (extra: Fields = {}): Fields => ({
  label: 'pod',
  every: '1m',
  for: '10s',
  cardinality: 5,
  ...extra,
});
export const summary = (extra: Fields = {}): Fields => ({ ...histogram({ signal_type: 'summary', ...extra }) });

/** A v2 runnable file as JSON text. */
export function v2(scenarios: unknown[], top: Fields = {}): string {
  return JSON.stringify({ version: 2, kind: 'runnable', ...top, scenarios });
}

/** How `load` reads a document: its format, and the CLI overrides applied after loading. */
export interface Options {
  readonly format?: 'yaml' | 'json';
  readonly overrides?: CliOverrides;
}

/** Objects are sent as JSON, strings as YAML unless told otherwise. */
export function load(document: string | Fields, options: Options = {}): ScenarioFile {
  const text = typeof document === 'string' ? document : JSON.stringify(document);
  return loadScenario(text, {
    origin: 'test.yaml',
    format: options.format ?? (typeof document === 'string' ? 'yaml' : 'json'),
    ...options,
  });
}

/** The normalised entry of a one-entry v2 file. */
export function entryOf(fields: Fields, options: Options = {}): Entry {
  return load(v2([fields]), { format: 'json', ...options }).scenarios[0]!;
}

/** The ConfigError loading `document` throws; fails the test when it loads. */
export function configError(document: string | Fields, options: Options = {}): ConfigError {
  try {
    load(document, options);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  expect.fail('expected a ConfigError');
}

/** The messages of every problem found. */
export function problems(document: string | Fields, options: Options = {}): string[] {
  return configError(document, options).problems.map((p) => p.message);
}

/** The messages for a one-entry v2 file. */
export function entryProblems(fields: Fields, options: Options = {}): string[] {
  return problems(v2([fields]), { format: 'json', ...options });
}

/** A file whose preview marks a cardinality spike (every 10m for 2m) and a traces incident (15m to 20m). */
export const SPIKE_AND_INCIDENT = `version: 2
kind: runnable
scenarios:
  - id: m
    name: m
    signal_type: metrics
    rate: 1
    generator: { type: constant, value: 1 }
    cardinality_spikes: [{ label: pod, every: 10m, for: 2m, cardinality: 50 }]
  - id: t
    name: t
    signal_type: traces
    rate: 1
    trace_generator:
      seed: 3
      services: { a: { version: '1' } }
      root: { service: a, operation: checkout, kind: server, incident: { start: 15m, for: 5m, error_rate: 1 } }
`;
