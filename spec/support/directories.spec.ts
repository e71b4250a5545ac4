import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';

/**
 * In a Node process of its own, as mocha's: makes a temporary directory and a catalog directory, prints their paths
 * and whether they are there, then runs `end`; its exit code and stderr come back with them.
 */
function makeDirectoriesAndEnd(end: string) {
  const script = `
    import { existsSync } from 'node:fs';
    import { directory, temporaryDirectory } from './spec/support/directories.ts';
    const made = temporaryDirectory('svc-support-');
    const catalog = directory({ 'a/b.yaml': 'x' });
    console.log(JSON.stringify({ made, catalog, there: existsSync(made) && existsSync(catalog) }));
    ${end}`;
  const { stdout, stderr, status } = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  );
  expect(stdout, stderr).to.match(/^\{.*\}\n$/);
  return { ...(JSON.parse(stdout) as { made: string; catalog: string; there: boolean }), stderr, status };
}

describe('spec support: temporary directories', () => {
  for (const [how, end, code] of [
    ['by its end', '', 0],
    ['by process.exit', 'process.exit(3);', 3],
  ] as const)
    it(`are removed, with what they hold, when the process ends ${how}; its exit code stays, nothing is said`, () => {
      const { made, catalog, there, stderr, status } = makeDirectoriesAndEnd(end);
      expect(there).to.equal(true);
      expect(made).to.match(/\/svc-support-\w{6}$/);
      expect(catalog).to.match(/\/svc-catalog-\w{6}$/);
      expect([existsSync(made), existsSync(catalog)]).to.deep.equal([false, false]);
      expect({ stderr, status }).to.deep.equal({ stderr: '', status: code });
    });

  it('names on stderr one it cannot remove (chattr +i), removes those after it, and keeps the exit code', function () {
    // The first directory is made immutable before the end; where chattr is not to be had, there is no test.
    const { made, catalog, stderr, status } = makeDirectoriesAndEnd(`
      import { execFileSync } from 'node:child_process';
      try {
        execFileSync('chattr', ['+i', made], { stdio: 'ignore' });
      } catch {
        process.exit(77);
      }`);
    if (status === 77) this.skip();
    try {
      expect([existsSync(made), existsSync(catalog)]).to.deep.equal([true, false]);
      expect(stderr).to.match(new RegExp(`^spec support: ${made} is left behind: \\w+: .+\\n$`));
      expect(status).to.equal(0);
    } finally {
      execFileSync('chattr', ['-i', made]);
      rmSync(made, { recursive: true });
    }
  });
});
