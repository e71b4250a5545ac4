import { expect } from 'chai';
import { runUntilTerm, stoppedEvents, svc, scenarioDir, foreverScenario } from '../support/cli.js';
import { startHttpReceiver } from '../support/backends/http-receiver.js';
import { startLokiReceiver } from '../support/backends/loki-receiver.js';
import { freeTcpPort } from '../support/backends/ports.js';
import { startTcpPeer } from '../support/backends/tcp-peer.js';

const { scenario } = scenarioDir('svc-net-cli-');

/** A file whose one entry writes to a tcp port where nothing listens. */
function downTcp(port: number, extra = '', defaults = ''): string {
  return scenario(
    `down-${port}-${Math.random().toString(36).slice(2)}.yaml`,
    `version: 2
kind: runnable
${defaults}scenarios:
  - signal_type: metrics
    name: beat
    rate: 50
    duration: 400ms
    generator: { type: constant, value: 1 }
    sink: { type: tcp, address: "127.0.0.1:${port}", retry: { max_attempts: 2, initial_backoff: 10ms, max_backoff: 10ms } }
${extra}`,
  );
}

const refused = (port: number) =>
  `tcp sink: connection refused by 127.0.0.1:${port}: is the backend running, and is 127.0.0.1:${port} the right port? (gave up after 2 attempts)`;

describe('svc run with a network sink whose destination is down', () => {
  it('under on_sink_error: fail exits 1, the STOPPED line naming the sink error, said once', async () => {
    const port = await freeTcpPort();
    const result = await svc(['run', downTcp(port, '    on_sink_error: fail\n')]);
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stderr).to.match(
      new RegExp(`\\[progress\\] beat  STOPPED \\(sink: ${escapedForRegExp(refused(port))}\\) \\| events: \\d+`),
    );
    expect(result.stderr.split(refused(port)), result.stderr).to.have.length(2);
    expect(result.stderr.trimEnd().split('\n').at(-1)).to.equal(
      'error: beat: its sink failed (the error is on its STOPPED line above)',
    );
  });

  it('takes fail from defaults and from --on-sink-error too', async () => {
    const port = await freeTcpPort();
    const fromDefaults = await svc(['run', downTcp(port, '', 'defaults: { on_sink_error: fail }\n')]);
    const fromFlag = await svc(['run', downTcp(port), '--on-sink-error', 'fail']);
    expect([fromDefaults.code, fromFlag.code]).to.deep.equal([1, 1]);
    expect(fromFlag.stderr).to.include(`STOPPED (sink: ${refused(port)})`);
  });

  it('under warn runs to the end and exits 1: the sink never delivered anything; its error is said once, on the STOPPED line', async () => {
    const port = await freeTcpPort();
    const result = await svc(['run', downTcp(port)]);
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stderr).to.include(`STOPPED (sink: ${refused(port)}) | events: 20 |`);
    expect(result.stderr.split(refused(port)), result.stderr).to.have.length(2);
    expect(result.stderr).not.to.include('[warn]');
    expect(result.stderr.trimEnd().split('\n').at(-1)).to.equal(
      'error: beat: nothing was delivered (the sink error is on its STOPPED line above)',
    );
  });

  it('with --quiet (no STOPPED line) says the sink error once, on the error line', async () => {
    const port = await freeTcpPort();
    for (const policy of ['warn', 'fail']) {
      const result = await svc(['run', downTcp(port), '--quiet', '--on-sink-error', policy]);
      expect(result.code, result.stderr).to.equal(1);
      expect(result.stderr.trimEnd()).to.equal(
        policy === 'warn' ? `error: beat: nothing was delivered (${refused(port)})` : `error: beat: ${refused(port)}`,
      );
    }
  });

  it('under warn exits 0 when the sink delivered before it failed, the STOPPED line naming the failure', async () => {
    const peer = await startTcpPeer();
    const file = scenario(
      `flaky-${peer.port}.yaml`,
      `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: beat
    rate: 50
    duration: 600ms
    generator: { type: constant, value: 1 }
    sink: { type: tcp, address: "127.0.0.1:${peer.port}", retry: { max_attempts: 2, initial_backoff: 10ms, max_backoff: 10ms } }
`,
    );
    const poll = setInterval(() => {
      if (peer.connections[0]?.includes('\n')) {
        clearInterval(poll);
        void peer.down();
      }
    }, 10);
    try {
      const result = await svc(['run', file]);
      expect(peer.connections[0], 'delivered before the peer went down').to.include('beat 1 ');
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.match(/\[progress\] beat {2}STOPPED \(sink: tcp sink: .+\) \| events: 30 \|/);
      expect(result.stderr).to.not.include('error:');
    } finally {
      clearInterval(poll);
      await peer.stop();
    }
  });
});

describe('SIGTERM during a run into a batching sink (bin/svc as a process)', function () {
  this.timeout(20_000);

  const forever = (sink: string) =>
    foreverScenario(scenario, sink, { rate: 5000, pods: 3, extra: ['labels: { job: svc }'] });

  it('http_push: every event counted as written is received', async () => {
    const receiver = await startHttpReceiver();
    try {
      const file = forever(`{ type: http_push, url: "${receiver.url}/import", batch_size: 2048 }`);
      const { code, stderr } = await runUntilTerm(file, () => receiver.accepted.length >= 5);
      expect(code, stderr).to.equal(0);
      const lines = receiver.text().split('\n').filter(Boolean);
      expect(lines).to.have.length(stoppedEvents(stderr));
      lines.forEach((line, n) =>
        expect(line).to.match(new RegExp(`^beat\\{job="svc",pod="pod_${n % 3}"\\} ${n} \\d+$`)),
      );
    } finally {
      await receiver.stop();
    }
  });

  it('logstore: every event counted as written is received', async () => {
    const receiver = await startLokiReceiver();
    try {
      const file = forever(`{ type: logstore, url: "${receiver.url}" }`);
      const { code, stderr } = await runUntilTerm(file, () => receiver.pushes.length >= 5);
      expect(code, stderr).to.equal(0);
      expect(receiver.entries).to.have.length(stoppedEvents(stderr));
      const values = receiver.entries.map((e) => Number(e.line.split(' ')[1])).sort((a, b) => a - b);
      values.forEach((value, n) => expect(value).to.equal(n));
    } finally {
      await receiver.stop();
    }
  });
});

function escapedForRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
