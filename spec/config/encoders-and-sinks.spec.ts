import { expect } from 'chai';
import { isRight } from 'fp-ts/lib/Either.js';
import { sinkCodec } from '../../lib/sinks/kinds/index.js';
import { entryOf, entryProblems, histogram, load, logs, metric, summary, v2 } from '../support/scenarios.js';

/** A sink as its codec decodes it, before the entry rules. */
function decodedSink(sink: unknown): unknown {
  const decoded = sinkCodec.validate(sink, []);
  if (!isRight(decoded)) expect.fail(`sink did not decode: ${JSON.stringify(decoded.left.map((e) => e.message))}`);
  return decoded.right;
}

describe('encoder', () => {
  it('defaults to metrics_text, json_lines for logs', () => {
    expect(entryOf(metric()).encoder).to.deep.equal({ type: 'metrics_text' });
    expect(entryOf(histogram()).encoder).to.deep.equal({ type: 'metrics_text' });
    expect(entryOf(logs()).encoder).to.deep.equal({ type: 'json_lines' });
  });

  it('defaults to the only encoder a remote_write, otlp_grpc or otlp_http sink speaks', () => {
    expect(
      entryOf(metric({ sink: { type: 'remote_write', url: 'http://prom:9090/api/v1/write' } })).encoder,
    ).to.deep.equal({ type: 'remote_write' });
    expect(entryOf(logs({ sink: { type: 'otlp_grpc', endpoint: 'collector:4317' } })).encoder).to.deep.equal({
      type: 'otlp',
    });
    expect(entryOf(metric({ sink: { type: 'otlp_http', url: 'http://collector:4318' } })).encoder).to.deep.equal({
      type: 'otlp',
    });
  });

  it('keeps the parameters of each encoder', () => {
    expect(entryOf(metric({ encoder: { type: 'metrics_text', precision: 2 } })).encoder).to.deep.equal({
      type: 'metrics_text',
      precision: 2,
    });
    expect(entryOf(metric({ encoder: { type: 'json_lines', precision: 0 } })).encoder).to.deep.equal({
      type: 'json_lines',
      precision: 0,
    });
    const syslog = { type: 'syslog', hostname: 'web-1', app_name: 'svc', facility: 'local3' };
    expect(entryOf(logs({ encoder: syslog })).encoder).to.deep.equal(syslog);
  });

  it('checks encoder parameters', () => {
    expect(entryProblems(metric({ encoder: { type: 'metrics_text', precision: -1 } }))).to.deep.equal([
      'scenarios[0] (cpu): encoder.precision: expected an integer from 0 to 100, got -1',
    ]);
    expect(entryProblems(logs({ encoder: { type: 'syslog', facility: 'local9', app_name: 'my app' } }))).to.deep.equal([
      'scenarios[0] (app): encoder.facility: expected one of kern, user, mail, daemon, auth, syslog, lpr, news, uucp, cron, authpriv, ftp, ntp, audit, alert, clock, local0, local1, local2, local3, local4, local5, local6, local7, got "local9"',
      'scenarios[0] (app): encoder.app_name: expected printable ASCII without spaces, 1 to 48 characters, got "my app"',
    ]);
    expect(
      entryProblems(
        metric({ encoder: { type: 'remote_write', precision: 1 }, sink: { type: 'remote_write', url: 'http://x' } }),
      ),
    ).to.deep.equal(['scenarios[0] (cpu): encoder.precision: unknown field (allowed: type)']);
  });

  it("takes the otlp encoder's temporality, cumulative or delta, and names the field when it is neither", () => {
    const otlp = (temporality: unknown) =>
      metric({ encoder: { type: 'otlp', temporality }, sink: { type: 'otlp_http', url: 'http://collector:4318' } });
    expect(entryOf(otlp('delta')).encoder).to.deep.equal({ type: 'otlp', temporality: 'delta' });
    expect(entryProblems(otlp('weekly'))).to.deep.equal([
      'scenarios[0] (cpu): encoder.temporality: expected one of cumulative, delta, got "weekly"',
    ]);
  });

  it('names the allowed types', () => {
    expect(entryProblems(metric({ encoder: { type: 'prometheus' } }))).to.deep.equal([
      'scenarios[0] (cpu): encoder.type: expected one of metrics_text, json_lines, syslog, remote_write, otlp, influx_lp, openmetrics, zipkin_json (or prometheus_text for metrics_text), got "prometheus"',
    ]);
  });

  it('names the allowed types and aliases when the type is not a string', () => {
    expect(entryProblems(metric({ encoder: { type: ['metrics_text'] } }))).to.deep.equal([
      'scenarios[0] (cpu): encoder.type: invalid type: expected one of metrics_text, json_lines, syslog, remote_write, otlp, influx_lp, openmetrics, zipkin_json (or prometheus_text for metrics_text), got a list',
    ]);
  });

  describe('pairing with the sink and the signal', () => {
    it('remote_write encoder only with the remote_write sink, and back', () => {
      expect(entryProblems(metric({ encoder: { type: 'remote_write' } }))).to.deep.equal([
        'scenarios[0] (cpu): encoder.type: the remote_write encoder needs the remote_write sink, got sink stdout',
      ]);
      expect(
        entryProblems(metric({ encoder: { type: 'metrics_text' }, sink: { type: 'remote_write', url: 'http://x' } })),
      ).to.deep.equal([
        'scenarios[0] (cpu): sink.type: the remote_write sink needs the remote_write encoder, got encoder metrics_text',
      ]);
    });

    it('otlp encoder only with the otlp_grpc or otlp_http sink, and back', () => {
      expect(
        entryProblems(metric({ encoder: { type: 'otlp' }, sink: { type: 'file', path: '/tmp/x' } })),
      ).to.deep.equal([
        'scenarios[0] (cpu): encoder.type: the otlp encoder needs the otlp_grpc or otlp_http sink, got sink file',
      ]);
      expect(
        entryProblems(logs({ encoder: { type: 'json_lines' }, sink: { type: 'otlp_grpc', endpoint: 'c:4317' } })),
      ).to.deep.equal([
        'scenarios[0] (app): sink.type: the otlp_grpc sink needs the otlp encoder, got encoder json_lines',
      ]);
    });

    it('metrics_text cannot encode logs', () => {
      expect(entryProblems(logs({ encoder: { type: 'metrics_text' } }))).to.deep.equal([
        'scenarios[0] (app): encoder.type: metrics_text cannot encode a logs entry (use json_lines or syslog)',
      ]);
    });

    for (const make of [metric, histogram, summary]) {
      const signal = make().signal_type as string;
      it(`syslog cannot encode a ${signal} entry`, () => {
        expect(entryProblems(make({ id: 'e', encoder: { type: 'syslog' } }))).to.deep.equal([
          `scenarios[0] (e): encoder.type: syslog encodes logs only, not a ${signal} entry (use metrics_text or json_lines or influx_lp or openmetrics)`,
        ]);
      });
    }

    it('influx_lp refuses a url asking for a timestamp precision other than its nanoseconds, naming sink.url', () => {
      const influx = (url: string) => metric({ encoder: { type: 'influx_lp' }, sink: { type: 'http_push', url } });
      expect(entryProblems(influx('http://influx:8086/write?db=svc&precision=ms'))).to.deep.equal([
        'scenarios[0] (cpu): sink.url: precision=ms: influx_lp writes timestamps in nanoseconds, which InfluxDB would read in that unit and refuse (time outside range), and VictoriaMetrics drop; leave precision out or give precision=ns',
      ]);
      for (const url of [
        'http://influx:8086/write?db=svc',
        'http://i/write?precision=ns',
        'http://i/write?precision=n',
        // InfluxDB and VictoriaMetrics read an empty precision as none: nanoseconds.
        'http://i/write?db=svc&precision=',
      ])
        expect(entryOf(influx(url)).sink).to.include({ url });
      expect(entryOf(metric({ sink: { type: 'http_push', url: 'http://i/write?precision=ms' } })).sink).to.exist;
    });

    it('remote_write does not carry logs', () => {
      expect(entryProblems(logs({ sink: { type: 'remote_write', url: 'http://x' } }))).to.deep.equal([
        'scenarios[0] (app): sink.type: remote_write carries metrics only, not a logs entry',
      ]);
    });
  });
});

describe('sink', () => {
  const sinkOf = (sink: unknown, base = metric) => entryOf(base({ sink })).sink;
  /** A logs entry as a log store takes it: with a label. */
  const labelledLogs = (extra = {}) => logs({ labels: { job: 'app' }, ...extra });
  const sinkProblems = (sink: unknown) => entryProblems(metric({ sink }));

  it("takes other tools' names of kinds as aliases, held by their own names: kafka, loki, prometheus_text", () => {
    const entry = entryOf(
      metric({
        sink: { type: 'kafka', brokers: 'k:9092', topic: 't' },
        encoder: { type: 'prometheus_text', precision: 2 },
      }),
    );
    expect(entry.sink).to.deep.include({ type: 'broker', brokers: ['k:9092'], topic: 't' });
    expect(entry.encoder).to.deep.equal({ type: 'metrics_text', precision: 2 });
    expect(sinkOf({ type: 'loki', url: 'http://l:3100' }, labelledLogs)).to.deep.include({
      type: 'logstore',
      url: 'http://l:3100',
    });
    expect(sinkProblems({ type: 'kafka', brokers: 'k:9092' })).to.deep.equal([
      'scenarios[0] (cpu): sink.topic: missing required field',
    ]);
  });

  it('takes the aliases from flags too: --sink kafka --endpoint sets the brokers', () => {
    const file = load(v2([metric({ sink: { type: 'broker', brokers: 'old:1', topic: 't' } })]), {
      overrides: { sink: 'kafka', endpoint: 'new:9092' },
    });
    expect(file.scenarios[0]!.sink).to.deep.include({ type: 'broker', brokers: ['new:9092'], topic: 't' });
    expect(load(v2([metric()]), { overrides: { encoder: 'prometheus_text' } }).scenarios[0]!.encoder).to.deep.equal({
      type: 'metrics_text',
    });
  });

  it('defaults to stdout', () => expect(entryOf(metric()).sink).to.deep.equal({ type: 'stdout' }));

  it('keeps the fields of each sink type', () => {
    const sinks = [
      { type: 'stdout' },
      { type: 'file', path: '/tmp/out.prom' },
      { type: 'tcp', address: 'localhost:9000', retry: { max_attempts: 3 } },
      { type: 'udp', address: '[::1]:514' },
      {
        type: 'http_push',
        url: 'https://x/api',
        content_type: 'text/plain',
        batch_size: 512,
        headers: { 'X-Scope-OrgID': 't1' },
      },
    ];
    for (const sink of sinks) expect(sinkOf(sink)).to.deep.equal(sink);
    const logstore = { type: 'logstore', url: 'http://loki:3100', max_streams_per_push: 64, batch_size: 1000 };
    expect(sinkOf(logstore, labelledLogs)).to.deep.equal(logstore);
    const protocolSinks = [
      {
        type: 'otlp_grpc',
        endpoint: 'http://collector:4317',
        signal_type: 'metrics',
        batch_size: 10,
        compression: 'gzip',
        resource: { 'service.name': 'checkout' },
      },
      { type: 'otlp_http', url: 'http://collector:4318', signal_type: 'logs' },
      { type: 'broker', brokers: ['k1:9092', 'k2:9092'], topic: 'metrics', tls: { enabled: true, ca_cert: '/ca.pem' } },
      { type: 'remote_write', url: 'http://prom:9090/api/v1/write', batch_size: 100, retry: { max_attempts: 2 } },
    ];
    for (const sink of protocolSinks) expect(decodedSink(sink)).to.deep.equal(sink);
  });

  it('reads retry backoffs as milliseconds and orders them', () => {
    expect(
      sinkOf({ type: 'tcp', address: 'h:1', retry: { max_attempts: 5, initial_backoff: '100ms', max_backoff: '2s' } }),
    ).to.deep.equal({
      type: 'tcp',
      address: 'h:1',
      retry: { max_attempts: 5, initial_backoff: 100, max_backoff: 2_000 },
    });
    expect(
      sinkProblems({
        type: 'tcp',
        address: 'h:1',
        retry: { max_attempts: 5, initial_backoff: '2s', max_backoff: '1s' },
      }),
    ).to.deep.equal([
      'scenarios[0] (cpu): sink.retry.max_backoff: expected a duration no shorter than initial_backoff ("2s"), got "1s"',
    ]);
  });

  it('reads max_buffer_age as milliseconds, 0s (the age rule off) too, on every batching sink', () => {
    const batching = [
      { type: 'http_push', url: 'http://x/api' },
      { type: 'otlp_grpc', endpoint: 'collector:4317' },
      { type: 'otlp_http', url: 'http://collector:4318' },
      { type: 'broker', brokers: ['k1:9092'], topic: 'metrics' },
      { type: 'remote_write', url: 'http://prom:9090/api/v1/write' },
    ];
    for (const sink of batching)
      for (const [age, ms] of [
        ['0s', 0],
        ['250ms', 250],
      ] as const)
        expect(decodedSink({ ...sink, max_buffer_age: age }), `${sink.type} ${age}`).to.deep.equal({
          ...sink,
          max_buffer_age: ms,
        });
    expect(sinkOf({ type: 'logstore', url: 'http://loki:3100', max_buffer_age: '0s' }, labelledLogs)).to.deep.equal({
      type: 'logstore',
      url: 'http://loki:3100',
      max_buffer_age: 0,
    });
    expect(sinkProblems({ type: 'http_push', url: 'http://x/api', max_buffer_age: '-1s' })).to.have.length(1);
  });

  it('takes a tcp framing of lf or octet_counting and names the field for anything else', () => {
    expect(sinkOf({ type: 'tcp', address: 'h:1', framing: 'octet_counting' })).to.deep.equal({
      type: 'tcp',
      address: 'h:1',
      framing: 'octet_counting',
    });
    expect(sinkProblems({ type: 'tcp', address: 'h:1', framing: 'octet' })).to.deep.equal([
      'scenarios[0] (cpu): sink.framing: expected one of lf, octet_counting, got "octet"',
    ]);
  });

  it('refuses a logs entry without labels into the logstore sink, which the store would refuse push by push', () => {
    const sink = { type: 'logstore', url: 'http://loki:3100' };
    expect(entryProblems(logs({ sink }))).to.deep.equal([
      'scenarios[0] (app): labels: the logstore sink needs at least one label (the log store refuses a stream without labels): add one, e.g. labels: {job: <name>}',
    ]);
    expect(entryOf(logs({ sink, dynamic_labels: [{ key: 'pod', cardinality: 2 }] })).sink).to.deep.equal(sink);
    expect(entryOf(labelledLogs({ sink })).sink).to.deep.equal(sink);
  });

  it('refuses a logs entry into the logstore sink whose labels are all empty: an empty value is no label', () => {
    const sink = { type: 'logstore', url: 'http://loki:3100' };
    expect(entryProblems(logs({ sink, labels: { job: '' } }))).to.deep.equal([
      'scenarios[0] (app): labels: the logstore sink needs at least one label (the log store refuses a stream without labels; an empty value, as job has, is no label): add one, e.g. labels: {job: <name>}',
    ]);
    expect(entryOf(logs({ sink, labels: { job: 'app', env: '' } })).sink).to.deep.equal(sink);
  });

  it('refuses a logs entry into the logstore sink whose rotating labels can all be empty: its events would have none', () => {
    const sink = { type: 'logstore', url: 'http://loki:3100' };
    expect(entryProblems(logs({ sink, dynamic_labels: [{ key: 'pod', values: [''] }] }))).to.deep.equal([
      'scenarios[0] (app): labels: the logstore sink needs at least one label (the log store refuses a stream without labels; an empty value, as pod has, is no label): add one, e.g. labels: {job: <name>}',
    ]);
    expect(
      entryProblems(logs({ sink, labels: { job: '' }, dynamic_labels: [{ key: 'pod', values: ['', 'a'] }] })),
    ).to.deep.equal([
      'scenarios[0] (app): labels: the logstore sink needs a label on every event (the log store refuses a stream without labels, and the whole push it is in): pod can be empty, and an empty value is no label; add one that always has a value, e.g. labels: {job: <name>}',
    ]);
    // Another label that always has a value labels every stream.
    const pod = { key: 'pod', values: ['', 'a'] };
    expect(entryOf(logs({ sink, labels: { job: 'app' }, dynamic_labels: [pod] })).sink).to.deep.equal(sink);
    expect(entryOf(logs({ sink, dynamic_labels: [pod, { key: 'zone', values: ['a', 'b'] }] })).sink).to.deep.equal(
      sink,
    );
    expect(entryOf(logs({ sink, dynamic_labels: [pod, { key: 'zone', cardinality: 2 }] })).sink).to.deep.equal(sink);
  });

  it('refuses a logs entry into the logstore sink whose static label a rotating one of its key empties: the rotating one wins', () => {
    const sink = { type: 'logstore', url: 'http://loki:3100' };
    expect(
      entryProblems(logs({ sink, labels: { job: 'x' }, dynamic_labels: [{ key: 'job', values: [''] }] })),
    ).to.deep.equal([
      'scenarios[0] (app): labels: the logstore sink needs at least one label (the log store refuses a stream without labels; an empty value, as job has, is no label): add one, e.g. labels: {job: <name>}',
    ]);
    expect(
      entryProblems(logs({ sink, labels: { job: 'x' }, dynamic_labels: [{ key: 'job', values: ['', 'a'] }] })),
    ).to.deep.equal([
      'scenarios[0] (app): labels: the logstore sink needs a label on every event (the log store refuses a stream without labels, and the whole push it is in): job can be empty, and an empty value is no label; add one that always has a value, e.g. labels: {job: <name>}',
    ]);
    // A static label of another key still labels every stream.
    const job = { key: 'job', values: ['', 'a'] };
    expect(entryOf(logs({ sink, labels: { job: 'x', env: 'p' }, dynamic_labels: [job] })).sink).to.deep.equal(sink);
  });

  it('refuses a metrics, histogram or summary entry without labels into the logstore sink too: its lines go in streams of their labels', () => {
    const sink = { type: 'logstore', url: 'http://loki:3100' };
    const refusal =
      'labels: the logstore sink needs at least one label (the log store refuses a stream without labels): add one, e.g. labels: {job: <name>}';
    expect(entryProblems(metric({ sink }))).to.deep.equal([`scenarios[0] (cpu): ${refusal}`]);
    expect(entryProblems(histogram({ sink }))).to.deep.equal([`scenarios[0] (latency): ${refusal}`]);
    expect(entryProblems(summary({ sink }))).to.deep.equal([`scenarios[0] (latency): ${refusal}`]);
    expect(entryOf(metric({ sink, labels: { job: 'node' } })).sink).to.deep.equal(sink);
    // A pack's metrics bring their own labels.
    expect(entryOf({ signal_type: 'metrics', pack: 'node_basics', rate: 1, sink }).sink).to.deep.equal(sink);
  });

  it('rejects tcp retry max_attempts 0', () => {
    expect(sinkProblems({ type: 'tcp', address: 'localhost:9000', retry: { max_attempts: 0 } })).to.deep.equal([
      'scenarios[0] (cpu): sink.retry.max_attempts: expected an integer greater than 0, got 0',
    ]);
  });

  it('splits a comma-separated broker list and normalises the SASL mechanism', () => {
    expect(
      decodedSink({
        type: 'broker',
        brokers: 'k1:9092, k2:9092',
        topic: 't',
        sasl: { mechanism: 'SCRAM-SHA-512', username: 'u', password: 'p' },
      }),
    ).to.deep.equal({
      type: 'broker',
      brokers: ['k1:9092', 'k2:9092'],
      topic: 't',
      sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' },
    });
  });

  it('checks a given otlp_grpc signal_type against the entry', () => {
    expect(
      entryProblems(summary({ sink: { type: 'otlp_grpc', endpoint: 'c:4317', signal_type: 'logs' } })),
    ).to.deep.equal(['scenarios[0] (latency): sink.signal_type: expected metrics for a summary entry, got "logs"']);
    expect(
      entryProblems(logs({ sink: { type: 'otlp_grpc', endpoint: 'c:4317', signal_type: 'metrics' } })),
    ).to.deep.equal(['scenarios[0] (app): sink.signal_type: expected logs for a logs entry, got "metrics"']);
  });

  it('otlp_grpc: a header gRPC metadata cannot carry is refused at load, naming it, never its value', () => {
    const grpc = (headers: Record<string, string>) =>
      entryProblems(logs({ sink: { type: 'otlp_grpc', endpoint: 'c:4317', headers } }));
    expect(grpc({ 'x-tenant': 'équipe' })).to.deep.equal([
      'scenarios[0] (app): sink.headers["x-tenant"]: expected printable ASCII, which gRPC metadata carries (a value of other bytes needs a name ending in -bin)',
    ]);
    expect(grpc({ 'x!tenant': 'a' })).to.deep.equal([
      'scenarios[0] (app): sink.headers["x!tenant"]: expected a gRPC metadata name (letters, digits, _ . -), got "x!tenant"',
    ]);
    // HTTP/2 forbids connection headers: every call would hang to its deadline (any case: svc lowercases names).
    for (const name of ['Connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']) {
      const path = /^\w+$/.test(name) ? `.${name}` : `["${name}"]`;
      expect(grpc({ [name]: 'close' })).to.deep.equal([
        `scenarios[0] (app): sink.headers${path}: "${name}" is an HTTP/1 connection header, which HTTP/2 (gRPC) forbids: remove it`,
      ]);
    }
    // Bytes under -bin, any case of name (svc lowercases it), and HTTP takes what gRPC does not.
    expect(
      entryOf(
        logs({
          sink: { type: 'otlp_grpc', endpoint: 'c:4317', headers: { 'x-trace-bin': 'équipe', 'X-Scope-OrgID': 'a' } },
        }),
      ).sink,
    ).to.include({ type: 'otlp_grpc' });
    expect(
      entryOf(logs({ sink: { type: 'otlp_http', url: 'http://c:4318', headers: { 'x!tenant': 'a' } } })).sink,
    ).to.include({ type: 'otlp_http' });
  });

  it('checks addresses', () => {
    expect(sinkProblems({ type: 'tcp', address: 'localhost' })).to.deep.equal([
      'scenarios[0] (cpu): sink.address: expected host:port (port 1-65535), got "localhost"',
    ]);
    expect(sinkProblems({ type: 'udp', address: 'h:70000' })).to.deep.equal([
      'scenarios[0] (cpu): sink.address: expected host:port (port 1-65535), got "h:70000"',
    ]);
    expect(sinkProblems({ type: 'http_push', url: 'ftp://x' })).to.deep.equal([
      'scenarios[0] (cpu): sink.url: expected an http:// or https:// URL, got "ftp://x"',
    ]);
    // Sent decoded as Basic auth; Node's client would throw `URI malformed` at every request.
    expect(sinkProblems({ type: 'remote_write', url: 'http://u:50%off@h/write' })).to.deep.equal([
      'scenarios[0] (cpu): sink.url: expected a URL whose user name and password decode, got "http://u:***@h/write": a % there starts an escape such as %40 (@); write % itself as %25',
    ]);
    expect(sinkOf({ type: 'remote_write', url: 'http://u:50%25off@h/write' })).to.include({
      url: 'http://u:50%25off@h/write',
    });
    expect(sinkProblems({ type: 'otlp_grpc', endpoint: 'collector' })).to.deep.equal([
      'scenarios[0] (cpu): sink.endpoint: expected host:port or an http:// or https:// URL, got "collector"',
    ]);
    // Not silently dropped: the collector would answer UNAUTHENTICATED with no clue why.
    expect(sinkProblems({ type: 'otlp_grpc', endpoint: 'https://u:s3cret@collector:4317' })).to.deep.equal([
      'scenarios[0] (cpu): sink.endpoint: expected an address without credentials, got "https://u:***@collector:4317": gRPC does not send a URL\'s user name and password; give them in headers (authorization: Basic …, or the collector\'s token header)',
    ]);
    expect(sinkProblems({ type: 'broker', brokers: 'k1:9092,k2', topic: 't' })).to.deep.equal([
      'scenarios[0] (cpu): sink.brokers: expected host:port addresses separated by commas, got "k2" in "k1:9092,k2"',
    ]);
    // One address: the string itself, once (it read `got "kafka" in "kafka"`).
    expect(sinkProblems({ type: 'broker', brokers: 'kafka', topic: 't' })).to.deep.equal([
      'scenarios[0] (cpu): sink.brokers: expected host:port addresses separated by commas, got "kafka"',
    ]);
    expect(sinkProblems({ type: 'broker', brokers: [], topic: 't' })).to.deep.equal([
      'scenarios[0] (cpu): sink.brokers: expected a non-empty list, got an empty list',
    ]);
  });

  it('requires the address field of each sink', () => {
    const cases: [string, string][] = [
      ['file', 'path'],
      ['tcp', 'address'],
      ['udp', 'address'],
      ['http_push', 'url'],
      ['remote_write', 'url'],
      ['otlp_grpc', 'endpoint'],
    ];
    for (const [type, field] of cases) {
      expect(sinkProblems({ type }), type).to.include(`scenarios[0] (cpu): sink.${field}: missing required field`);
    }
    expect(sinkProblems({ type: 'broker' })).to.deep.equal([
      'scenarios[0] (cpu): sink.brokers: missing required field',
      'scenarios[0] (cpu): sink.topic: missing required field',
    ]);
  });

  it('checks headers, batch sizes and TLS', () => {
    expect(
      sinkProblems({ type: 'http_push', url: 'http://x', batch_size: 0, headers: { 'Bad Header': 'v', Ok: 'a\nb' } }),
    ).to.deep.equal([
      'scenarios[0] (cpu): sink.batch_size: expected an integer greater than 0, got 0',
      `scenarios[0] (cpu): sink.headers["Bad Header"]: expected a header name matching [!#$%&'*+.^_\`|~0-9A-Za-z-]+, got "Bad Header"`,
      'scenarios[0] (cpu): sink.headers.Ok: expected a header value without line breaks, got "a\\nb"',
    ]);
    expect(sinkProblems({ type: 'broker', brokers: ['k:1'], topic: 't', tls: { enabled: 'yes' } })).to.deep.equal([
      'scenarios[0] (cpu): sink.tls.enabled: invalid type: expected a boolean, got string "yes"',
    ]);
  });

  it('rejects a field of another sink type', () => {
    expect(sinkProblems({ type: 'udp', address: 'h:1', retry: { max_attempts: 1 } })).to.deep.equal([
      'scenarios[0] (cpu): sink.retry: unknown field (allowed: type, address)',
    ]);
    expect(sinkProblems({ type: 'stdout', path: '/tmp/x' })).to.deep.equal([
      'scenarios[0] (cpu): sink.path: unknown field (allowed: type)',
    ]);
  });

  it('names the allowed types', () => {
    expect(sinkProblems({ type: 'kafak' })).to.deep.equal([
      'scenarios[0] (cpu): sink.type: expected one of stdout, file, tcp, udp, http_push, logstore, remote_write, otlp_grpc, otlp_http, broker (or loki for logstore, kafka for broker), got "kafak"; did you mean kafka?',
    ]);
  });

  it('names the allowed types and aliases when the type is not a string', () => {
    expect(sinkProblems({ type: 3 })).to.deep.equal([
      'scenarios[0] (cpu): sink.type: invalid type: expected one of stdout, file, tcp, udp, http_push, logstore, remote_write, otlp_grpc, otlp_http, broker (or loki for logstore, kafka for broker), got number 3',
    ]);
  });
});
