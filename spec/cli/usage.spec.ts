import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { svc, scenarioDir } from '../support/cli.js';
import { VERSION } from '../../lib/version.js';
import { explainRefusal } from '../../lib/cli/usage-errors.js';

const { scenario } = scenarioDir('svc-usage-');
const file = scenario(
  'f.yaml',
  'version: 2\nkind: runnable\nscenarios:\n  - { signal_type: metrics, name: up, rate: 1, duration: 1s, generator: { type: constant, value: 1 } }\n',
);

/** Runs `svc <argv>`, expects a usage error (exit 2, nothing on stdout) and returns its first stderr line. */
async function usageError(argv: string[]): Promise<string> {
  const result = await svc(argv);
  expect(result.code, `${argv.join(' ')}\n${result.stderr}`).to.equal(2);
  expect(result.stdout).to.equal('');
  return result.stderr.split('\n')[0]!;
}

describe('svc usage errors', () => {
  it('name an unknown flag and suggest the closest one, wherever it stands', async () => {
    expect(await usageError(['run', file, '--duraton', '2s'])).to.equal(
      'Usage Error: unknown flag --duraton for svc run; did you mean --duration?',
    );
    expect(await usageError(['run', '--duraton', '2s', file])).to.equal(
      'Usage Error: unknown flag --duraton for svc run; did you mean --duration?',
    );
    expect(await usageError(['metrics', '--nmae', 'x', '--rate', '1'])).to.equal(
      'Usage Error: unknown flag --nmae for svc metrics; did you mean --name?',
    );
    expect(await usageError(['run', file, '--frobnicate'])).to.equal(
      'Usage Error: unknown flag --frobnicate for svc run (svc run --help lists its flags)',
    );
  });

  it('name the unknown flag, not a known flag written before the command (the reference tool puts --dry-run there)', async () => {
    expect(await usageError(['--dry-run', 'metrics', '--name', 'cpu', '--spike-label', 'pod'])).to.equal(
      'Usage Error: unknown flag --spike-label for svc metrics (svc metrics --help lists its flags)',
    );
    expect(await usageError(['-q', '--dry-run', 'run', file, '--duraton', '2s'])).to.equal(
      'Usage Error: unknown flag --duraton for svc run; did you mean --duration?',
    );
    expect(await usageError(['--dry-rn', 'run', file])).to.equal(
      'Usage Error: unknown flag --dry-rn for svc run; did you mean --dry-run?',
    );
  });

  it('name a flag whose value is missing', async () => {
    expect(await usageError(['run', file, '--rate'])).to.equal('Usage Error: --rate needs a value: --rate <n>');
    expect(await usageError(['run', file, '--sink', '--dry-run'])).to.equal(
      'Usage Error: --sink needs a value: --sink <type>',
    );
  });

  it('take a negative number after a flag as its value, at the first try, as --flag=-3', async () => {
    const rate = await svc(['run', file, '--rate', '-3']);
    expect(rate.code, rate.stderr).to.equal(1);
    expect(rate.stderr).to.equal(`error: ${file}: --rate: expected a number greater than 0, got -3\n`);
    expect(await svc(['run', file, '--rate=-3'])).to.deep.equal(rate);
    expect(await usageError(['run', file, '--workers', '-2'])).to.equal(
      'Usage Error: --workers: expected a whole number from 1 to 64, got "-2"',
    );
    const value = await svc(['metrics', '--name', 'x', '--rate', '1', '--value', '-3', '--dry-run']);
    expect(value.code, value.stderr).to.equal(0);
    expect(value.stderr).to.match(/generator: +constant value=-3\n/);
  });

  it('leave a negative number that follows no flag taking a value an argument', async () => {
    // Not an unknown flag with the closest one (-o) suggested: the number is what is out of place.
    for (const argv of [
      ['run', file, '--dry-run', '-3'],
      ['run', '--dry-run', '-3', file],
    ])
      expect(await usageError(argv)).to.equal(
        'Usage Error: unexpected argument "-3": --dry-run before it takes no value',
      );
    // Before -3 on the command line stands `run`, not the --dry-run written before the command.
    for (const argv of [
      ['run', '-3', file],
      ['run', file, '-3'],
      ['--dry-run', 'run', '-3', file],
    ])
      expect(await usageError(argv)).to.equal(
        'Usage Error: unexpected argument "-3": svc run takes a negative number only as the value of a flag before it',
      );
    expect(await usageError(['run', file, '--', '-3'])).to.equal(
      'Usage Error: unexpected argument "-3": svc run takes one [scenario-file]',
    );
  });

  it('say what a command with no flag to take a negative number takes instead: svc help a command name', async () => {
    for (const argv of [
      ['help', '-3'],
      ['help', 'run', '-3'],
    ])
      expect(await usageError(argv)).to.equal(
        'Usage Error: unexpected argument "-3": svc help takes a command name (svc help lists the commands)',
      );
    expect(await usageError(['-3'])).to.equal(
      'Usage Error: unexpected argument "-3": svc takes a command name (svc help lists the commands)',
    );
    expect(await usageError(['version', '-3'])).to.equal(
      'Usage Error: unexpected argument "-3": svc version takes no argument',
    );
    // The usage of the command meant follows, as after any refused command line.
    expect((await svc(['help', '-3'])).stderr).to.match(/\n\$ svc help \.\.\.\n$/);
  });

  it('name a value given to a flag that takes none', async () => {
    expect(await usageError(['run', file, '--dry-run=yes'])).to.equal(
      'Usage Error: --dry-run takes no value (got "yes")',
    );
  });

  it('name the argument too many', async () => {
    expect(await usageError(['run', file, 'second.yaml'])).to.equal(
      'Usage Error: unexpected argument "second.yaml": svc run takes one [scenario-file]',
    );
    expect(await usageError(['metrics', 'up'])).to.equal(
      'Usage Error: unexpected argument "up": svc metrics takes no argument',
    );
  });

  it('name an unknown command and suggest the closest one', async () => {
    expect(await usageError(['rnu', file])).to.equal('Usage Error: unknown command "rnu"; did you mean svc run?');
    expect(await usageError(['frobnicate'])).to.equal(
      'Usage Error: unknown command "frobnicate" (svc help lists the commands)',
    );
  });

  it('name an unknown command given to svc help, and suggest the closest one the same way', async () => {
    expect(await usageError(['help', 'rnu'])).to.equal(
      'Usage Error: unknown command "rnu"; did you mean svc help run?',
    );
    expect(await usageError(['help', 'catalog', 'lst'])).to.equal(
      'Usage Error: unknown command "catalog lst"; did you mean svc help catalog list?',
    );
    expect(await usageError(['help', 'frobnicate'])).to.equal(
      'Usage Error: unknown command "frobnicate" (svc help lists the commands)',
    );
    // From every path of a command, not its first only: `svc list` is also `svc catalog list`.
    expect(await usageError(['help', 'lst'])).to.equal(
      'Usage Error: unknown command "lst"; did you mean svc help list?',
    );
  });

  it('name the subcommands of a group of commands given without one (svc help lists svc catalog list and show)', async () => {
    expect(await usageError(['catalog'])).to.equal(
      'Usage Error: svc catalog needs a subcommand: svc catalog list or svc catalog show',
    );
    expect(await usageError(['catalog', '--catalog', 'examples/catalog'])).to.equal(
      'Usage Error: svc catalog needs a subcommand: svc catalog list or svc catalog show',
    );
    expect(await usageError(['help', 'catalog'])).to.equal(
      'Usage Error: svc catalog needs a subcommand: svc help catalog list or svc help catalog show',
    );
    // A word after the group that is none of its subcommands is named.
    expect(await usageError(['catalog', 'frobnicate', '--catalog', 'examples/catalog'])).to.equal(
      'Usage Error: unknown subcommand "frobnicate" of svc catalog: svc catalog list or svc catalog show',
    );
    expect(await usageError(['help', 'catalog', 'frob'])).to.equal(
      'Usage Error: unknown subcommand "frob" of svc catalog: svc help catalog list or svc help catalog show',
    );
  });

  it('suggest by the rule of an unknown field: case ignored, a swap of two letters one edit, one edit for names up to 5 characters, two beyond', async () => {
    expect(await usageError(['run', file, '--DURATION', '2s'])).to.equal(
      'Usage Error: unknown flag --DURATION for svc run; did you mean --duration?',
    );
    expect(await usageError(['rm', file])).to.equal('Usage Error: unknown command "rm" (svc help lists the commands)');
  });

  it('show the same usage of the command, whether the command line or the command refused it', async () => {
    const usage = async (argv: string[]) => (await svc(argv)).stderr.trim().split('\n').pop();
    const refused = await usage(['run', file, '--rate']);
    expect(refused).to.include('[-o,--output <file>]');
    expect(await usage(['run'])).to.equal(refused);
    expect(await usage(['run', file, '--workers', '0'])).to.equal(refused);
  });

  it('exit 2 for a flag value that is not a number', async () => {
    expect(await usageError(['run', file, '--rate=fast'])).to.match(/--rate: expected a number, got "fast"/);
  });
});

describe('explainRefusal', () => {
  it('explains against the default command of a program that has one (svc-server)', () => {
    const serve = {
      command: 'serve',
      path: [],
      options: [
        { names: ['--port'], arity: 1 },
        { names: ['--bind'], arity: 1 },
      ],
      positionals: [],
    };
    const version = { command: 'version', path: ['-v'], options: [], positionals: [] };
    expect(explainRefusal([serve, version], ['--prot', '80'], 'svc-server')).to.deep.equal({
      message: 'unknown flag --prot for svc-server; did you mean --port?',
      command: 'serve',
    });
    expect(explainRefusal([serve, version], ['extra'], 'svc-server')?.message).to.equal(
      'unexpected argument "extra": svc-server takes no argument',
    );
  });
});

describe('svc help and version', () => {
  it('help shows what each flag takes and its default, not placeholders', async () => {
    const result = await svc(['run', '--help']);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.not.include('#0');
    expect(result.stdout).to.match(/--rate <n> +Events per second/);
    expect(result.stdout).to.match(/--on-sink-error <warn\|fail> +.*\(default: the file's, else warn\)/);
    expect(result.stdout).to.match(/-q,--quiet +/);
  });

  it('svc help lists the commands; svc help <command> shows its help', async () => {
    const all = await svc(['help']);
    expect(all.code).to.equal(0);
    expect(all.stdout).to.include('svc run').and.include('svc metrics').and.include('svc catalog list');
    // svc alone and svc --help are the same list (docs/cli.md).
    for (const argv of [[], ['--help']]) expect(await svc(argv), `svc ${argv.join(' ')}`).to.deep.equal(all);
    const run = await svc(['help', 'run']);
    expect(run.code).to.equal(0);
    expect(run.stdout).to.equal((await svc(['run', '--help'])).stdout);
  });

  it("svc help takes every path of a command, as the command line does: svc list is svc catalog list's", async () => {
    for (const [alias, path] of [
      ['list', ['catalog', 'list']],
      ['show', ['catalog', 'show']],
    ] as const) {
      const help = await svc(['help', alias]);
      expect(help.code, help.stderr).to.equal(0);
      expect(help.stdout).to.equal((await svc([...path, '--help'])).stdout);
    }
  });

  it('docs/cli.md shows every command that svc help lists, and every flag of each', async () => {
    const doc = readFileSync('docs/cli.md', 'utf8');
    const missing: string[] = [];
    for (const line of (await svc(['help'])).stdout.split('\n').filter((l) => l.startsWith('  svc '))) {
      const command = /^ {2}(svc(?: [a-z]+)+)/.exec(line)![1]!;
      if (!doc.includes(command)) missing.push(command);
      for (const flag of line.match(/--[a-z-]+/g) ?? [])
        if (!new RegExp(`${flag}(?![a-z-])`).test(doc)) missing.push(`${command} ${flag}`);
    }
    expect(missing).to.deep.equal([]);
  });

  it('docs/cli.md gives every flag of a fixed set of values the values that svc help lists', async () => {
    const doc = readFileSync('docs/cli.md', 'utf8');
    const choices = new Map(
      [...(await svc(['help'])).stdout.matchAll(/(--[a-z-]+) <([a-z]+(?:\|[a-z]+)+)>/g)].map((m) => [m[1]!, m[2]!]),
    );
    expect(choices.size).to.be.greaterThan(1);
    for (const [flag, values] of choices)
      expect(doc.match(new RegExp(`\`${flag} ([a-z\\\\|]+)\``))?.[1]?.replaceAll('\\', ''), flag).to.equal(values);
  });

  it('svc version, svc -V, svc --version print the version', async () => {
    for (const argv of [['version'], ['-V'], ['--version'], ['-v']]) {
      expect(await svc(argv), argv[0]).to.deep.equal({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  it('-v is --verbose where the reference tool writes it, before or after the command (alone it is the version)', async () => {
    for (const argv of [
      ['-v', 'run', file, '--duration', '1ms'],
      ['run', file, '--duration', '1ms', '-v'],
    ]) {
      const result = await svc(argv);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr, argv.join(' ')).to.include('entry 1: up');
    }
    expect((await svc(['run', file, '--duration', '1ms'])).stderr).not.to.include('entry 1: up');
    expect(await usageError(['-v', '-q', 'run', file])).to.equal(
      'Usage Error: --quiet and --verbose ask for opposite things: give one of them',
    );
  });

  it('-v before a command that has no --verbose is an unknown -v, never a --verbose nobody typed', async () => {
    expect(await usageError(['-v', 'new'])).to.match(/^Usage Error: unknown flag -v for svc new\b/);
    expect(await usageError(['-v', 'test', file])).to.match(/^Usage Error: unknown flag -v for svc test\b/);
    for (const argv of [
      ['-v', '--help'],
      ['-v', '-V'],
    ])
      expect(await usageError(argv), argv.join(' ')).to.match(/^Usage Error: unknown flag -v\b/);
  });
});
