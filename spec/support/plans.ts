import { expect } from 'chai';
import { ConfigError } from '../../lib/config/index.js';
import { compileScenario, type ScenarioPlan } from '../../lib/compile/index.js';
import type { Catalog } from '../../lib/catalog/index.js';
import { load, v2 } from './scenarios.js';

type Fields = Record<string, unknown>;

/** Loads a v2 file of `scenarios` (JSON), then compiles it. */
export function compile(scenarios: Fields[], options: { top?: Fields; catalog?: Catalog } = {}): ScenarioPlan {
  return compileScenario(load(v2(scenarios, options.top), { format: 'json' }), {
    origin: 'test.yaml',
    catalog: options.catalog,
  });
}

/** The messages of the ConfigError compiling `scenarios` throws. */
export function compileProblems(scenarios: Fields[], options: { top?: Fields; catalog?: Catalog } = {}): string[] {
  try {
    compile(scenarios, options);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => p.message);
  }
  return expect.fail('expected a ConfigError');
}

/** A metrics entry with a step generator 0, 1, 2, … */
export const stepEntry = (id: string, extra: Fields = {}): Fields => ({
  signal_type: 'metrics',
  name: id,
  rate: 10,
  generator: { type: 'step', start: 0, step_size: 1 },
  ...extra,
});
