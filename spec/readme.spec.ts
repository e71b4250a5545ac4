import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** Writes a TypeScript example where a user's file would be: inside the package, so that `svc` and `svc/operators` resolve to this build (self-reference). */
function writeExample(name: string, code: string): string {
  const dir = join('.cache', 'readme');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.mts`);
  writeFileSync(file, code);
  return file;
}

/** Runs a TypeScript example as a user's file would (tsx strips its types without checking them). */
function runExample(name: string, code: string): void {
  const run = spawnSync(process.execPath, ['--import', 'tsx', writeExample(name, code)], { encoding: 'utf8' });
  expect(run.status, run.stderr).to.equal(0);
}

/**
 * The TypeScript errors of examples as a harness project checks them: strict, ES modules resolved as Node does
 * (`node16`), and the package's own declarations (dist/, through its `exports`) checked too, as by default.
 */
function typeErrors(examples: Record<string, string>, options: ts.CompilerOptions = {}): string[] {
  const files = Object.entries(examples).map(([name, code]) => writeExample(name, code));
  const program = ts.createProgram(files, {
    strict: true,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
    noEmit: true,
    ...options,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

const readmeExample = (): string => {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## Using the operators in your own harness'));
  return /```ts\n([\s\S]*?)```/.exec(section)![1]!;
};
const operatorsExamples = (): string[] =>
  [...readFileSync('docs/operators.md', 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('README', () => {
  it('starts with the two commands a newcomer needs', () => {
    const top = readFileSync('README.md', 'utf8').split('\n').slice(0, 6).join('\n');
    expect(top).to.include('npm ci && bin/svc run examples/quickstart.yaml');
    expect(top).to.include('npm ci && npm test');
  });

  it('has an operator harness example that runs and passes its own assertion', () => {
    runExample('harness-example', readmeExample());
  });
});

describe('docs/operators.md', () => {
  const examples = operatorsExamples();

  it('has examples', () => expect(examples).to.have.length.greaterThan(1));
  examples.forEach((code, i) => {
    it(`example ${i + 1} runs and passes its own assertions`, () => runExample(`operators-example-${i + 1}`, code));
  });
});

describe('the harness examples (README and docs/operators.md) as a TypeScript project checks them', () => {
  it('type-check against the built declarations: strict, node16, the libraries checked too', () => {
    const examples = Object.fromEntries([
      ['harness-example', readmeExample()],
      ...operatorsExamples().map((code, i) => [`operators-example-${i + 1}`, code]),
    ]);
    expect(typeErrors(examples)).to.deep.equal([]);
  }).timeout(60_000);

  it('would report a type error an example made (the check reads the examples)', () => {
    const wrong = `import { ticks } from 'svc/operators';\nexport const timer: number = ticks;\n`;
    // The libraries left unchecked here: this only shows that an example's own mistake is told.
    const errors = typeErrors({ 'type-error-example': wrong }, { skipLibCheck: true, types: [] });
    expect(errors.join('\n')).to.include('is not assignable to type');
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
