import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../support/backends/ports.js';
import { foreverScenario, scenarioDir, spawnSvc, stoppedCounts } from '../support/cli.js';

const { dir, scenario } = scenarioDir('svc-disks-');

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** bin/svc as a real process (after `shell`, when it sets a limit first); its output and its end. */
function start(args: readonly string[], shell?: string): { child: ChildProcess; ended: Promise<Ended> } {
  const { child, stdout, stderr, closed } = spawnSvc(args, { stdout: true, shell, killAfterMs: 20_000 });
  const ended = closed.then(({ code, signal }) => ({ code, signal, stdout: stdout(), stderr: stderr() }));
  return { child, ended };
}

/** Whether `text` is the start of a step counter's line (`beat{pod="…"} <n> <time>`) for `n`: a line cut short. */
function startsLine(text: string, n: number): boolean {
  if ('beat{pod="'.startsWith(text)) return true;
  const line = /^beat\{pod="[^"]*("\}( (\d*)( \d*)?)?)?$/.exec(text);
  return line !== null && String(n).startsWith(line[3] ?? '');
}

/**
 * The step counter's output (`beat{pod="…"} <n> <time>`, n counting 0, 1, 2, …): every line whole and in
 * order, except that the last may be cut short (no newline). Returns how many whole lines there are.
 */
function wholeLinesInOrder(text: string): number {
  const lines = text.split('\n');
  const last = lines.pop()!;
  lines.forEach((line, n) => expect(line, `line ${n + 1}`).to.match(new RegExp(`^beat\\{pod="[^"]+"\\} ${n} \\d+$`)));
  expect(startsLine(last, lines.length), `the cut last line ${JSON.stringify(last)}`).to.equal(true);
  return lines.length;
}

describe('disks and kills (docs/reliability.md)', function () {
  this.timeout(30_000);

  it('a file sink on a full disk (/dev/full) stops the run by itself: exit 1, the error names the path', async () => {
    const file = foreverScenario(scenario, '{ type: file, path: /dev/full }', { rate: 1000 });
    const { code, stderr } = await start(['run', file]).ended;
    expect(code, stderr).to.equal(1);
    expect(stderr).to.match(/STOPPED \(sink: file sink: cannot write \/dev\/full: the disk is full\)/);
    expect(stderr).to.include('error: beat: its sink failed (the error is on its STOPPED line above)');
  });

  it('a file that cannot grow (ulimit -f) mid-run: exit 1 naming the path; what was written stays whole', async () => {
    const path = join(dir, 'limited.txt');
    const file = foreverScenario(scenario, `{ type: file, path: "${path}" }`, { rate: 20_000 });
    // 64 blocks of 1 KiB (POSIX sh counts ulimit -f in 512-byte blocks on some shells: either way a small file).
    const { code, stderr } = await start(['run', file], 'ulimit -f 64').ended;
    expect(code, stderr).to.equal(1);
    expect(stderr).to.include(`STOPPED (sink: file sink: cannot write ${path}: the file reached the largest size`);
    expect(stderr).to.include('error: beat: its sink failed (the error is on its STOPPED line above)');
    const lines = wholeLinesInOrder(readFileSync(path, 'utf8'));
    expect(lines).to.be.greaterThan(100);
    // Counted by whole lines that landed: before, every chunk of the failed write counted dropped, though the
    // file took all but its last part (84 dropped, 45 of them whole lines in the file).
    const { events, dropped } = stoppedCounts(stderr);
    expect(events - dropped, stderr).to.equal(lines);
  });

  it('zipkin_json in a file that cannot grow: the spans counted delivered are those a JSON reader reads', async () => {
    const path = join(dir, 'spans.json');
    const file = scenario(
      'spans.yaml',
      [
        'version: 2',
        'kind: runnable',
        'scenarios:',
        '  - signal_type: traces',
        '    name: spans',
        '    rate: 2000',
        '    encoder: { type: zipkin_json }',
        `    sink: { type: file, path: "${path}" }`,
        '    trace_generator: { services: { web: {} }, root: { service: web, operation: "GET /", kind: server } }',
      ].join('\n'),
    );
    // 512 KiB or 1 MiB (blocks of 512 bytes or 1 KiB), some 1500 spans at 2000/s: the chunks before the cut hold
    // readable spans unless the first wake-up is most of a second late (at 64 blocks, 50 ms late left none).
    const { code, stderr } = await start(['run', file], 'ulimit -f 1024').ended;
    expect(code, stderr).to.equal(1);
    // One JSON array per chunk, a line each: the cut last one is no JSON. Before, the spans of its whole lines
    // counted delivered, though no reader can read them (at 64 blocks, events - dropped was 94, 93 spans readable).
    const readable = readFileSync(path, 'utf8')
      .split('\n')
      .flatMap((line) => {
        try {
          return JSON.parse(line) as unknown[];
        } catch {
          return [];
        }
      }).length;
    expect(readable).to.be.greaterThan(10);
    const { events, dropped } = stoppedCounts(stderr, 'spans');
    expect(events - dropped, stderr).to.equal(readable);
  });

  for (const [what, flags] of [
    ['one thread', []],
    ['--workers 2', ['--workers', '2']],
  ] as const)
    it(`kill -9 mid-run (${what}): the file holds whole lines except at most the last one`, async () => {
      const path = join(dir, `killed-${flags.length}.txt`);
      const file = foreverScenario(scenario, `{ type: file, path: "${path}" }`, { rate: 50_000 });
      const { child, ended } = start(['run', file, ...flags]);
      await waitFor(
        '1 MiB written',
        () => (statSync(path, { throwIfNoEntry: false })?.size ?? 0) > 1 << 20 || undefined,
      );
      child.kill('SIGKILL');
      expect((await ended).signal).to.equal('SIGKILL');
      const text = readFileSync(path, 'utf8');
      if (flags.length === 0) expect(wholeLinesInOrder(text)).to.be.greaterThan(1000);
      else {
        // Two workers append whole lines each: their lines interleave, none is torn but the last.
        const lines = text.split('\n');
        const last = lines.pop()!;
        for (const line of lines) expect(line).to.match(/^beat\{pod="[^"]+"\} \d+ \d+$/);
        expect(lines.length).to.be.greaterThan(1000);
        expect(/^beat\{pod="[^"]*("\}( \d*( \d*)?)?)?$/.test(last) || 'beat{pod="'.startsWith(last)).to.equal(true);
      }
    });

  it('kill -9 mid-run: stdout holds whole lines except at most the last one', async () => {
    const file = foreverScenario(scenario, '{ type: stdout }', { rate: 50_000 });
    const { child, ended } = start(['run', file]);
    let seen = 0;
    child.stdout!.on('data', (chunk: string) => {
      seen += chunk.length;
      if (seen > 1 << 20) child.kill('SIGKILL');
    });
    const { signal, stdout, stderr, code } = await ended;
    expect(signal, `${code} ${stderr}`).to.equal('SIGKILL');
    expect(wholeLinesInOrder(stdout)).to.be.greaterThan(1000);
  });
});
