import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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

describe('the docs', () => {
  /** Paths the docs write as examples of a form, not as files of the repository. */
  const PLACEHOLDERS = new Set(['lib/X/y.ts', 'spec/X/y.spec.ts', 'examples/data.csv']);

  it('name only files and directories of the repository that exist', () => {
    const pages = [
      'README.md',
      ...readdirSync('docs')
        .filter((f) => f.endsWith('.md'))
        .map((f) => join('docs', f)),
    ];
    const missing = pages.flatMap((page) =>
      [
        ...readFileSync(page, 'utf8').matchAll(
          /(?<![\w/.:@-])(?:lib|spec|bench|examples|schema|chart|console|operators|bin|docs)\/[\w./@-]*\w/g,
        ),
      ]
        .map((m) => m[0])
        .filter((path) => !PLACEHOLDERS.has(path) && !existsSync(path))
        .map((path) => `${page}: ${path}`),
    );
    expect(missing).to.deep.equal([]);
  });
});
