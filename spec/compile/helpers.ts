import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError } from '../../lib/config/index.js';
import { compileScenario, type ScenarioPlan } from '../../lib/compile/index.js';
import { Catalog } from '../../lib/compile/catalog.js';
import { load, v2 } from '../config/helpers.js';

export { metric } from '../config/helpers.js';

type Fields = Record<string, unknown>;

/** Loads a v2 file of `scenarios` (JSON), then compiles it. */
export function compile(scenarios: Fields[], options: { top?: Fields; catalog?: Catalog } = {}): ScenarioPlan {
  return compileScenario(load(v2(scenarios, options.top)), { origin: 'test.yaml', catalog: options.catalog });
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

/** A fresh directory holding `files` (path relative to it → text). */
export function directory(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-catalog-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** A metrics entry with a step generator 0, 1, 2, … */
export const stepEntry = (id: string, extra: Fields = {}): Fields => ({
  signal_type: 'metrics',
  name: id,
  rate: 10,
  generator: { type: 'step', start: 0, step_size: 1 },
  ...extra,
});
