import { expect } from 'chai';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testServer } from '../support/server.js';
import { temporaryDirectory } from '../support/directories.js';

const PACK = `version: 2
kind: composable
name: redis
description: redis basics
metrics:
  - name: redis_up
    generator: { type: constant, value: 1 }
`;

type Server = ReturnType<typeof testServer>;
const post = (server: Server, pack: string) =>
  server.request({
    method: 'POST',
    url: '/scenarios',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ signal_type: 'metrics', pack, rate: 1 }),
  });

/** A file root holding packs/redis.yaml, and the same pack outside it. */
function layout() {
  const base = realpathSync(temporaryDirectory('svc-pack-root-'));
  const [root, outside] = [join(base, 'root'), join(base, 'outside')];
  mkdirSync(join(root, 'packs'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'packs', 'redis.yaml'), PACK);
  writeFileSync(join(outside, 'redis.yaml'), PACK);
  return { root, outside };
}

describe('a pack file path on the server (read only below --file-root, as csv_replay files)', () => {
  it('is refused with 422 pack_file_disabled, naming --file-root, when the server has no file root', async () => {
    const { root } = layout();
    const server = testServer();
    const res = await post(server, join(root, 'packs', 'redis.yaml'));
    expect(res.statusCode, res.body).to.equal(422);
    expect(res.json().error).to.equal('pack_file_disabled');
    expect(res.json().detail).to.match(/^pack file .*redis\.yaml: .*--file-root DIR.*SVC_FILE_ROOT/);
    expect(server.registry.list()).to.deep.equal([]);
  });

  it('reads a pack below the file root, relative paths from the root, and runs its metrics', async () => {
    const { root } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    for (const pack of ['./packs/redis.yaml', join(root, 'packs', 'redis.yaml')]) {
      const res = await post(server, pack);
      expect(res.statusCode, res.body).to.equal(201);
      expect(res.json()).to.deep.include({ name: 'redis_up', status: 'running' });
    }
  });

  it('refuses with 422 pack_file_outside_root a path that leaves the root', async () => {
    const { root, outside } = layout();
    const server = testServer({ deps: { fileRoot: root } });
    for (const pack of ['../outside/redis.yaml', join(outside, 'redis.yaml'), '/etc/passwd']) {
      const res = await post(server, pack);
      expect(res.statusCode, pack).to.equal(422);
      expect(res.json().error, pack).to.equal('pack_file_outside_root');
    }
  });

  it('answers a file below the root that is not a pack with 422 validation_failed, naming the file and field', async () => {
    const { root } = layout();
    writeFileSync(join(root, 'packs', 'bad.yaml'), PACK.replace('value: 1', 'value: one'));
    const res = await post(testServer({ deps: { fileRoot: root } }), 'packs/bad.yaml');
    expect(res.statusCode).to.equal(422);
    expect(res.json().error).to.equal('validation_failed');
    expect(res.json().detail).to.match(/bad\.yaml: metrics\[0\] \(redis_up\): generator\.value: /);
  });
});
