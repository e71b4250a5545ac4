import { expect } from 'chai';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { createSink } from '../../lib/sinks/index.js';
import { testServer } from '../support/server.js';
import { startRemoteWriteV2Receiver } from '../support/backends/remote-write-v2-receiver.js';
import { temporaryDirectory } from '../support/directories.js';

const logEvent = (fields: Record<string, unknown> = {}) => ({
  signal_type: 'logs',
  labels: { app: 'shop' },
  log: { severity: 'warn', message: 'disk almost full', fields: { disk: 'sda' } },
  encoder: { type: 'json_lines' },
  sink: { type: 'stdout' },
  ...fields,
});
const metricEvent = (fields: Record<string, unknown> = {}) => ({
  signal_type: 'metrics',
  labels: {},
  metric: { name: 'deploys_total', value: 3 },
  encoder: { type: 'metrics_text' },
  sink: { type: 'stdout' },
  ...fields,
});

async function send(body: unknown, server = testServer(), raw?: string) {
  return server.postJson('/events', body, raw);
}

function expectError(
  res: { statusCode: number; body: string; json(): any },
  status: number,
  code: string,
  detail: RegExp,
) {
  expect(res.statusCode, res.body).to.equal(status);
  expect(Object.keys(res.json()).sort()).to.deep.equal(['detail', 'error']);
  expect(res.json().error).to.equal(code);
  expect(res.json().detail).to.match(detail);
}

describe('POST /events', () => {
  it('encodes a log record, pushes it through its sink, flushes, answers sent', async () => {
    const server = testServer();
    const res = await send(logEvent(), server);
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.have.keys('sent', 'signal_type', 'latency_ms');
    expect(res.json()).to.include({ sent: true, signal_type: 'logs' });
    expect(res.json().latency_ms).to.be.a('number');
    expect(JSON.parse(server.sinks[0]!.text)).to.deep.equal({
      timestamp: '1970-01-01T00:00:00.000Z',
      severity: 'warn',
      message: 'disk almost full',
      labels: { app: 'shop' },
      fields: { disk: 'sda' },
    });
    expect(server.sinks[0]!.closed).to.equal(true);
  });

  it('writes a metric sample in the wire shape of its encoder, into a real file sink', async () => {
    const root = realpathSync(temporaryDirectory('svc-events-'));
    const path = join(root, 'out.prom');
    const server = testServer({ deps: { createSink: (config) => createSink(config), fileRoot: root } });
    const res = await send(metricEvent({ sink: { type: 'file', path }, labels: { env: 'prod' } }), server);
    expect(res.statusCode).to.equal(200);
    expect(readFileSync(path, 'utf8')).to.equal('deploys_total{env="prod"} 3 0\n');
  });

  it('sends a metric sample to a remote write 2.0 receiver as a 2.0 request', async () => {
    const receiver = await startRemoteWriteV2Receiver();
    try {
      const server = testServer({ deps: { createSink: (config) => createSink(config) } });
      const res = await send(
        metricEvent({
          labels: { env: 'prod' },
          encoder: { type: 'remote_write' },
          sink: { type: 'remote_write', url: receiver.url, protocol: '2.0' },
        }),
        server,
      );
      expect(res.statusCode, res.body).to.equal(200);
      expect(receiver.v1).to.have.length(0);
      const [series] = receiver.v2.flatMap((request) => request.series);
      expect(series!.labels).to.deep.equal({ __name__: 'deploys_total', env: 'prod' });
      expect(series!.samples.map((sample) => sample.value)).to.deep.equal([3]);
    } finally {
      await receiver.stop();
    }
  });

  it('adds warnings for loopback sink addresses, and only then', async () => {
    const res = await send(logEvent({ sink: { type: 'tcp', address: 'localhost:514' } }));
    expect(res.json().warnings[0]).to.match(/localhost:514.*loopback/);
  });

  it('400: malformed JSON, unknown signal_type, missing branch or field, unknown encoder or sink type', async () => {
    expectError(await send(undefined, testServer(), '{"signal_type": "logs",'), 400, 'malformed_body', /not valid/);
    expectError(
      await send(logEvent({ signal_type: 'traces' })),
      400,
      'unknown_signal_type',
      /signal_type: expected logs or metrics, got "traces"/,
    );
    expectError(await send(logEvent({ log: undefined })), 400, 'invalid_event', /log: missing required field/);
    expectError(await send(metricEvent({ labels: undefined })), 400, 'invalid_event', /labels: missing required field/);
    expectError(
      await send(logEvent({ encoder: { type: 'yaml' } })),
      400,
      'unknown_encoder',
      /encoder\.type: expected one of/,
    );
    expectError(
      await send(logEvent({ sink: { type: 'carrier_pigeon' } })),
      400,
      'unknown_sink',
      /sink\.type: expected one of/,
    );
    // The aliases the scenario language accepts are named, and the closest name to a typo.
    expectError(
      await send(logEvent({ sink: { type: 'lokki' } })),
      400,
      'unknown_sink',
      /^sink\.type: expected one of stdout, .*, broker \(or loki for logstore, kafka for broker\), got "lokki"; did you mean loki\?$/,
    );
  });

  it('400: an unknown signal_type, encoder.type or sink.type is quoted as every message quotes a value: cut to 60 characters', async () => {
    const long = 'x'.repeat(10_000);
    const cut = `"${'x'.repeat(57)}..."`;
    for (const [event, code, field] of [
      [logEvent({ signal_type: long }), 'unknown_signal_type', 'signal_type: expected logs or metrics'],
      [logEvent({ encoder: { type: long } }), 'unknown_encoder', 'encoder.type: expected one of'],
      [logEvent({ sink: {} }), 'unknown_sink', 'sink.type: expected one of'],
    ] as const) {
      const res = await send(event);
      expectError(res, 400, code, new RegExp(`^${field.replace('.', '\\.')}`));
      expect(res.json().detail).to.match(field.startsWith('sink') ? /, got nothing$/ : new RegExp(`, got ${cut}$`));
    }
  });

  it('422: an event without labels into a logstore sink (the store refuses a stream without labels), naming labels', async () => {
    const server = testServer();
    for (const event of [
      logEvent({ labels: {}, sink: { type: 'loki', url: 'http://loki.example:3100/loki/api/v1/push' } }),
      metricEvent({ sink: { type: 'logstore', url: 'http://loki.example:3100/loki/api/v1/push' } }),
    ])
      expectError(
        await send(event, server),
        422,
        'validation_failed',
        /^labels: the logstore sink needs at least one label .*e\.g\. labels: \{job: <name>\}$/,
      );
    expect(server.sinks).to.have.length(0);
  });

  it('422: a label its encoder cannot write (influx_lp: time), or a sink url it cannot write to, naming the field, as in a scenario entry', async () => {
    const server = testServer();
    expectError(
      await send(metricEvent({ labels: { time: 'now' }, encoder: { type: 'influx_lp' } }), server),
      422,
      'validation_failed',
      /^labels\.time: not allowed with the influx_lp encoder \(InfluxDB refuses a point with a tag or field named time\)/,
    );
    expectError(
      await send(
        metricEvent({
          encoder: { type: 'influx_lp' },
          sink: { type: 'http_push', url: 'http://influx:8086/write?db=svc&precision=s' },
        }),
        server,
      ),
      422,
      'validation_failed',
      /^sink\.url: precision=s: influx_lp writes timestamps in nanoseconds/,
    );
    expect(server.sinks).to.have.length(0);
  });

  it('422: invalid metric name, severity, sink settings, pairings and features not built in', async () => {
    expectError(
      await send(metricEvent({ metric: { name: '9lives', value: 1 } })),
      422,
      'validation_failed',
      /metric\.name: expected a name matching/,
    );
    expectError(
      await send(logEvent({ log: { severity: 'WARN', message: 'x' } })),
      422,
      'validation_failed',
      /log\.severity/,
    );
    expectError(
      await send(logEvent({ sink: { type: 'tcp', address: 'syslog:514', retry: { max_attempts: 0 } } })),
      422,
      'validation_failed',
      /sink\.retry\.max_attempts/,
    );
    expectError(
      await send(logEvent({ encoder: { type: 'metrics_text' } })),
      422,
      'validation_failed',
      /encoder\.type: metrics_text cannot encode a logs entry/,
    );
    expectError(
      await send(metricEvent({ encoder: { type: 'otlp' } })),
      422,
      'validation_failed',
      /encoder\.type: the otlp encoder needs the otlp_grpc or otlp_http sink, got sink/,
    );
    expectError(
      await send(
        metricEvent({
          encoder: { type: 'otlp' },
          sink: { type: 'otlp_http', url: 'http://c:4318', signal_type: 'logs' },
        }),
      ),
      422,
      'validation_failed',
      /sink\.signal_type: expected metrics/,
    );
  });

  it('502 when the destination fails', async () => {
    const server = testServer({ failingSink: new Error('tcp sink: connection refused by 127.0.0.1:9') });
    expectError(await send(logEvent(), server), 502, 'sink_failed', /connection refused/);
  });

  it('500 when the encoder fails unexpectedly', async () => {
    // A number that cannot be written is not a validation error: only a broken encoder fails here.
    const server = testServer({ deps: { scheduler: { now: () => 8.64e15 + 1, schedule: () => undefined as never } } });
    expectError(await send(logEvent(), server), 500, 'encoder_failed', /json_lines/);
  });
});
