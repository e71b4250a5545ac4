import { expect } from 'chai';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { scenarioDir, spawnSvc, upScenario } from '../support/cli.js';
import { startHostileReceiver } from '../support/backends/hostile.js';
import { startHttpReceiver } from '../support/backends/http-receiver.js';
import { waitFor } from '../support/backends/ports.js';

const { scenario } = scenarioDir('svc-proc-');
const forever = scenario(
  'forever.yaml',
  `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: beat
    rate: 5000
    generator: { type: step, start: 0, step_size: 1 }
`,
);

/** Runs bin/svc as a real process, sends `signal` once output has started, collects everything. */
async function runUntil(signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // A run that does not end (no output, or a signal it does not stop on) is killed: a process left running would keep
  // mocha from exiting. The run takes about a second and a half.
  const { child, stdout, stderr, closed } = spawnSvc(['run', forever], { stdout: true, killAfterMs: 15_000 });
  child.stdout!.on('data', function started() {
    if (stdout().length <= 100_000) return;
    // Once: a second signal would quit at once, without the flush this checks.
    child.stdout!.off('data', started);
    child.kill(signal);
  });
  return { code: (await closed).code, stdout: stdout(), stderr: stderr() };
}

describe('bin/svc as a process', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`on ${signal} flushes every event it counted, prints STOPPED and exits 0`, async () => {
      const { code, stdout, stderr } = await runUntil(signal);
      expect(code, stderr).to.equal(0);
      const stopped = /\[progress\] beat {2}STOPPED \| events: (\d+) \| bytes: .+ \| elapsed: .+/.exec(stderr);
      expect(stopped, stderr).to.not.equal(null);
      const lines = stdout.split('\n').filter(Boolean);
      expect(lines).to.have.length(Number(stopped![1]));
      // No torn or reordered line: the step counter runs 0, 1, 2, … to the end.
      lines.forEach((line, n) => expect(line.split(' ')[1]).to.equal(String(n)));
    });
  }
});

describe('bin/svc whose reader goes away (svc … | head -3)', () => {
  for (const [flags, rate] of [
    [[], '200'],
    [['--workers', '2'], '100000'],
  ] as const) {
    it(`stops quietly and exits 0 once the reader of stdout is gone${flags.length ? `, also with ${flags.join(' ')} at ${rate}/s` : ''}`, async () => {
      const { child, stdout, stderr, closed } = spawnSvc(['metrics', '--name', 'up', '--rate', rate, ...flags], {
        stdout: true,
      });
      // Like head -3: read three lines, then close the reading end.
      child.stdout!.on('data', () => {
        if (stdout().split('\n').length > 3) child.stdout!.destroy();
      });
      const exit = closed.then(({ code }) => code);
      const bound = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 5000).unref());
      try {
        expect(await Promise.race([exit, bound]), stderr()).to.equal(0);
        expect(stderr()).to.not.match(/EPIPE|\[warn\]|error/i);
        expect(stderr()).to.match(/\[progress\] up {2}STOPPED \| events: \d+/);
      } finally {
        child.kill('SIGKILL');
      }
    });
  }
});

describe('bin/svc stopped while its receiver does not answer', () => {
  for (const [signal, again] of [
    ['SIGINT', 'a second Ctrl-C'],
    ['SIGTERM', 'another SIGTERM'],
  ] as const)
    it(`says at ${signal} that it flushes, for how long at most, and that ${again} quits: and it does, saying what it lost`, async () => {
      const receiver = await startHostileReceiver('silent');
      let kill = () => {};
      try {
        const file = scenario(
          'silent.yaml',
          upScenario(`{ type: http_push, url: "http://${receiver.address}/ingest", batch_size: 1 }`, ['rate: 20']),
        );
        const { child, stderr, closed } = spawnSvc(['run', file]);
        kill = () => child.kill('SIGKILL');
        await waitFor('the first request', () => (receiver.received() > 0 ? true : undefined));
        child.kill(signal);
        // Before: nothing but `rate: 0/s` rows until the flush gave up, 10 s later.
        await waitFor(
          'the stopping line',
          () => (stderr().includes(`[info] ${signal}: stopping`) ? true : undefined),
          3_000,
        );
        expect(stderr()).to.include(
          `[info] ${signal}: stopping: flushing what the sinks still hold (a receiver that does not answer is given up after 10s); ${again} quits at once, losing it\n`,
        );
        // Its rows say what it does, not `rate: 0/s`.
        expect(stderr()).to.match(/\n\[progress\] up {2}flushing \| events: \d+ \| bytes: .+ \| elapsed: .+\n/);
        const sent = Date.now();
        child.kill(signal);
        // Ended by the signal, as its default action ends a process: the shell reads 130 or 143.
        expect((await closed).signal).to.equal(signal);
        expect(Date.now() - sent).to.be.below(2_000);
        // The receiver answered nothing: every event counted is lost, and said so (before, nothing was said).
        const lost = new RegExp(
          `\nerror: up: ${signal} during the stop's flush quit at once: (\\d+) of its (\\d+) events?, still in its sink, (?:was|were) not delivered\n$`,
        ).exec(stderr());
        expect(lost, stderr()).to.not.equal(null);
        expect(lost![1]).to.equal(lost![2]);
        expect(stderr()).to.not.include('STOPPED');
      } finally {
        kill();
        await receiver.stop();
      }
    });

  it('a second signal under --workers counts as lost only what the sinks still held: not what they delivered', async () => {
    const receiver = await startHttpReceiver();
    // Answers the first 10 requests (one event each), then none.
    receiver.answer(() => (receiver.requests.length <= 10 ? { status: 204 } : 'stall'));
    const url = `${receiver.url}/ingest`;
    let kill = () => {};
    try {
      // Four series: each worker writes two, into a sink of its own.
      const file = scenario(
        'partly.yaml',
        upScenario(`{ type: http_push, url: "${url}", batch_size: 1 }`, [
          'rate: 20',
          'dynamic_labels: [{ key: pod, prefix: p-, cardinality: 4 }]',
        ]),
      );
      const { child, stderr, closed } = spawnSvc(['run', file, '--workers', '2']);
      kill = () => child.kill('SIGKILL');
      // Each worker's sink sends one request at a time: 12 means each has one unanswered.
      await waitFor('a request unanswered from each worker', () => (receiver.requests.length >= 12 ? true : undefined));
      // The first progress line, 5 s in: the workers reported their counts since (every 200 ms).
      await waitFor('a progress line', () => (stderr().includes('[progress]') ? true : undefined), 10_000);
      child.kill('SIGTERM');
      await waitFor('the stopping line', () => (stderr().includes('[info] SIGTERM: stopping') ? true : undefined));
      child.kill('SIGTERM');
      expect((await closed).signal).to.equal('SIGTERM');
      const lost =
        /\nerror: up: SIGTERM during the stop's flush quit at once: (\d+) of its (\d+) events, still in its sink, were not delivered\n$/.exec(
          stderr(),
        );
      expect(lost, stderr()).to.not.equal(null);
      expect(Number(lost![1]), stderr()).to.equal(Number(lost![2]) - receiver.accepted.length);
    } finally {
      kill();
      await receiver.stop();
    }
  });

  it('an entry past its duration whose sink still flushes reads "flushing", not a rate of 0/s', async () => {
    const receiver = await startHostileReceiver('silent');
    let kill = () => {};
    try {
      const file = scenario(
        'silent-1s.yaml',
        upScenario(`{ type: http_push, url: "http://${receiver.address}/ingest", batch_size: 1 }`, [
          'rate: 20',
          'duration: 1s',
        ]),
      );
      const { child, stderr, closed } = spawnSvc(['run', file]);
      kill = () => child.kill('SIGKILL');
      // The first row, 5 s in: the duration ran out at 1 s, the flush waits up to 10 s.
      await waitFor('the first row', () => (stderr().includes('[progress]') ? true : undefined), 9_000);
      expect(stderr()).to.match(/^\[progress\] up {2}flushing \| events: \d+ \| bytes: .+ \| elapsed: .+\n/);
      kill();
      await closed;
    } finally {
      kill();
      await receiver.stop();
    }
  });

  it('refuses a file sink onto the scenario file redirected to standard input (svc run - -o s.yaml < s.yaml)', async () => {
    // A short run: without the refusal, it would end having written over its own file.
    const file = scenario('stdin.yaml', upScenario('{ type: stdout }', ['rate: 10', 'duration: 300ms']));
    const text = readFileSync(file, 'utf8');
    const input = openSync(file, 'r');
    try {
      const { stderr, closed } = spawnSvc(['run', '-', '-o', file], { stdin: input });
      expect((await closed).code, stderr()).to.equal(1);
      expect(stderr()).to.equal(
        `error: standard input: -o/--output: cannot open ${file}: it is the scenario file given on standard input, which writing would overwrite\n`,
      );
    } finally {
      closeSync(input);
    }
    expect(readFileSync(file, 'utf8')).to.equal(text);
  });
});
