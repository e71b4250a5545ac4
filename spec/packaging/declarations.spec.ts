import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The declarations a TypeScript project reads from the installed package (dist/, as it ships). TypeScript made the
 * typed arrays generic in 5.7: an inferred `new Int32Array(n)` is declared as `Int32Array<ArrayBuffer>`, which
 * TypeScript 5.6 and before refuse (TS2315 "Type 'Int32Array' is not generic") in every project that checks its
 * libraries, the default. Public types say `Int32Array`, which every version reads.
 */
describe('the built declarations (dist/, as the package ships them)', () => {
  const declarations = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((item) =>
      item.isDirectory()
        ? declarations(join(dir, item.name))
        : item.name.endsWith('.d.ts')
          ? [join(dir, item.name)]
          : [],
    );

  it('name no typed array with a type argument, which TypeScript before 5.7 cannot read', () => {
    const found = [...declarations('dist/lib'), ...declarations('dist/operators')];
    expect(found.length).to.be.above(100);
    const generic = found.flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\b(?:Big)?(?:Int|Uint|Float)(?:8|16|32|64)(?:Clamped)?Array</.test(line)
            ? [`${path}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(generic).to.deep.equal([]);
  });

  it('leave out what is @internal: the labels svc sets on an entry for its own use', () => {
    const entry = readFileSync('dist/lib/config/types.d.ts', 'utf8');
    expect(entry).to.include('readonly dynamic_labels');
    expect(entry).not.to.include('flag_labels');
  });
});
