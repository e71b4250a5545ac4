import { expect } from 'chai';
import { chunk } from '../support/batches.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileSink } from '../../lib/sinks/file.js';
import { SinkError } from '../../lib/sinks/sink.js';

describe('fileSink', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-file-sink-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the bytes to the file, in order', async () => {
    const path = join(dir, 'out.txt');
    const sink = fileSink({ path });
    sink.write(chunk('m 1 0\n'));
    sink.write(chunk('m{a="é"} 2 1\n'));
    await sink.close();
    expect(await readFile(path, 'utf8')).to.equal('m 1 0\nm{a="é"} 2 1\n');
  });

  it('has every written byte in the file once flush resolves, before close', async () => {
    const path = join(dir, 'out.txt');
    const sink = fileSink({ path });
    for (let i = 0; i < 100; i++) sink.write(chunk(`line ${i}\n`));
    await sink.flush();
    const text = await readFile(path, 'utf8');
    expect(text.split('\n')).to.have.length(101);
    await sink.close();
  });

  it('truncates an existing file unless asked to append', async () => {
    const path = join(dir, 'out.txt');
    await writeFile(path, 'old contents\n');
    const truncating = fileSink({ path });
    truncating.write(chunk('new\n'));
    await truncating.close();
    expect(await readFile(path, 'utf8')).to.equal('new\n');
    const appending = fileSink({ path, append: true });
    appending.write(chunk('more\n'));
    await appending.close();
    expect(await readFile(path, 'utf8')).to.equal('new\nmore\n');
  });

  it('makes the chain wait past about 1 MiB buffered, and delivers everything', async () => {
    const path = join(dir, 'big.txt');
    const sink = fileSink({ path });
    const line = 'x'.repeat(64 * 1024 - 1) + '\n';
    let waits = 0;
    for (let i = 0; i < 64; i++) {
      const wait = sink.write(chunk(line));
      if (wait) {
        waits++;
        await wait;
      }
    }
    await sink.close();
    expect(waits).to.be.greaterThan(0);
    expect(waits).to.be.lessThan(64);
    expect((await readFile(path, 'utf8')).length).to.equal(64 * line.length);
  });

  it('reports a path in a missing directory as a SinkError naming the path and the OS error', async () => {
    const path = join(dir, 'missing', 'out.txt');
    const sink = fileSink({ path });
    sink.write(chunk('lost\n'));
    const err: unknown = await sink.flush().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(SinkError);
    expect((err as SinkError).message).to.match(/^file sink: cannot write .*out\.txt: ENOENT/);
    expect((err as SinkError).message).to.contain(path);
    expect(() => sink.write(chunk('more\n'))).to.throw(SinkError, 'ENOENT');
    const closing = sink.close();
    expect(await closing.catch((e: unknown) => e)).to.equal(err);
    expect(sink.close()).to.equal(closing);
  });

  it('close is idempotent and refuses later writes', async () => {
    const path = join(dir, 'out.txt');
    const sink = fileSink({ path });
    sink.write(chunk('a\n'));
    const closing = sink.close();
    expect(sink.close()).to.equal(closing);
    await closing;
    await sink.close();
    expect(() => sink.write(chunk('b\n'))).to.throw(SinkError, /closed/);
    expect(await readFile(path, 'utf8')).to.equal('a\n');
  });
});
