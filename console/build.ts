/**
 * Builds the web console (docs/console.md) into dist/console: index.html, and assets/ named by their content
 * hash (served as immutable), each beside its gzip copy, which svc-server sends to clients that accept it.
 * Run by `npm run build` after tsc.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'console');

await rm(out, { recursive: true, force: true });
/** codemirror-json-schema's markdown renderer loads Shiki: ours (src/markdown.ts) renders the same without it. */
const withoutShiki: Plugin = {
  name: 'without-shiki',
  setup(build) {
    build.onResolve({ filter: /\/utils\/markdown$/ }, (args) =>
      args.importer.includes('codemirror-json-schema') ? { path: join(here, 'src', 'markdown.ts') } : undefined,
    );
  },
};

const result = await build({
  entryPoints: [join(here, 'src', 'main.ts')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'linked',
  outdir: join(out, 'assets'),
  // The editor (CodeMirror, the schema, YAML) is a chunk of its own, loaded after the running view shows.
  splitting: true,
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  loader: { '.yaml': 'text' },
  metafile: true,
  plugins: [withoutShiki],
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs);
const entry = (extension: string) =>
  basename(outputs.find((path) => path.endsWith(extension) && basename(path).startsWith('main-'))!);
const page = (await readFile(join(here, 'index.html'), 'utf8'))
  .replace('{{script}}', `/ui/assets/${entry('.js')}`)
  .replace('{{style}}', `/ui/assets/${entry('.css')}`);
await mkdir(out, { recursive: true });
await writeFile(join(out, 'index.html'), page);

let gzipped = 0;
for (const path of [...outputs, join(out, 'index.html')]) {
  const zipped = gzipSync(await readFile(path), { level: 9 });
  await writeFile(`${path}.gz`, zipped);
  if (!path.endsWith('.txt')) gzipped += zipped.length;
}
console.error(`console: ${outputs.length} assets, ${gzipped} bytes gzipped (dist/console)`);
