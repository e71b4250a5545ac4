import { expect } from 'chai';
import { chunk } from '../support/batches.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SinkConfig } from '../../lib/config/types.js';
import { createSink } from '../../lib/sinks/index.js';
import { slowWritable } from '../support/streams.js';
import { temporaryDirectory } from '../support/directories.js';

describe('createSink', () => {
  it('builds a stdout sink over the given stream', async () => {
    const { stream, received } = slowWritable(0, 1024);
    const sink = createSink({ type: 'stdout' }, { stdout: stream });
    sink.write(chunk('hello\n'));
    await sink.close();
    expect(received).to.deep.equal(['hello\n']);
  });

  it('builds a file sink', async () => {
    const dir = temporaryDirectory('svc-create-sink-');
    const path = join(dir, 'out.txt');
    const sink = createSink({ type: 'file', path });
    sink.write(chunk('hello\n'));
    await sink.close();
    expect(await readFile(path, 'utf8')).to.equal('hello\n');
  });

  const network: SinkConfig[] = [
    { type: 'tcp', address: 'localhost:9000', retry: { max_attempts: 1 } },
    { type: 'udp', address: 'localhost:9000' },
    {
      type: 'http_push',
      url: 'http://localhost',
      content_type: 'text/plain',
      batch_size: 512,
      headers: { 'X-Scope-OrgID': 'a' },
    },
    { type: 'logstore', url: 'http://localhost', max_streams_per_push: 4 },
    { type: 'remote_write', url: 'http://localhost/api/v1/write', batch_size: 100, max_buffer_age: 0 },
    { type: 'otlp_grpc', endpoint: 'localhost:4317', signal_type: 'metrics', compression: 'gzip' },
    { type: 'otlp_http', url: 'http://localhost:4318', signal_type: 'logs', resource: { 'service.name': 'x' } },
    { type: 'broker', brokers: ['localhost:9092'], topic: 't' },
  ];
  for (const config of network) {
    it(`builds a ${config.type} sink that reports deliveries, without connecting before the first write`, async () => {
      const sink = createSink(config);
      expect(sink.reports).to.not.equal(undefined);
      await sink.close();
    });
  }
});
