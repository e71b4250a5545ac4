import { expect } from 'chai';
import { asyncScheduler } from 'rxjs';
import { createSink } from '../../lib/sinks/index.js';
import { testServer } from '../support/server.js';
import { startLokiReceiver } from '../support/backends/loki-receiver.js';
import { freeTcpPort, waitFor } from '../support/backends/ports.js';
import { startTcpPeer } from '../support/backends/tcp-peer.js';

/** A server whose events go through the real sinks, stamped with the real time (stores refuse 1970). */
const realSinks = () => testServer({ deps: { createSink: (config) => createSink(config), scheduler: asyncScheduler } });

function post(server: ReturnType<typeof testServer>, sink: Record<string, unknown>) {
  const body = {
    signal_type: 'logs',
    labels: { app: 'shop', env: 'prod' },
    log: { severity: 'warn', message: 'disk almost full', fields: { disk: 'sda' } },
    encoder: { type: 'json_lines' },
    sink,
  };
  return server.postJson('/events', body);
}

describe('POST /events through the network sinks', () => {
  it('logstore: answers 200 once the store took the line, in the stream of the event labels', async () => {
    const receiver = await startLokiReceiver({ requireTenant: true });
    try {
      const res = await post(realSinks(), {
        type: 'logstore',
        url: receiver.url,
        headers: { 'X-Scope-OrgID': 'shop' },
      });
      expect(res.statusCode, res.body).to.equal(200);
      expect(receiver.entries).to.have.length(1);
      expect(receiver.entries[0]).to.deep.include({ labels: { app: 'shop', env: 'prod' }, tenant: 'shop' });
      expect(JSON.parse(receiver.entries[0]!.line)).to.include({ severity: 'warn', message: 'disk almost full' });
    } finally {
      await receiver.stop();
    }
  });

  it('tcp: answers 200 once the line was handed over', async () => {
    const peer = await startTcpPeer();
    try {
      const res = await post(realSinks(), { type: 'tcp', address: `127.0.0.1:${peer.port}` });
      expect(res.statusCode, res.body).to.equal(200);
      await waitFor('the line at the peer', () => (peer.connections[0]?.endsWith('\n') ? true : undefined));
      expect(JSON.parse(peer.connections[0]!)).to.include({ message: 'disk almost full' });
    } finally {
      await peer.stop();
    }
  });

  it('502 with the sink message when the destination is down', async () => {
    const port = await freeTcpPort();
    const res = await post(realSinks(), {
      type: 'http_push',
      url: `http://127.0.0.1:${port}/ingest`,
      retry: { max_attempts: 1 },
    });
    expect(res.statusCode).to.equal(502);
    expect(res.json()).to.deep.equal({
      error: 'sink_failed',
      detail: `http_push sink: connection refused by 127.0.0.1:${port}: is the backend running, and is 127.0.0.1:${port} the right port?`,
    });
  });
});
