import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../lib/config/index.js';
import { Catalog, catalogRef } from '../../lib/catalog/index.js';
import { directory } from '../support/directories.js';

const SCENARIO = `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: up
    rate: 1
    generator: { type: constant, value: 1 }
`;
const PACK = `version: 2
kind: composable
name: redis
description: redis basics
metrics:
  - name: redis_up
`;

async function sample(): Promise<{ dir: string; catalog: Catalog }> {
  const dir = directory({
    'scenarios/cpu-spike.yaml': `${SCENARIO.replace('kind: runnable\n', 'kind: runnable\nname: spike\ndescription: a CPU spike\n')}`,
    'scenarios/plain.yml': SCENARIO,
    'flat.json': JSON.stringify({
      signal_type: 'metrics',
      name: 'x',
      rate: 1,
      generator: { type: 'constant', value: 1 },
    }),
    'packs/deep/redis.yaml': PACK,
    'broken.yaml': 'version: [2\n',
    'bad-entry.yaml': SCENARIO.replace('rate: 1', 'rate: 0'),
    'notes.txt': 'not a catalog file',
    '.hidden/secret.yaml': SCENARIO,
  });
  return { dir, catalog: await Catalog.open(dir) };
}

describe('catalog', () => {
  it('holds every scenario and pack file below the directory, named by name or file name', async () => {
    const { dir, catalog } = await sample();
    expect(
      catalog.items.map((item) => [item.name, item.kind, item.path.slice(dir.length + 1), item.size ?? null]),
    ).to.deep.equal([
      ['bad-entry', 'invalid', 'bad-entry.yaml', null],
      ['broken', 'invalid', 'broken.yaml', null],
      ['flat', 'runnable', 'flat.json', 1],
      ['plain', 'runnable', join('scenarios', 'plain.yml'), 1],
      ['redis', 'pack', join('packs', 'deep', 'redis.yaml'), 1],
      ['spike', 'runnable', join('scenarios', 'cpu-spike.yaml'), 1],
    ]);
    expect(catalog.find('spike')!.description).to.equal('a CPU spike');
    expect(catalog.find('bad-entry')!.problems![0]).to.match(
      /bad-entry\.yaml: scenarios\[0\] \(up\): rate: expected a number greater than 0, got 0$/,
    );
    expect(catalog.find('broken')!.problems![0]).to.match(/broken\.yaml: invalid YAML/);
  });

  it('loads a scenario by name with the CLI overrides', async () => {
    const { catalog } = await sample();
    const { file, path } = catalog.scenario('spike', { rate: 5 });
    expect(file).to.include({ name: 'spike', description: 'a CPU spike' });
    expect(file.scenarios[0]!.rate).to.equal(5);
    expect(path).to.match(/cpu-spike\.yaml$/);
  });

  it('runs a scenario as it was read and listed, each use with its own overrides', async () => {
    const { dir, catalog } = await sample();
    writeFileSync(join(dir, 'scenarios', 'cpu-spike.yaml'), 'changed on disk after the catalog was opened');
    expect(catalog.scenario('spike', { rate: 5, labels: { team: 'a' } }).file.scenarios[0]).to.include({ rate: 5 });
    const plain = catalog.scenario('spike').file.scenarios[0]!;
    expect(plain.rate).to.equal(1);
    expect(plain.labels).to.deep.equal({});
  });

  it('gives clear errors: unknown name (listing the scenarios), a pack, an invalid file', async () => {
    const { dir, catalog } = await sample();
    expect(() => catalog.scenario('nope')).to.throw(
      ConfigError,
      `@nope: no scenario named "nope" in the catalog ${dir} (it has: flat, plain, spike); check the name, or give --catalog <dir> with the right directory`,
    );
    expect(() => catalog.scenario('redis')).to.throw(
      /"redis" is a pack \(.*redis\.yaml\), not a scenario: use it from an entry with pack: redis/,
    );
    expect(() => catalog.scenario('bad-entry')).to.throw(/rate: expected a number greater than 0/);
  });

  it('names SVC_CATALOG, not --catalog, in an unknown name when the variable gave the directory', async () => {
    const { dir } = await sample();
    const catalog = await Catalog.open(dir, undefined, 'SVC_CATALOG');
    expect(() => catalog.scenario('nope')).to.throw(
      ConfigError,
      `@nope: no scenario named "nope" in the catalog ${dir} (it has: flat, plain, spike); check the name, or set SVC_CATALOG to the right directory`,
    );
  });

  it("finds a pack file in the reference tool's shape (no version, no kind) as a pack", async () => {
    const catalog = await Catalog.open(
      directory({ 'packs/redis.yaml': PACK.replace('version: 2\nkind: composable\n', '') }),
    );
    expect(catalog.find('redis')).to.include({ kind: 'pack', size: 1 });
    expect(catalog.pack('redis')!.pack.metrics.map((m) => m.name)).to.deep.equal(['redis_up']);
  });

  it('finds packs, and says when the name is a scenario', async () => {
    const { catalog } = await sample();
    expect(catalog.pack('redis')!.pack.metrics.map((m) => m.name)).to.deep.equal(['redis_up']);
    expect(catalog.pack('mysql')).to.equal(undefined);
    expect(() => catalog.pack('spike')).to.throw(/"spike" is a runnable scenario file, not a pack/);
  });

  it('refuses to guess between files of one name', async () => {
    const catalog = await Catalog.open(directory({ 'a/up.yaml': SCENARIO, 'b/up.yaml': SCENARIO }));
    expect(() => catalog.scenario('up')).to.throw(
      /the catalog has several files named "up": .*a\/up\.yaml, .*b\/up\.yaml; give each its own name/,
    );
  });

  it('reports a missing directory, suggesting --catalog', async () => {
    const missing = join(directory({}), 'nope');
    let error: unknown;
    await Catalog.open(missing).catch((e) => (error = e));
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as Error).message).to.equal(
      `${missing}: catalog directory not found: give --catalog <dir> with a directory of scenario and pack files`,
    );
    // A file where the directory should be is said to be one.
    const file = join(directory({ 'a.yaml': 'x: 1\n' }), 'a.yaml');
    const notDirectory = await Catalog.open(file).catch((e: Error) => e);
    expect((notDirectory as Error).message).to.equal(
      `${file}: not a directory (a file): give --catalog <dir> with a directory of scenario and pack files`,
    );
  });

  it('lists a binary file as invalid, saying it is not text', async () => {
    const dir = directory({});
    writeFileSync(join(dir, 'blob.yaml'), Buffer.from([0x00, 0xff, 0xfe, 0x01]));
    const catalog = await Catalog.open(dir);
    expect(catalog.find('blob')!.problems).to.deep.equal([
      `${join(dir, 'blob.yaml')}: not a text file (it holds binary data): give a YAML or JSON catalog file`,
    ]);
  });

  it('refuses a directory of more than 1000 scenario and pack files', async () => {
    const dir = directory({});
    for (let i = 0; i <= 1000; i++) writeFileSync(join(dir, `s${i}.yaml`), SCENARIO);
    const error = await Catalog.open(dir).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as Error).message).to.equal(
      `${dir}: the catalog holds more than 1000 scenario and pack files, the limit; split it into several directories`,
    );
  });

  it('reads @name as a catalog reference', () => {
    expect(catalogRef('@spike')).to.equal('spike');
    expect(catalogRef('spike.yaml')).to.equal(undefined);
    expect(catalogRef('@')).to.equal(undefined);
  });
});
