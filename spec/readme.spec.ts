import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs a TypeScript example as a user's file would: inside the package, so that `svc` and `svc/operators` resolve to this build (self-reference). */
function runExample(name: string, code: string): void {
  const dir = join('.cache', 'readme');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.mts`);
  writeFileSync(file, code);
  const run = spawnSync(process.execPath, ['--import', 'tsx', file], { encoding: 'utf8' });
  expect(run.status, run.stderr).to.equal(0);
}

describe('README', () => {
  it('starts with the two commands a newcomer needs', () => {
    const top = readFileSync('README.md', 'utf8').split('\n').slice(0, 6).join('\n');
    expect(top).to.include('npm ci && bin/svc run examples/quickstart.yaml');
    expect(top).to.include('npm ci && npm test');
  });

  it('has an operator harness example that runs and passes its own assertion', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('## Using the operators in your own harness'));
    runExample('harness-example', /```ts\n([\s\S]*?)```/.exec(section)![1]!);
  });
});

describe('docs/operators.md', () => {
  const examples = [...readFileSync('docs/operators.md', 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

  it('has examples', () => expect(examples).to.have.length.greaterThan(1));
  examples.forEach((code, i) => {
    it(`example ${i + 1} runs and passes its own assertions`, () => runExample(`operators-example-${i + 1}`, code));
  });
});
