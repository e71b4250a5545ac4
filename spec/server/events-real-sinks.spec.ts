import { expect } from 'chai';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { uncompress } from 'snappyjs';
import { writeRequestMessages } from '../../lib/protocols/remote-write.js';
import { startHttpReceiver } from '../support/backends/http-receiver.js';
import { startOtlpReceiver } from '../support/backends/otlp-receiver.js';
import { testServer } from '../support/server.js';
import { fileSink } from '../../lib/sinks/file.js';
import { chunk } from '../support/batches.js';
import { temporaryDirectory } from '../support/directories.js';

/** `POST /events` through the app with the sinks the route builds itself (no injected sink). */
function post(
  server: ReturnType<typeof testServer>,
  sink: Record<string, unknown>,
  value = 1,
  encoder = 'metrics_text',
) {
  const body = {
    signal_type: 'metrics',
    labels: { env: 'ci' },
    metric: { name: 'deploys_total', value },
    encoder: { type: encoder },
    sink,
  };
  return server.postJson('/events', body);
}

describe('POST /events with real sinks', () => {
  let dir: string;
  let server: ReturnType<typeof testServer>;
  beforeEach(async () => {
    dir = await realpath(temporaryDirectory('svc-events-route-'));
    // File sinks of requests write only below the server's file root.
    server = testServer({ deps: { createSink: undefined, fileRoot: dir } });
  });

  it('a file sink appends each event to the file, never emptying it', async () => {
    const path = join(dir, 'events.prom');
    await writeFile(path, '# kept\n');
    for (const value of [1, 2, 3]) expect((await post(server, { type: 'file', path }, value)).statusCode).to.equal(200);
    expect(await readFile(path, 'utf8')).to.equal(
      '# kept\ndeploys_total{env="ci"} 1 0\ndeploys_total{env="ci"} 2 0\ndeploys_total{env="ci"} 3 0\n',
    );
  });

  it('an openmetrics event appended to a file ending with # EOF (a scenario wrote it) cuts it and ends the file with it', async () => {
    // Before, the event's lines went after the `# EOF`, where Prometheus' parser stops (`promtool tsdb
    // create-blocks-from openmetrics`: "unexpected data after # EOF"), and the file ended without one.
    const path = join(dir, 'events.om');
    await writeFile(path, '# TYPE jobs gauge\njobs 1 0\n# EOF\n');
    for (const value of [2, 3])
      expect((await post(server, { type: 'file', path }, value, 'openmetrics')).statusCode).to.equal(200);
    const text = await readFile(path, 'utf8');
    expect(text.match(/# EOF\n/g), text).to.have.length(1);
    expect(text, text).to.match(
      /^# TYPE jobs gauge\njobs 1 0\n# TYPE deploys_total unknown\n(deploys_total\{env="ci"\} [23] 0\n){2}# EOF\n$/,
    );
  });

  it('an openmetrics event to stdout writes no # EOF after itself: nothing would cut it before the next', async () => {
    const written: string[] = [];
    const write = process.stdout.write;
    // Taken as written at once, its callback called: what a sink on stdout writes, without mocha's output.
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(String(chunk));
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (done) process.nextTick(done);
      return true;
    }) as typeof write;
    try {
      for (const value of [1, 2])
        expect((await post(server, { type: 'stdout' }, value, 'openmetrics')).statusCode).to.equal(200);
    } finally {
      process.stdout.write = write;
    }
    expect(written.join('')).to.equal(
      '# TYPE deploys_total unknown\ndeploys_total{env="ci"} 1 0\n# TYPE deploys_total unknown\ndeploys_total{env="ci"} 2 0\n',
    );
  });

  it('a json_lines event onto a file an openmetrics sink writes now is refused, 422 naming sink.path, the file left as it is', async () => {
    // A scenario of this server writing the exposition: before, the event's line went into it, and the file's
    // trailer handling followed whichever sink opened first.
    const path = join(dir, 'run.om');
    const scenario = fileSink({ path, realPath: true, encoder: 'openmetrics', trailer: '# EOF\n' });
    scenario.write(chunk('jobs 1 0\n'));
    try {
      const res = await post(server, { type: 'file', path }, 1, 'json_lines');
      expect(res.statusCode, res.body).to.equal(422);
      expect(res.json().error).to.equal('file_sink_cannot_open');
      expect(res.json().detail).to.equal(
        `sink.path: cannot open ${path}: another sink of this process writes it now as openmetrics, and json_lines cannot share a file with it: a file of openmetrics holds nothing but its lines up to its "# EOF". Give this sink another path, or write into it once the other is done`,
      );
      // An openmetrics event joins it.
      expect((await post(server, { type: 'file', path }, 2, 'openmetrics')).statusCode).to.equal(200);
    } finally {
      await scenario.close();
    }
    expect(await readFile(path, 'utf8')).to.equal(
      'jobs 1 0\n# TYPE deploys_total unknown\ndeploys_total{env="ci"} 2 0\n# EOF\n',
    );
  });

  it('a file sink into a missing directory is refused, 422 naming sink.path and the directory', async () => {
    const path = join(dir, 'missing', 'events.prom');
    const res = await post(server, { type: 'file', path });
    expect(res.statusCode).to.equal(422);
    expect(res.json()).to.deep.equal({
      error: 'file_sink_cannot_open',
      detail: `sink.path: cannot open ${path}: the directory ${join(dir, 'missing')} does not exist`,
    });
  });

  it('a udp sink whose host does not resolve answers 502, and the server keeps serving', async () => {
    const res = await post(server, { type: 'udp', address: 'no-such-host.invalid:9' });
    expect(res.statusCode).to.equal(502);
    expect(res.json()).to.deep.equal({
      error: 'sink_failed',
      detail: 'udp sink: cannot resolve host "no-such-host.invalid": check the host name in the address',
    });
    expect((await server.request({ method: 'GET', url: '/health' })).statusCode).to.equal(200);
  });

  it("a remote_write sink delivers the sample before answering, and a refusal answers 502 with the receiver's reason", async () => {
    const receiver = await startHttpReceiver();
    try {
      const sink = { type: 'remote_write', url: `${receiver.url}/api/v1/write` };
      expect((await post(server, sink, 7, 'remote_write')).statusCode).to.equal(200);
      const { WriteRequest } = writeRequestMessages();
      const written = WriteRequest.toObject(WriteRequest.decode(uncompress(receiver.accepted[0]!.raw)), {
        defaults: true,
      }) as {
        timeseries: { labels: { name: string; value: string }[]; samples: { value: number }[] }[];
      };
      expect(
        written.timeseries.map((ts) => [ts.labels.map((l) => `${l.name}=${l.value}`), ts.samples.map((x) => x.value)]),
      ).to.deep.equal([[['__name__=deploys_total', 'env=ci'], [7]]]);

      receiver.answer(() => ({ status: 400, body: 'out of order sample' }));
      const refused = await post(server, sink, 8, 'remote_write');
      expect(refused.statusCode).to.equal(502);
      expect(refused.json().detail).to.match(
        /^remote_write sink: POST .* answered 400 Bad Request: "out of order sample"; the receiver refuses samples older/,
      );
    } finally {
      await receiver.stop();
    }
  });

  it('an otlp_grpc sink delivers the event before answering, as a LogRecord of a logs event', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const body = {
        signal_type: 'logs',
        labels: { app: 'api' },
        log: { severity: 'error', message: 'payment failed' },
        encoder: { type: 'otlp' },
        sink: { type: 'otlp_grpc', endpoint: receiver.grpcAddress },
      };
      const res = await server.request({
        method: 'POST',
        url: '/events',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      expect(res.statusCode, res.body).to.equal(200);
      const [record] = receiver.received[0]!.request.resource_logs[0].scope_logs[0].log_records;
      expect(record).to.deep.include({
        severity_number: 'SEVERITY_NUMBER_ERROR',
        severity_text: 'error',
        body: { string_value: 'payment failed' },
      });
    } finally {
      await receiver.stop();
    }
  });
});
