import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createWriteStream, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { colourDepth, mayReachTerminal } from '../../lib/cli/terminal.js';
import { svc, lines, STOPPED, scenarioDir, unreadPipe } from '../support/cli.js';
import { settle } from '../support/clock.js';
import { fakeTerminal, type Row } from '../support/terminal.js';

const { dir, scenario } = scenarioDir('svc-tty-');
/** A terminal that moves its cursor, whatever the TERM of the shell running the specs. */
const CURSOR_TERM = { ...process.env, TERM: 'xterm-256color' };

/** A frame's rows as text, a row continuing a wrapped one as `(wrapped)`. */
const shown = (rows: readonly Row[]) => rows.map((row) => (row.wrapped ? '(wrapped)' : row.text));

/** Sum of the `events:` figures of the STOPPED lines among `rows`. */
const stoppedEvents = (rows: string[]) =>
  rows.filter((row) => STOPPED.test(row)).reduce((sum, row) => sum + Number(STOPPED.exec(row)![3]), 0);

describe('svc run on a terminal', () => {
  it('stdout and stderr on one terminal: progress never erases an event line', async () => {
    const terminal = fakeTerminal(120);
    // Progress is due every second on a terminal: two redraws happen while events are printed.
    const result = await svc(['run', 'examples/quickstart.yaml', '--duration', '2.2s'], {
      stdout: terminal.stream,
      stderr: terminal.stream,
    });
    expect(result.code).to.equal(0);
    const screen = await terminal.screen();
    const samples = screen.filter((row) => /^(cpu_usage_percent|http_requests_total)\{/.test(row));
    expect(
      screen.filter((row) => STOPPED.test(row)),
      screen.join('\n'),
    ).to.have.length(2);
    expect(samples, screen.join('\n')).to.have.length(stoppedEvents(screen));
    expect(samples.length).to.be.greaterThan(5);
  });

  it('stderr a terminal of its own: one progress row per entry, redrawn in place and cut to the width; a stopped entry shows its final figures', async () => {
    const terminal = fakeTerminal(60);
    const file = scenario(
      'two.yaml',
      `version: 2
kind: runnable
defaults: { rate: 20, generator: { type: constant, value: 1 } }
scenarios:
  - { signal_type: metrics, name: short, duration: 300ms }
  - { signal_type: metrics, name: long_running_entry_with_a_long_name, duration: 2.5s }
`,
    );
    // svc run two.yaml > out.prom
    const stdout = createWriteStream('', { fd: openSync(join(dir, 'out.prom'), 'w') });
    const recorded = terminal.recordFrames();
    const result = await svc(['run', file], { stdout, stderr: terminal.stream, env: CURSOR_TERM });
    expect(result.code).to.equal(0);
    const frames = (await recorded()).map(shown);
    await new Promise((resolve) => stdout.end(resolve));
    expect(lines(readFileSync(join(dir, 'out.prom'), 'utf8'))).to.have.length(6 + 50);

    // While the long entry runs: a row per entry, the short one with its final figures, none wider than the terminal.
    // The long id is shortened in its middle on a row too wide for the terminal.
    const during = frames.filter((rows) => rows.some((row) => /^\[progress\] long\S*…\S* {2}events:/.test(row)));
    expect(during, frames.map((rows) => rows.join('\n')).join('\n--\n')).to.not.be.empty;
    for (const rows of during) {
      expect(rows).to.not.include('(wrapped)');
      expect(rows.filter((row) => row.startsWith('[progress] '))).to.have.length(2);
    }
    const late = during.at(-1)!;
    expect(late.find((row) => row.startsWith('[progress] short'))).to.match(
      /^\[progress\] short {2}STOPPED \| events: 6 \| bytes: /,
    );
    // One column spare: a row filling the last column would leave the cursor waiting to wrap.
    expect(late.find((row) => row.startsWith('[progress] long'))).to.have.length(59);

    // At the end: the STOPPED lines in full, where the progress rows were.
    const screen = await terminal.screen();
    expect(screen.map((row) => STOPPED.exec(row)?.[1])).to.deep.equal(['short', 'long_running_entry_with_a_long_name']);
    expect(screen[0]).to.match(/elapsed: \d+ms$/);
  });

  it('stdout a pipe, whose reader may print on the terminal (svc run f.yaml | grep …): printed lines, no cursor movement', async () => {
    const terminal = fakeTerminal(120);
    const stdout = new PassThrough();
    stdout.on('data', (chunk: Buffer) => terminal.stream.write(chunk));
    const result = await svc(['run', 'examples/quickstart.yaml', '--duration', '1.2s'], {
      stdout,
      stderr: terminal.stream,
    });
    expect(result.code).to.equal(0);
    expect(terminal.raw()).to.not.include('\x1b[');
    const screen = await terminal.screen();
    expect(screen.filter((row) => /^(cpu_usage_percent|http_requests_total)\{/.test(row))).to.have.length(
      stoppedEvents(screen),
    );
  });

  it('an entry id of wide characters: each row stays on one line of the terminal', async () => {
    const terminal = fakeTerminal(40);
    const file = scenario(
      'wide.yaml',
      `version: 2
kind: runnable
defaults: { rate: 10, duration: 2.5s, generator: { type: constant, value: 1 }, sink: { type: file, path: ${join(dir, 'wide.prom')} } }
scenarios:
  - { signal_type: metrics, name: a, id: "数据库延迟数据库延迟数据库延迟数据库延迟" }
  - { signal_type: metrics, name: b, id: "数据库延迟数据库延迟数据库延迟数据库延迟#2" }
`,
    );
    const recorded = terminal.recordFrames();
    const result = await svc(['run', file], { stderr: terminal.stream, env: CURSOR_TERM });
    expect(result.code).to.equal(0);
    const frames = (await recorded()).map(shown);
    // While an entry runs (a STOPPED line reads `STOPPED | events:`).
    const during = frames.filter((rows) => rows.some((row) => row.includes('  events: ')));
    expect(during).to.not.be.empty;
    for (const rows of during)
      expect(rows, rows.join('\n')).to.deep.equal([
        rows.find((row) => row.startsWith('[progress] 数据')),
        rows.find((row) => /^\[progress\] 数据\S*…\S*#2 /.test(row)),
      ]);
  });

  it("TERM=dumb, a terminal that cannot move its cursor (an editor's shell buffer): printed lines", async () => {
    const terminal = fakeTerminal(80);
    const file = scenario(
      'dumb.yaml',
      `version: 2
kind: runnable
scenarios:
  - { signal_type: metrics, name: up, rate: 10, duration: 1.2s, generator: { type: constant, value: 1 }, sink: { type: file, path: ${join(dir, 'dumb.prom')} } }
`,
    );
    const result = await svc(['run', file], { stderr: terminal.stream, env: { ...process.env, TERM: 'dumb' } });
    expect(result.code).to.equal(0);
    expect(terminal.raw()).to.not.include('\x1b[');
    expect(lines(terminal.raw()).filter((line) => STOPPED.test(line))).to.have.length(1);
  });

  it('more entries than the terminal has rows: printed lines', async () => {
    const terminal = fakeTerminal(80, 3);
    const file = scenario(
      'many.yaml',
      `version: 2
kind: runnable
defaults: { rate: 10, duration: 1.2s, generator: { type: constant, value: 1 }, sink: { type: file, path: ${join(dir, 'many.prom')} } }
scenarios:
${['a', 'b', 'c'].map((name) => `  - { signal_type: metrics, name: ${name} }`).join('\n')}
`,
    );
    expect((await svc(['run', file], { stderr: terminal.stream })).code).to.equal(0);
    expect(terminal.raw()).to.not.include('\x1b[');
    expect(lines(terminal.raw()).filter((line) => STOPPED.test(line))).to.have.length(3);
  });
});

describe('fakeTerminal (spec/support/terminal.ts)', () => {
  it('shows what was written before rows() was called, not what was written after it in the same turn', async () => {
    const terminal = fakeTerminal(40);
    terminal.stream.write('first\n');
    const rows = terminal.rows();
    terminal.stream.write('second\n');
    expect(shown(await rows)).to.deep.equal(['first']);
  });

  it('records a frame at the end of each turn that wrote: a redraw is seen whole, never half done', async () => {
    const terminal = fakeTerminal(40);
    const recorded = terminal.recordFrames();
    terminal.stream.write('a\n');
    terminal.stream.write('b\n');
    await settle();
    terminal.stream.write('c\n');
    expect((await recorded()).map(shown)).to.deep.equal([
      ['a', 'b'],
      ['a', 'b', 'c'],
    ]);
  });
});

describe('mayReachTerminal', () => {
  const terminal = fakeTerminal().stream;
  const fd = (path: string, flags = 'w') => createWriteStream('', { fd: openSync(path, flags) });

  it('no for a regular file or /dev/null', () => {
    for (const out of [fd(join(dir, 'plain.txt')), fd('/dev/null')]) {
      expect(mayReachTerminal(out, terminal)).to.equal(false);
      out.destroy();
    }
  });

  it('yes for the terminal itself, a pipe, and a stream without a descriptor', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const pipe = fd(fifo, 'r+');
    expect([
      mayReachTerminal(terminal, terminal),
      mayReachTerminal(pipe, terminal),
      mayReachTerminal(new PassThrough(), terminal),
    ]).to.deep.equal([true, true, true]);
    pipe.destroy();
  });
});

describe('svc run --quiet', () => {
  const gauge = scenario(
    'quiet.yaml',
    `version: 2
kind: runnable
scenarios:
  - { signal_type: metrics, name: temp, rate: 20, duration: 200ms, generator: { type: constant, value: 1 } }
`,
  );

  it('prints the events and nothing else', async () => {
    for (const flag of ['--quiet', '-q']) {
      const result = await svc(['run', gauge, flag]);
      expect(result.code, flag).to.equal(0);
      expect(result.stderr, flag).to.equal('');
      expect(lines(result.stdout), flag).to.have.length(4);
    }
  });

  it('still shows errors', async () => {
    const invalid = await svc(['run', scenario('bad-quiet.yaml', 'version: 2\nkind: runnable\nscenarios: 3\n'), '-q']);
    expect(invalid.code).to.equal(1);
    expect(invalid.stderr).to.match(/^error: .*scenarios/);
    // Its sink fails once the run started.
    const pipe = unreadPipe(dir, 'quiet.pipe');
    const failing = await svc(['run', gauge, '-q', '--sink', 'file', '--endpoint', pipe, '--on-sink-error', 'fail']);
    expect(failing.code).to.equal(1);
    expect(failing.stderr).to.include(
      `file sink: cannot open ${pipe}: it is a named pipe that no process reads: start its reader first`,
    );
  });

  it('says nothing on a valid --dry-run', async () => {
    expect(await svc(['run', gauge, '--dry-run', '-q'])).to.include({ code: 0, stderr: '' });
  });
});

describe('colours', () => {
  const onTerminal = async (argv: string[], env: Record<string, string>) => {
    const terminal = fakeTerminal();
    await svc(argv, { stdout: terminal.stream, stderr: terminal.stream, colorDepth: 8, env });
    return terminal.raw();
  };

  it('help and usage errors are coloured on a colour terminal, and plain under NO_COLOR', async () => {
    for (const argv of [['--help'], ['run', '--nope']]) {
      expect(await onTerminal(argv, {}), argv.join(' ')).to.match(/\x1b\[[0-9;]*m/);
      expect(await onTerminal(argv, { NO_COLOR: '1' }), argv.join(' '))
        .to.include('svc run')
        .and.not.match(/\x1b\[/);
    }
  });

  it('take the depth of the terminal bin/svc runs on, which an empty NO_COLOR leaves coloured (no-color.org), as TERM=dumb does not', () => {
    const colourTerminal = { TERM: 'xterm-256color' };
    expect(colourDepth(colourTerminal)).to.equal(8);
    expect(colourDepth({ ...colourTerminal, NO_COLOR: '' })).to.equal(8);
    expect(colourDepth({ ...colourTerminal, NO_COLOR: '1' })).to.equal(1);
    expect(colourDepth({ TERM: 'dumb' })).to.equal(1);
  });

  it('are never written into a pipe, nor when stdout or stderr is not a terminal', async () => {
    const piped = await svc(['--help'], { colorDepth: 8, env: {} });
    expect(piped.stdout)
      .to.include('svc run')
      .and.not.match(/\x1b\[/);
    const terminal = fakeTerminal();
    const halfPiped = await svc(['run', '--nope'], { stdout: terminal.stream, colorDepth: 8, env: {} });
    expect(halfPiped.stderr)
      .to.include('--nope')
      .and.not.match(/\x1b\[/);
  });
});
