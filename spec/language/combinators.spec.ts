import { expect } from 'chai';
import { entryOf, entryProblems, logs, metric, problems, v2 } from '../support/scenarios.js';

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

describe('a choice of numeric-looking words', () => {
  const rw = (protocol: unknown) =>
    entryProblems(metric({ sink: { type: 'remote_write', url: 'http://127.0.0.1:9/api/v1/write', protocol } }));

  it('says to quote a value YAML read as a number', () => {
    expect(rw(2)).to.deep.equal([
      'scenarios[0] (cpu): sink.protocol: invalid type: expected one of 1.0, 2.0 as a quoted string ("2.0"; unquoted it is read as a number), got number 2',
    ]);
  });

  it('takes the quoted value', () => {
    const sink = { type: 'remote_write', url: 'http://127.0.0.1:9/api/v1/write', protocol: '2.0' };
    expect(entryOf(metric({ sink })).sink).to.include({ protocol: '2.0' });
  });

  it('names only the allowed values for a number that is none of them', () => {
    expect(rw(3)).to.deep.equal([
      'scenarios[0] (cpu): sink.protocol: invalid type: expected one of 1.0, 2.0, got number 3',
    ]);
  });
});
