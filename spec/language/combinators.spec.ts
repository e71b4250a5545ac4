import { expect } from 'chai';
import { entryProblems, logs, metric, problems, v2 } from '../support/scenarios.js';

describe('unknown fields: did you mean', () => {
  it('suggests the closest valid field at that position', () => {
    expect(entryProblems(metric({ ratee: 2 }))).to.deep.equal([
      'scenarios[0] (cpu): ratee: unknown field (did you mean rate?)',
    ]);
    expect(entryProblems(metric({ lables: { a: 'b' } }))).to.deep.equal([
      'scenarios[0] (cpu): lables: unknown field (did you mean labels?)',
    ]);
    expect(entryProblems(metric({ Duration: '1s' }))).to.deep.equal([
      'scenarios[0] (cpu): Duration: unknown field (did you mean duration?)',
    ]);
    expect(entryProblems(metric({ generator: { type: 'step', step_sise: 1 } }))).to.deep.equal([
      'scenarios[0] (cpu): generator.step_sise: unknown field (did you mean step_size?)',
      'scenarios[0] (cpu): generator.step_size: missing required field',
    ]);
    expect(entryProblems(metric({ sink: { type: 'file', pth: '/tmp/x' } }))).to.deep.equal([
      'scenarios[0] (cpu): sink.pth: unknown field (did you mean path?)',
      'scenarios[0] (cpu): sink.path: missing required field',
    ]);
    expect(problems(v2([metric()], { scenario: [] }))).to.deep.equal([
      'scenario: unknown field (did you mean scenarios?)',
    ]);
    expect(problems(v2([metric()], { defaults: { durration: '1s' } }))).to.deep.equal([
      'defaults: durration: unknown field (did you mean duration?)',
    ]);
  });

  it('suggests nothing when no field is close', () => {
    expect(entryProblems(metric({ colour: 'red' }))).to.deep.equal(['scenarios[0] (cpu): colour: unknown field']);
    expect(entryProblems(logs({ [`x${'y'.repeat(100_000)}`]: 1 }))[0]).to.match(/: unknown field$/);
  });
});
