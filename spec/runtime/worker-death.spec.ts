import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { startHttpReceiver, type HttpReceiver } from '../support/backends/http-receiver.js';
import { waitFor } from '../support/backends/ports.js';
import { lines, scenarioDir, svc } from '../support/cli.js';

const { dir, scenario } = scenarioDir('svc-worker-death-');

/** Threads of this process (Linux): a worker thread is one while it runs. */
const threads = () => readdirSync('/proc/self/task').length;

/**
 * svc's worker threads as the inspector sees them (Node's `NodeWorker` domain, in-process), and a way to run
 * code in one of them: how a spec makes one worker fail without anything in svc built for it.
 */
function workerInspector() {
  const session = new Session();
  session.connect();
  /** Session ids by thread id, of svc's workers only (not the module loader's threads, not esbuild's). */
  const workers = new Map<number, string>();
  session.on('NodeWorker.attachedToWorker', (message) => {
    const { sessionId, workerInfo } = (
      message as unknown as { params: { sessionId: string; workerInfo: { title: string; url: string } } }
    ).params;
    // From source a worker is evaluated code (url ""), built it is dist/lib/runtime/worker-entry.js.
    if (workerInfo.url === '' || workerInfo.url.endsWith('/worker-entry.js'))
      workers.set(Number(/\d+/.exec(workerInfo.title)![0]), sessionId);
  });
  session.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
  /** svc's workers in the order it started them: worker n of svc's messages is `started()[n - 1]`. */
  const started = () => [...workers.entries()].sort(([a], [b]) => a - b).map(([, sessionId]) => sessionId);
  return {
    started,
    /** Evaluates `expression` in svc's worker `n` (1-based, as svc's messages count them). */
    evaluate(n: number, expression: string): void {
      const message = JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression } });
      session.post('NodeWorker.sendMessageToWorker', { sessionId: started()[n - 1]!, message });
    },
    close: () => session.disconnect(),
  };
}

/**
 * A worker thread that dies mid-run (docs/reliability.md). The worker is made to fail by an uncaught error in
 * its own event loop, thrown there through the inspector: the path any crash of a worker takes (an uncaught
 * exception, running out of its heap), with nothing in svc made for the spec.
 */
describe('svc run --workers: a worker thread that dies', function () {
  this.timeout(30_000);
  let receiver: HttpReceiver;
  let inspector: ReturnType<typeof workerInspector>;
  beforeEach(async () => {
    receiver = await startHttpReceiver();
    inspector = workerInspector();
  });
  afterEach(async () => {
    inspector.close();
    await receiver.stop();
  });

  it('stops the run with an error naming it, the other worker flushes, exit 1, no thread left behind', async () => {
    const progress = join(dir, 'tick.txt');
    // `beat` buffers everything (an hour's age, 16 MiB): what reaches the receiver came with a flush. `tick`
    // writes through at once, to see both workers run. Two pods a tick: one per worker.
    const file = scenario(
      'two-workers.yaml',
      [
        'version: 2',
        'kind: runnable',
        'defaults:',
        '  signal_type: metrics',
        '  rate: 200',
        '  generator: { type: step, start: 0, step_size: 1 }',
        '  dynamic_labels: [{ key: pod, cardinality: 2 }]',
        'scenarios:',
        '  - name: beat',
        `    sink: { type: http_push, url: "${receiver.url}/ingest", max_buffer_age: 1h, batch_size: 16777216 }`,
        '  - name: tick',
        `    sink: { type: file, path: "${progress}" }`,
        '',
      ].join('\n'),
    );
    const before = threads();
    const run = svc(['run', file, '--workers', '2']);
    await waitFor('both workers writing', () => {
      const text = readFileSync(progress, { encoding: 'utf8', flag: 'a+' });
      return /pod_0/.test(text) && /pod_1/.test(text) && inspector.started().length === 2 ? true : undefined;
    });
    expect(receiver.requests).to.have.length(0);
    inspector.evaluate(2, "setImmediate(() => { throw new Error('a fault in the thread') }); 0");
    const { code, stderr } = await run;

    expect(code, stderr).to.equal(1);
    // The STOPPED line names the error, the error line points to it (said once).
    for (const entry of ['beat', 'tick']) {
      expect(stderr).to.match(
        new RegExp(
          `^\\[progress\\] ${entry} +STOPPED \\(error: worker 2 of 2 failed: a fault in the thread\\) \\|`,
          'm',
        ),
      );
      expect(lines(stderr)).to.include(`error: ${entry}: it failed (the error is on its STOPPED line above)`);
    }
    // Worker 1 flushed at the stop: its pod's events, in order from the first, none missing.
    const beats = receiver.accepted.flatMap((request) => lines(request.body));
    expect(beats.length).to.be.greaterThan(0);
    const pods = new Set(beats.map((line) => /pod="([^"]+)"/.exec(line)![1]));
    expect(pods.size).to.equal(1);
    const values = beats.map((line) => Number(line.split(' ')[1]));
    const step = values[1]! - values[0]!;
    values.forEach((value, n) => expect(value).to.equal(values[0]! + n * step));
    await waitFor('the worker threads gone', () => (threads() === before ? true : undefined));
  });
});
