import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

/**
 * docs/architecture.md ("Layers"): every folder imports only folders below it. The order,
 * lowest first; folders on one line do not import each other.
 */
const LAYERS: readonly (readonly string[])[] = [
  [
    'lib/format.ts',
    'lib/redact.ts',
    'lib/features.ts',
    'lib/random.ts',
    'lib/version.ts',
    'lib/real-file.ts',
    'lib/per-object.ts',
  ],
  ['operators'],
  ['lib/language', 'lib/protocols', 'lib/fetch-url.ts'],
  ['lib/generators', 'lib/encoders', 'lib/sinks'],
  ['lib/config'],
  ['lib/catalog', 'lib/new'],
  ['lib/compile'],
  ['lib/runtime'],
  ['lib/alert-test', 'lib/preview'],
  ['lib/cli'],
  ['lib/server'],
  ['lib/index.ts'],
];

/**
 * docs/architecture.md ("The sinks folder"): inside lib/sinks, the shared core, then HTTP and
 * the protocols' framing, then one file per sink kind, then the kinds' declarations, then the
 * index that builds a sink from its configuration.
 */
const SINK_LAYERS: readonly (readonly string[])[] = [
  ['lib/sinks/core'],
  ['lib/sinks/http', 'lib/sinks/framing'],
  ['lib/sinks/<kind>.ts'],
  ['lib/sinks/kinds'],
  ['lib/sinks/index.ts'],
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

function rankOf(place: string, layers = LAYERS): number {
  return layers.findIndex((layer) => layer.includes(place));
}

/** The place of a file of lib/sinks: its subfolder, the index, or one sink kind's file. */
function sinkPlaceOf(path: string): string {
  const parts = path.split('/');
  if (parts.length > 3) return parts.slice(0, 3).join('/');
  return path === 'lib/sinks/index.ts' ? path : 'lib/sinks/<kind>.ts';
}

/** `file -> target` for each import that does not go to a lower layer (or within its own place). */
function upwardImports(files: readonly string[], place: (path: string) => string, layers = LAYERS): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter((target) => place(target) !== place(file) && rankOf(place(target), layers) >= rankOf(place(file), layers))
      .map((target) => `${file} -> ${target}`),
  );
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
    expect(upwardImports(files, placeOf)).to.deep.equal([]);
  });

  it('reads lib/sinks as layers: core, then HTTP and framing, then the sink kinds, their declarations, the index', () => {
    const sinks = sources('lib/sinks');
    const unplaced = [...new Set(sinks.map(sinkPlaceOf))].filter((place) => rankOf(place, SINK_LAYERS) < 0);
    expect(unplaced).to.deep.equal([]);
    const inside = (path: string) => (path.startsWith('lib/sinks/') ? sinkPlaceOf(path) : 'outside');
    const upward = upwardImports(sinks, inside, [['outside'], ...SINK_LAYERS]);
    expect(upward).to.deep.equal([]);
  });

  it('docs/architecture.md draws every layer and every layer of lib/sinks', () => {
    const text = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const block = (heading: string) => text.split(`\n${heading}\n`)[1]!.split('```')[1]!;
    const drawn = block('## Layers').split(/\s+/);
    expect(LAYERS.flat().filter((place) => !drawn.includes(place))).to.deep.equal([]);
    const sinkLayers = block('### The sinks folder').split(/\s+/);
    const names = SINK_LAYERS.flat().map(
      (place) => `${place.replace('lib/sinks/', '')}${place.endsWith('.ts') ? '' : '/'}`,
    );
    expect(names.filter((name) => !sinkLayers.includes(name))).to.deep.equal([]);
  });

  it('reads type-only imports too, so a type cannot close a cycle unseen', () => {
    expect(importsOf('lib/sinks/kinds/kind.ts')).to.include('lib/language/types.ts');
  });
});
