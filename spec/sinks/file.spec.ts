import { expect } from 'chai';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, open as openFile, openSync, write, writev } from 'node:fs';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { chunk } from '../support/batches.js';
import { ManualScheduler, settle } from '../support/clock.js';
import { copyFile, mkdir, readFile, rename, rm, symlink, truncate, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { FOLLOW_PATH_EVERY, PathFollower, type WriteCalls, fileSink } from '../../lib/sinks/file.js';
import { SinkError } from '../../lib/sinks/core/errors.js';
import { DEFAULT_FLUSH_TIMEOUT } from '../../lib/sinks/core/sink-core.js';
import { openFiles } from '../../lib/sinks/core/shared-files.js';
import type { SinkReport } from '../../operators/deliver.js';
import { runEntry } from '../../lib/runtime/run-entry.js';
import { appendedAfter } from '../../lib/encoders/openmetrics.js';
import { metricEntry } from '../support/entries.js';
import { temporaryDirectory } from '../support/directories.js';

/**
 * A named pipe made at `path`, read by `cat` once it is open: what cat has read when it ends (at the writer's
 * close), and its exit code so far.
 */
async function pipeWithReader(path: string): Promise<{ ended: Promise<string>; exitCode: () => number | null }> {
  execFileSync('mkfifo', [path]);
  const reader = spawn('cat', [path], { stdio: ['ignore', 'pipe', 'inherit'] });
  let read = '';
  reader.stdout.on('data', (data: Buffer) => (read += data));
  const ended = new Promise<string>((resolve) => reader.on('close', () => resolve(read)));
  await delay(200); // cat waits in its open for a writer
  return { ended, exitCode: () => reader.exitCode };
}

/** A chunk of the openmetrics encoder, whose chunks are Buffers (its kind's `appended` cuts them). */
const openMetricsChunk = (text: string) => chunk(Buffer.from(text));

/**
 * Appends openmetrics chunks of `texts` to the file at `path`, holding `existing`, below the server's file root: the
 * warnings its sink reported.
 */
async function appendBelowRoot(path: string, existing: string, texts: readonly string[]): Promise<SinkReport[]> {
  await writeFile(path, existing);
  const sink = fileSink({ path, append: true, trailer: '# EOF\n', realPath: true, appended: appendedAfter });
  const reports: SinkReport[] = [];
  sink.reports!.subscribe((report) => reports.push(report));
  for (const text of texts) sink.write(openMetricsChunk(text));
  await sink.close();
  return reports.filter((report) => report.kind === 'warning');
}

describe('fileSink', () => {
  let dir: string;
  beforeEach(async () => {
    dir = temporaryDirectory('svc-file-sink-');
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

  it("appending below the server's file root, cuts the trailer the file ended with before writing, and ends with it again", async () => {
    // A scenario svc-server starts again after a restart, an event of POST /events: before, the earlier run's `# EOF`
    // stayed in the middle of the file, where an OpenMetrics reader stops.
    const path = join(dir, 'out.om');
    await writeFile(path, 'a 1\n# EOF\n');
    const appending = fileSink({ path, append: true, trailer: '# EOF\n', realPath: true });
    appending.write(chunk('b 2\n'));
    await appending.close();
    expect(await readFile(path, 'utf8')).to.equal('a 1\nb 2\n# EOF\n');
    // A file that does not end with the trailer keeps all it holds.
    await writeFile(path, 'a 1\n');
    const again = fileSink({ path, append: true, trailer: '# EOF\n', realPath: true });
    again.write(chunk('b 2\n'));
    await again.close();
    expect(await readFile(path, 'utf8')).to.equal('a 1\nb 2\n# EOF\n');
  });

  it("appending below the server's file root, cuts the trailer the file ends with without its line feed too", async () => {
    // `# EOF` as an editor, `printf` or another tool ends a file: before, it stayed in the middle of the file.
    const path = join(dir, 'out.om');
    for (const [before, after] of [
      ['a 1\n# EOF', 'a 1\nb 2\n# EOF\n'],
      ['# EOF', 'b 2\n# EOF\n'],
      // Not a line of its own: not the trailer, and the last line is ended first.
      ['a# EOF', 'a# EOF\nb 2\n# EOF\n'],
      // Nor with its line feed: a log line whose message ends so (before, its `# EOF` was cut).
      ['done # EOF\n', 'done # EOF\nb 2\n# EOF\n'],
    ]) {
      await writeFile(path, before!);
      const appending = fileSink({ path, append: true, trailer: '# EOF\n', realPath: true });
      appending.write(chunk('b 2\n'));
      await appending.close();
      expect(await readFile(path, 'utf8'), before).to.equal(after);
    }
  });

  it('a sink appending to a file while its last sink closes waits for that close, then cuts the trailer: no line after it', async () => {
    // Two POST /events onto one openmetrics file, the first ending just as the second starts: before, the second
    // joined the closing stream and wrote its line after the first's `# EOF`. Opened at every turn of the event
    // loop through the first's close (its flush, its trailer's write, its file's close), one of them in its middle.
    // A run's sink (not appending) opening then opens as it would a moment later, once the close is done: it
    // empties the file then, not while the closing one still writes (a line of its after the emptying).
    const path = join(dir, 'out.om');
    const [joined, emptied] = ['a 1\nb 2\n# EOF\n', 'b 2\n# EOF\n'];
    let duringClose = 0;
    for (const append of [true, false])
      for (let turns = 0; turns < 30; turns++) {
        await writeFile(path, '');
        const first = fileSink({ path, append: true, trailer: '# EOF\n', realPath: true });
        first.write(chunk('a 1\n'));
        const closing = first.close();
        for (let turn = 0; turn < turns; turn++) await settle();
        // When the second opened: the first's stream still taking sinks (joined), its close under way (its trailer
        // queued, the stream ending: the second waits), or done (the file no longer open).
        const shared = openFiles.get(path);
        const joins = shared !== undefined && shared.closed === undefined;
        if (shared?.closed) duringClose++;
        const second = fileSink({ path, append, trailer: '# EOF\n', realPath: true });
        second.write(chunk('b 2\n'));
        await Promise.all([closing, second.close()]);
        expect(await readFile(path, 'utf8'), `append: ${append}, opened after ${turns} turns`).to.equal(
          joins || append ? joined : emptied,
        );
      }
    // The opens during a close, the case of this spec, happened.
    expect(duringClose).to.be.greaterThan(0);
  });

  it("a sink opening a file whose last sink's close never finishes (a hung mount) fails after 10 s, saying so", async () => {
    // Before, it waited for that close for ever, and its run or POST /events with it.
    const path = join(dir, 'out.om');
    const scheduler = new ManualScheduler();
    // What a last sink leaves when its descriptor's close never calls back: the file closing, for ever.
    const hung = new Promise<void>(() => {});
    openFiles.set(path, { stream: new PassThrough(), encoding: { trailer: '# EOF\n' }, users: 0, closed: hung });
    try {
      const sink = fileSink({ path, append: true, trailer: '# EOF\n', realPath: true, scheduler });
      sink.write(chunk('b 2\n'));
      let failure: unknown;
      const closed = sink.close().catch((error: unknown) => (failure = error));
      await scheduler.advance(DEFAULT_FLUSH_TIMEOUT - 1);
      expect(failure, 'still waiting').to.equal(undefined);
      await scheduler.advance(1);
      await closed;
      expect(failure).to.be.instanceOf(SinkError);
      expect((failure as Error).message).to.equal(
        `file sink: cannot open ${path}: the sink that wrote it before is closing it, and that close did not finish within 10 s (a hung file system, such as a network mount that stopped answering?). Try again once it is done`,
      );
      expect(existsSync(path), 'not opened').to.equal(false);
    } finally {
      openFiles.delete(path);
    }
  });

  it('a sink opening a file whose shared stream a write error destroyed opens it afresh: it fails with its own cause', async () => {
    // Before, it joined the destroyed stream and failed with Node's "Cannot call write after a stream was destroyed".
    const path = '/dev/full';
    const full = fileSink({ path });
    full.write(chunk('a 1\n'));
    const failures = [await full.flush().catch((error: Error) => error.message)];
    const next = fileSink({ path });
    next.write(chunk('b 1\n'));
    failures.push(await next.close().catch((error: Error) => error.message));
    await full.close().catch(() => undefined);
    expect(failures).to.deep.equal([
      'file sink: cannot write /dev/full: the disk is full',
      'file sink: cannot write /dev/full: the disk is full',
    ]);
  });

  it('a sink opening a file whose shared stream an I/O error destroyed writes it afresh, whatever its encoding', async () => {
    // Before, a sink of the same encoding joined the destroyed stream and failed; of another, it was refused as if the
    // destroyed stream still wrote the file.
    const path = join(dir, 'out.log');
    const first = fileSink({ path, trailer: '# EOF\n', encoder: 'openmetrics' });
    first.write(chunk('a 1\n'));
    await first.flush();
    openFiles.get(path)!.stream.destroy(Object.assign(new Error('i/o error'), { code: 'EIO', syscall: 'write' }));
    const next = fileSink({ path, append: true, encoder: 'json_lines' });
    next.write(chunk('{"b":1}\n'));
    await next.close();
    await first.close().catch(() => undefined);
    expect(await readFile(path, 'utf8')).to.equal('a 1\n{"b":1}\n');
  });

  for (const [first, second] of [
    ['openmetrics', 'json_lines'],
    ['json_lines', 'openmetrics'],
  ] as const)
    it(`a ${second} sink opening a file a ${first} sink writes now fails, naming both, and leaves that file as it is`, async () => {
      // Before, the second joined the stream: json lines inside an OpenMetrics exposition, or a `# EOF` ending a
      // json_lines file (and its old `# EOF` not cut): a file readable by neither reader.
      const trailerOf = (encoder: string) => (encoder === 'openmetrics' ? '# EOF\n' : undefined);
      const path = join(dir, 'shared.out');
      await writeFile(path, '');
      const writing = fileSink({ path, append: true, realPath: true, encoder: first, trailer: trailerOf(first) });
      writing.write(chunk(`${first} 1\n`));
      const joining = fileSink({ path, append: true, realPath: true, encoder: second, trailer: trailerOf(second) });
      joining.write(chunk(`${second} 2\n`));
      const failure = await joining.close().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).to.be.instanceOf(SinkError);
      expect((failure as Error).message).to.equal(
        `file sink: cannot open ${path}: another sink of this process writes it now as ${first}, and ${second} cannot share a file with it: a file of openmetrics holds nothing but its lines up to its "# EOF". Give this sink another path, or write into it once the other is done`,
      );
      await writing.close();
      expect(await readFile(path, 'utf8')).to.equal(`${first} 1\n${trailerOf(first) ?? ''}`);
    });

  it("appending below the server's file root to a file that may not be cut (chattr +a), appends with the trailer left", async function () {
    const path = join(dir, 'append-only.om');
    await writeFile(path, 'a 1\n# EOF\n');
    // Root may set the attribute on ext4 and most Linux file systems; elsewhere there is nothing to show.
    if (spawnSync('chattr', ['+a', path]).status !== 0) this.skip();
    try {
      const appending = fileSink({ path, append: true, trailer: '# EOF\n', realPath: true });
      appending.write(chunk('b 2\n'));
      await appending.close();
      expect(await readFile(path, 'utf8')).to.equal('a 1\n# EOF\nb 2\n# EOF\n');
    } finally {
      spawnSync('chattr', ['-a', path]);
    }
  });

  it("appending below the server's file root, the first chunk written follows the file's last line as its encoder's `appended` says: no metadata again after its family's line", async () => {
    // A scenario svc-server starts again from --state: before, its metadata came again after its samples, which the
    // strict OpenMetrics parsers refuse ("Received metadata after samples").
    const path = join(dir, 'out.om');
    await writeFile(path, '# TYPE jobs gauge\njobs 1 0\n# EOF\n');
    const options = { path, append: true, trailer: '# EOF\n', realPath: true, appended: appendedAfter } as const;
    const first = fileSink(options);
    // Another sink on the file, as the entries of a run share it: only the chunk written first follows that line.
    const second = fileSink(options);
    const reports: SinkReport[] = [];
    first.reports!.subscribe((report) => reports.push(report));
    first.write(openMetricsChunk('# TYPE jobs gauge\njobs 2 1\n'));
    second.write(openMetricsChunk('# TYPE jobs gauge\njobs 3 2\n'));
    await Promise.all([first.close(), second.close()]);
    expect(await readFile(path, 'utf8')).to.equal(
      '# TYPE jobs gauge\njobs 1 0\njobs 2 1\n# TYPE jobs gauge\njobs 3 2\n# EOF\n',
    );
    expect(reports.filter((report) => report.kind !== 'delivered')).to.deep.equal([]);
    expect(reports).to.deep.include({ kind: 'delivered', size: 1, bytes: 'jobs 2 1\n'.length });

    // Not appending (a run's start), or outside the file root (svc run's workers), the chunk is written as it is.
    for (const other of [{ append: false }, { realPath: false }]) {
      await writeFile(path, '# TYPE jobs gauge\njobs 1 0\n');
      const sink = fileSink({ ...options, ...other });
      sink.write(openMetricsChunk('# TYPE jobs gauge\njobs 2 1\n'));
      await sink.close();
      expect(await readFile(path, 'utf8'), JSON.stringify(other)).to.match(/# TYPE jobs gauge\njobs 2 1\n# EOF\n$/);
    }
  });

  it("appending below the server's file root to a file whose last line its encoder's `appended` refuses, writes the chunk as it is and warns, once", async () => {
    // A restored scenario keeps running; its log says the file is no longer one OpenMetrics readers read whole.
    const path = join(dir, 'mixed.om');
    const warnings = await appendBelowRoot(path, '{"time":"2026-01-01T00:00:00Z","message":"up"}\n', [
      '# TYPE jobs gauge\njobs 2 1\n',
      'jobs 3 2\n',
    ]);
    expect(await readFile(path, 'utf8')).to.equal(
      '{"time":"2026-01-01T00:00:00Z","message":"up"}\n# TYPE jobs gauge\njobs 2 1\njobs 3 2\n# EOF\n',
    );
    expect(warnings).to.deep.equal([
      {
        kind: 'warning',
        message: `file sink: appending to ${path}: its last line is not OpenMetrics ("{\\"time\\":\\"2026-01-01T00:00:00Z\\",\\"message\\":\\"up\\"}"): the file holds another encoder's lines, where an OpenMetrics reader would stop. The scenario appends to it all the same, its # TYPE and # HELP lines included; give it another path for a file that OpenMetrics readers read whole`,
      },
    ]);
  });

  it("appending below the server's file root to a file whose last line a kill cut short, which its encoder's `appended` refuses, warns that it is cut short, not another encoder's", async () => {
    // svc-server killed in the middle of a write, then started again from --state: no other tool wrote the file.
    const path = join(dir, 'cut.om');
    const warnings = await appendBelowRoot(path, '# TYPE jobs gauge\njobs 1 0\njo', ['# TYPE jobs gauge\njobs 2 1\n']);
    expect(await readFile(path, 'utf8')).to.equal(
      '# TYPE jobs gauge\njobs 1 0\njo\n# TYPE jobs gauge\njobs 2 1\n# EOF\n',
    );
    expect(warnings).to.deep.equal([
      {
        kind: 'warning',
        message: `file sink: appending to ${path}: its last line is cut short ("jo", no line break ends it: svc killed in the middle of a write?), where an OpenMetrics reader would stop. The scenario appends to it all the same, its # TYPE and # HELP lines included; give it another path for a file that OpenMetrics readers read whole`,
      },
    ]);
  });

  it("appending below the server's file root, ends a last line cut short before writing: the first line is not glued to it", async () => {
    // An earlier run killed in the middle of a write (kill -9, an OOM kill), then started again from --state.
    const path = join(dir, 'out.jsonl');
    await writeFile(path, '{"a":1}\n{"b":');
    const appending = fileSink({ path, append: true, realPath: true });
    appending.write(chunk('{"c":3}\n'));
    await appending.close();
    expect(await readFile(path, 'utf8')).to.equal('{"a":1}\n{"b":\n{"c":3}\n');
  });

  for (const realPath of [false, true])
    it(`a file truncated under the writer (logrotate's copytruncate) gets the next line at its start, with no hole of NUL bytes${realPath ? " (a path below the server's file root)" : ''}`, async () => {
      const path = join(dir, 'out.log');
      const sink = fileSink({ path, realPath });
      sink.write(chunk('before the rotation\n'));
      await sink.flush();
      await copyFile(path, `${path}.1`);
      await truncate(path);
      sink.write(chunk('after the rotation\n'));
      await sink.close();
      expect(await readFile(`${path}.1`, 'utf8')).to.equal('before the rotation\n');
      expect(await readFile(path, 'utf8')).to.equal('after the rotation\n');
    });

  for (const realPath of [false, true])
    it(`follows its path when a log rotator renames the file away, then removes it: the next writes go to a new file at the path${realPath ? " (a path below the server's file root)" : ''}`, async () => {
      const path = join(dir, 'out.log');
      const sink = fileSink({ path, realPath });
      sink.write(chunk('before the rotation\n'));
      await sink.flush();
      await rename(path, `${path}.1`);
      await delay(FOLLOW_PATH_EVERY + 50);
      sink.write(chunk('after the rotation\n'));
      await sink.flush();
      expect(await readFile(`${path}.1`, 'utf8')).to.equal('before the rotation\n');
      expect(await readFile(path, 'utf8')).to.equal('after the rotation\n');
      await unlink(path);
      await delay(FOLLOW_PATH_EVERY + 50);
      sink.write(chunk('after the removal\n'));
      await sink.close();
      expect(await readFile(path, 'utf8')).to.equal('after the removal\n');
    });

  it('follows its path with the wall clock stepped back (a check due is measured on a monotonic clock)', async () => {
    const path = join(dir, 'out.log');
    const wallClock = Date.now;
    const stepped = wallClock() - 3_600_000;
    try {
      const sink = fileSink({ path });
      sink.write(chunk('before\n'));
      await sink.flush();
      Date.now = () => stepped;
      await rename(path, `${path}.1`);
      await delay(FOLLOW_PATH_EVERY + 50);
      sink.write(chunk('after\n'));
      await sink.close();
    } finally {
      Date.now = wallClock;
    }
    expect(await readFile(`${path}.1`, 'utf8')).to.equal('before\n');
    expect(await readFile(path, 'utf8')).to.equal('after\n');
  });

  it('a path that cannot be opened again after a rotation (its directory renamed) leaves the writes going to the open file', async () => {
    const sub = join(dir, 'logs');
    await mkdir(sub);
    const sink = fileSink({ path: join(sub, 'out.log') });
    sink.write(chunk('one\n'));
    await sink.flush();
    await rename(sub, join(dir, 'logs.old'));
    await delay(FOLLOW_PATH_EVERY + 50);
    sink.write(chunk('two\n'));
    await sink.close();
    expect(await readFile(join(dir, 'logs.old', 'out.log'), 'utf8')).to.equal('one\ntwo\n');
  });

  it('a file removed with its directory (rm -rf logs/) is a sink failure that says so, not lines written into the removed file counted delivered', async () => {
    const sub = join(dir, 'logs');
    await mkdir(sub);
    const path = join(sub, 'out.log');
    const sink = fileSink({ path });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    sink.write(chunk('one\n'));
    await sink.flush();
    await rm(sub, { recursive: true });
    await delay(FOLLOW_PATH_EVERY + 50);
    sink.write(chunk('two\n'));
    const error: unknown = await sink.flush().catch((e: unknown) => e);
    expect(error).to.be.instanceOf(SinkError);
    expect((error as SinkError).message).to.equal(
      `file sink: cannot write ${path}: it was removed while svc writes to it, and cannot be created again: the directory ${sub} does not exist. Lines written on would be lost: make the path writable again (create its directory again), then start the run again`,
    );
    expect(reports.map((r) => r.kind)).to.deep.equal(['delivered', 'failed']);
    await sink.close().catch(() => undefined);
  });

  it('a write the system takes in part has its rest in the same file, even when the path check falls between the two calls', async () => {
    const path = join(dir, 'out.log');
    const fd = openSync(path, 'a');
    let calls = 0;
    // The system takes half of the first write; a rotation renames the file, and a check is due, before the rest.
    const inPart: WriteCalls = {
      write: ((fd: number, buffer: Uint8Array, offset: number, length: number, position: null, done: never) => {
        if (calls++ > 0) return write(fd, buffer, offset, length, position, done);
        write(fd, buffer, offset, length >> 1, position, (error, written, data) => {
          rename(path, `${path}.1`)
            .then(() => delay(FOLLOW_PATH_EVERY + 50))
            .then(() => (done as (...args: unknown[]) => void)(error, written, data));
        });
      }) as typeof write,
      writev,
    };
    const follower = new PathFollower(path, (done) => openFile(path, 'a', done), fd, inPart);
    const stream = createWriteStream(path, { fd, fs: follower });
    stream.end('one whole line\n');
    await finished(stream);
    expect(calls).to.equal(2);
    expect(await readFile(`${path}.1`, 'utf8')).to.equal('one whole line\n');
  });

  it('sinks open together on one path share one stream: the file is truncated once, every write lands, the last close closes it', async () => {
    const path = join(dir, 'shared.txt');
    await writeFile(path, 'old contents that must go\n');
    const first = fileSink({ path });
    const second = fileSink({ path });
    first.write(chunk('a 1\n'));
    second.write(chunk('b 1\n'));
    await first.close();
    second.write(chunk('b 2\n'));
    await second.close();
    expect(await readFile(path, 'utf8')).to.equal('a 1\nb 1\nb 2\n');
    const later = fileSink({ path });
    later.write(chunk('c 1\n'));
    await later.close();
    expect(await readFile(path, 'utf8')).to.equal('c 1\n');
  });

  it('makes the chain wait past about 1 MiB buffered, and delivers everything', async () => {
    const path = join(dir, 'big.txt');
    const sink = fileSink({ path });
    const line = `${'x'.repeat(64 * 1024 - 1)}\n`;
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

  it('a path in a missing directory is a sink failure naming the directory, reported for the events it lost', async () => {
    const path = join(dir, 'missing', 'out.prom');
    const sink = fileSink({ path });
    const reports: SinkReport[] = [];
    sink.reports!.subscribe((r) => reports.push(r));
    sink.write(chunk('lost 1\n'));
    sink.write(chunk('lost 2\nlost 3\n', 2));
    const error: unknown = await sink.flush().catch((e: unknown) => e);
    expect(error).to.be.instanceOf(SinkError);
    expect((error as SinkError).message).to.equal(
      `file sink: cannot open ${path}: the directory ${join(dir, 'missing')} does not exist`,
    );
    expect(reports).to.deep.equal([{ kind: 'failed', size: 3, bytes: 21, error }]);
    // Every later chunk is a failure of its own, with the same words.
    expect(() => sink.write(chunk('more\n'))).to.throw(
      SinkError,
      `file sink: cannot open ${path}: the directory ${join(dir, 'missing')} does not exist`,
    );
    await sink.close().catch(() => undefined);
  });

  it('a named pipe that no process reads is a sink failure at once that says so, not an open that holds the run for ever', async () => {
    const path = join(dir, 'pipe');
    execFileSync('mkfifo', [path]);
    const sink = fileSink({ path });
    sink.write(chunk('lost\n'));
    const error: unknown = await sink.flush().catch((e: unknown) => e);
    expect((error as SinkError).message).to.equal(
      `file sink: cannot open ${path}: it is a named pipe that no process reads: start its reader first`,
    );
    await sink.close().catch(() => undefined);
  });

  it('a named pipe with a reader gets every line, and the reader its end only at close', async () => {
    const path = join(dir, 'pipe');
    const reader = await pipeWithReader(path);
    const sink = fileSink({ path });
    sink.write(chunk('one\n'));
    await sink.flush();
    await delay(100);
    expect(reader.exitCode(), 'cat ended before the close').to.equal(null);
    sink.write(chunk('two\n'));
    await sink.close();
    expect(await reader.ended).to.equal('one\ntwo\n');
  });

  for (const [removal, remove] of [
    ['the pipe removed (rm p)', (pipe: string) => rm(pipe)],
    ['its directory removed (rm -rf)', (pipe: string) => rm(join(pipe, '..'), { recursive: true })],
  ] as const)
    it(`a named pipe is not followed like a log file: ${removal} while its reader reads, the reader gets every line`, async () => {
      const sub = join(dir, 'fifo');
      await mkdir(sub);
      const path = join(sub, 'pipe');
      const reader = await pipeWithReader(path);
      const sink = fileSink({ path });
      sink.write(chunk('one\n'));
      await sink.flush();
      await remove(path);
      await delay(FOLLOW_PATH_EVERY + 50);
      sink.write(chunk('two\n'));
      await sink.close();
      expect(await reader.ended).to.equal('one\ntwo\n');
      expect(existsSync(path), 'a file nobody reads made at the path').to.equal(false);
    });

  it('a path whose directory exists but takes no new file says why: a link to a missing place, or /proc', async () => {
    const link = join(dir, 'dangling');
    await symlink(join(dir, 'gone', 'out.prom'), link);
    const proc = join(dir, 'to-proc');
    await symlink('/proc/out.prom', proc);
    const noNewFile = '/proc takes no new file (no such file or directory): is it a file system such as /proc or /sys?';
    for (const [path, words] of [
      [
        link,
        `it is a symbolic link to ${join(dir, 'gone', 'out.prom')}: the directory ${join(dir, 'gone')} does not exist`,
      ],
      ['/proc/out.prom', noNewFile],
      // The link's target's directory exists: what fails is there, not a directory missing.
      [proc, `it is a symbolic link to /proc/out.prom: ${noNewFile}`],
    ]) {
      const sink = fileSink({ path });
      sink.write(chunk('lost\n'));
      const error = (await sink.flush().catch((e: unknown) => e)) as Error;
      expect(error.message).to.equal(`file sink: cannot open ${path}: ${words}`);
      await sink.close().catch(() => undefined);
    }
  });

  it('a path that is a directory is a sink failure that says so', async () => {
    const sink = fileSink({ path: dir });
    sink.write(chunk('lost\n'));
    const error = (await sink.flush().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(`file sink: cannot open ${dir}: it is a directory; path must name a file`);
    await sink.close().catch(() => undefined);
  });

  it('a path no file can have (a NUL byte) is a sink failure, not an exception from the constructor', async () => {
    const sink = fileSink({ path: 'out\0.prom' });
    sink.write(chunk('lost\n'));
    const error = (await sink.flush().catch((e: unknown) => e)) as Error;
    expect(error.message).to.equal(
      'file sink: cannot open out\0.prom: the path contains a NUL byte, which no file name can hold',
    );
    await sink.close().catch(() => undefined);
  });

  it('an entry writing into a missing directory records the sink failure and no delivery, and stops (under warn as under fail)', async () => {
    const path = join(dir, 'missing', 'out.prom');
    const run = runEntry(metricEntry({ rate: 50, sink: { type: 'file', path } }));
    const outcome = await run.done;
    expect([outcome.error?.message, outcome.inSink]).to.deep.equal([
      `file sink: cannot open ${path}: the directory ${join(dir, 'missing')} does not exist`,
      true,
    ]);
    const stats = run.stats.snapshot(Date.now());
    expect(stats.total_events).to.be.at.least(1);
    expect(stats.last_successful_write_at).to.equal(null);
    expect(stats.last_sink_error).to.equal(
      `file sink: cannot open ${path}: the directory ${join(dir, 'missing')} does not exist`,
    );
    // Counted once: the close that fails with the same error loses nothing more.
    expect(run.stats.totalSinkFailures).to.equal(1);
    const failed = await runEntry(metricEntry({ rate: 50, on_sink_error: 'fail', sink: { type: 'file', path } })).done;
    expect(failed.error?.message).to.equal(stats.last_sink_error);
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
