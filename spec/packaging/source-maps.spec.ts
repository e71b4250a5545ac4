import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The package ships dist/ and no TypeScript (package.json `files`): a source map that only named `../../lib/x.ts`
 * sent a debugger or `node --enable-source-maps` to a file the installed package does not have. The build writes
 * each map with the sources it names (`inlineSources`).
 */
describe('the built source maps (dist/, as the package ships them)', () => {
  const maps = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((item) =>
      item.isDirectory() ? maps(join(dir, item.name)) : item.name.endsWith('.js.map') ? [join(dir, item.name)] : [],
    );

  it('carry the text of every source they name', () => {
    const found = [...maps('dist/lib'), ...maps('dist/operators')];
    expect(found.length).to.be.above(100);
    const lacking = found.filter((path) => {
      const map = JSON.parse(readFileSync(path, 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      return map.sources.some((_, i) => typeof map.sourcesContent?.[i] !== 'string');
    });
    expect(lacking).to.deep.equal([]);
  });
});
