import { expect } from 'chai';
import { Validator, type Schema } from '@cfworker/json-schema';
import { diagnose } from '../../console/src/lint.js';
import { scenarioSchema } from '../../lib/config/schema.js';

describe('console schema errors (console/src/lint.ts)', () => {
  const validator = new Validator(scenarioSchema() as Schema, '2020-12', false);
  const entry = 'version: 2\nkind: runnable\nscenarios:\n  - signal_type: metrics\n    rate: 1\n';
  /** Each diagnostic's message and the text it spans. */
  const marks = (text: string) =>
    diagnose(text, validator).map(({ from, to, message }) => ({ covers: text.slice(from, to), message }));

  it('marks an unknown field at its key, as not a field', () => {
    expect(marks(`${entry}    name: up\n    generator: {type: constant, value: 1}\n    generater: 1\n`)).to.deep.equal([
      { covers: 'generater', message: 'scenarios.0.generater: not a field here' },
    ]);
  });

  it('marks a field the fields beside it exclude at its key, saying so', () => {
    expect(marks(`${entry}    pack: node_cpu\n    name: up\n`)).to.deep.equal([
      { covers: 'name', message: 'scenarios.0.name: not allowed with the fields beside it' },
    ]);
    const exemplars = 'signal_type: histogram\nname: h\nrate: 1\ndistribution: {type: exponential, rate: 1}\n';
    expect(marks(`${exemplars}exemplars: {every: 2, probability: 0.5}\n`)).to.deep.equal([
      { covers: 'probability', message: 'exemplars.probability: not allowed with the fields beside it' },
    ]);
  });
});
