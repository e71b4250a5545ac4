import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * In a Node process of its own, as mocha's: makes a temporary directory and a catalog directory, prints their paths
 * and whether they are there, then runs `end`.
 */
function makeDirectoriesAndEnd(end: string) {
  const script = `
    import { existsSync } from 'node:fs';
    import { directory, temporaryDirectory } from './spec/support/directories.ts';
    const made = temporaryDirectory('svc-support-');
    const catalog = directory({ 'a/b.yaml': 'x' });
    console.log(JSON.stringify({ made, catalog, there: existsSync(made) && existsSync(catalog) }));
    ${end}`;
  const { stdout } = spawnSync('node', ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(stdout) as { made: string; catalog: string; there: boolean };
}

describe('spec support: temporary directories', () => {
  for (const [how, end] of [
    ['by its end', ''],
    ['by process.exit', 'process.exit(1);'],
  ])
    it(`are removed, with what they hold, when the process ends ${how}`, () => {
      const { made, catalog, there } = makeDirectoriesAndEnd(end!);
      expect(there).to.equal(true);
      expect(made).to.match(/\/svc-support-\w{6}$/);
      expect(catalog).to.match(/\/svc-catalog-\w{6}$/);
      expect([existsSync(made), existsSync(catalog)]).to.deep.equal([false, false]);
    });
});
