import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

/**
 * docs/architecture.md ("Layers"): every folder imports only folders below it. The order,
 * lowest first; folders on one line do not import each other.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['lib/format.ts', 'lib/redact.ts', 'lib/features.ts', 'lib/random.ts', 'lib/version.ts'],
  ['operators'],
  ['lib/language', 'lib/protocols'],
  ['lib/generators', 'lib/encoders', 'lib/sinks'],
  ['lib/config'],
  ['lib/catalog'],
  ['lib/compile'],
  ['lib/runtime'],
  ['lib/alert-test', 'lib/new'],
  ['lib/cli'],
  ['lib/server'],
  ['lib/index.ts'],
];

const root = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((item) => {
    const path = `${dir}/${item.name}`;
    if (item.isDirectory()) return sources(path);
    return item.name.endsWith('.ts') ? [path] : [];
  });
}

/** The layer a source file belongs to: its top folder below lib/ (or operators/), or itself. */
function placeOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'operators') return 'operators';
  return parts.length > 2 ? parts.slice(0, 2).join('/') : path;
}

function rankOf(place: string): number {
  return LAYERS.findIndex((layer) => layer.includes(place));
}

/** Every relative import of a file (type-only ones too), as a path from the repository root. */
function importsOf(path: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, path), 'utf8'), true, true);
  return importedFiles
    .map((file) => file.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => relative(root, normalize(join(root, dirname(path), name))).replace(/\.js$/, '.ts'));
}

describe('layers (docs/architecture.md)', () => {
  const files = [...sources('lib'), ...sources('operators')];

  it('places every folder of lib/ and operators/ in a layer', () => {
    const unplaced = [...new Set(files.map(placeOf))].filter((place) => rankOf(place) < 0);
    expect(unplaced, 'add them to LAYERS and to docs/architecture.md').to.deep.equal([]);
  });

  it('has no import from a folder to one on its own layer or above (no cycle between folders)', () => {
    const upward = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => placeOf(target) !== placeOf(file) && rankOf(placeOf(target)) >= rankOf(placeOf(file)))
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).to.deep.equal([]);
  });

  it('reads type-only imports too, so a type cannot close a cycle unseen', () => {
    expect(importsOf('lib/sinks/kinds/kind.ts')).to.include('lib/language/types.ts');
  });
});
