import { expect } from 'chai';
import { entryOf, load, logs, metric, problems, v2 } from './helpers.js';

describe('CLI overrides', () => {
  it('rate, duration and on_sink_error override every entry', () => {
    const file = load(v2([metric({ name: 'a', rate: 1 }), logs({ duration: '1h' })]), {
      overrides: { rate: 50, duration: '30s', on_sink_error: 'fail' },
    });
    expect(file.scenarios.map((e) => [e.rate, e.duration, e.on_sink_error])).to.deep.equal([
      [50, 30_000, 'fail'],
      [50, 30_000, 'fail'],
    ]);
  });

  it('win over defaults', () => {
    expect(load(v2([metric()], { defaults: { rate: 3 } }), { overrides: { rate: 4 } }).scenarios[0]!.rate).to.equal(4);
  });

  it('get the same messages as file values', () => {
    expect(problems(v2([metric()]), { overrides: { rate: 0, duration: '5x', on_sink_error: 'retry' } })).to.deep.equal([
      'scenarios[0] (cpu): rate: expected a number greater than 0, got 0',
      'scenarios[0] (cpu): duration: expected a duration such as 500ms, 1.5s, 2m or 1h (units ms, s, m, h), got "5x"',
      'scenarios[0] (cpu): on_sink_error: expected one of warn, fail, got "retry"',
    ]);
  });

  it('merge labels key by key, the override winning', () => {
    expect(entryOf(metric({ labels: { env: 'dev', host: 'a' } }), { overrides: { labels: { env: 'ci', run: '7' } } }).labels).to.deep.equal({
      env: 'ci',
      host: 'a',
      run: '7',
    });
    expect(entryOf(metric(), { overrides: { labels: { env: 'ci' } } }).labels).to.deep.equal({ env: 'ci' });
    expect(problems(v2([metric()]), { overrides: { labels: { 'bad-key': 'x' } } })).to.deep.equal([
      'scenarios[0] (cpu): labels["bad-key"]: expected a label key matching [a-zA-Z_][a-zA-Z0-9_]*, got "bad-key"',
    ]);
  });

  describe('sink and endpoint', () => {
    const cases: [string, string, string, unknown][] = [
      ['file', '/tmp/out.prom', 'path', '/tmp/out.prom'],
      ['tcp', 'h:9000', 'address', 'h:9000'],
      ['udp', 'h:514', 'address', 'h:514'],
      ['http_push', 'http://h/push', 'url', 'http://h/push'],
      ['remote_write', 'http://h/api/v1/write', 'url', 'http://h/api/v1/write'],
      ['otlp_grpc', 'h:4317', 'endpoint', 'h:4317'],
    ];
    for (const [sink, endpoint, field, value] of cases) {
      it(`--sink ${sink} --endpoint fills ${field}`, () => {
        expect(entryOf(metric(), { overrides: { sink, endpoint } }).sink).to.deep.include({ type: sink, [field]: value });
      });
    }

    it('--endpoint fills brokers of a broker sink (a comma-separated list)', () => {
      const entry = entryOf(metric({ sink: { type: 'broker', brokers: ['old:9092'], topic: 't' } }), {
        overrides: { sink: 'broker', endpoint: 'k1:9092,k2:9092' },
      });
      expect(entry.sink).to.deep.equal({ type: 'broker', brokers: ['k1:9092', 'k2:9092'], topic: 't' });
    });

    it('--sink broker alone still needs a topic', () => {
      expect(problems(v2([metric()]), { overrides: { sink: 'broker', endpoint: 'k:9092' } })).to.deep.equal([
        'scenarios[0] (cpu): sink.topic: missing required field',
      ]);
    });

    it('--sink logstore --endpoint fills url', () => {
      expect(entryOf(logs(), { overrides: { sink: 'logstore', endpoint: 'http://loki:3100' } }).sink).to.deep.equal({
        type: 'logstore',
        url: 'http://loki:3100',
      });
    });

    it('a different sink type replaces the entry sink whole', () => {
      const entry = entryOf(metric({ sink: { type: 'tcp', address: 'h:1', retry: { max_attempts: 2 } } }), {
        overrides: { sink: 'http_push', endpoint: 'http://x' },
      });
      expect(entry.sink).to.deep.equal({ type: 'http_push', url: 'http://x' });
    });

    it('the same sink type keeps the entry sink fields', () => {
      const entry = entryOf(metric({ sink: { type: 'tcp', address: 'h:1', retry: { max_attempts: 2 } } }), {
        overrides: { sink: 'tcp', endpoint: 'g:2' },
      });
      expect(entry.sink).to.deep.equal({ type: 'tcp', address: 'g:2', retry: { max_attempts: 2 } });
    });

    it('--endpoint alone re-addresses the entry sink', () => {
      const entry = entryOf(metric({ sink: { type: 'http_push', url: 'http://a', batch_size: 10 } }), { overrides: { endpoint: 'http://b' } });
      expect(entry.sink).to.deep.equal({ type: 'http_push', url: 'http://b', batch_size: 10 });
    });

    it('--endpoint alone re-addresses a sink that came from defaults', () => {
      const file = load(v2([metric()], { defaults: { sink: { type: 'file', path: '/a' } } }), { overrides: { endpoint: '/b' } });
      expect(file.scenarios[0]!.sink).to.deep.equal({ type: 'file', path: '/b' });
    });

    it('--endpoint without a sink that has an address is an error', () => {
      expect(problems(v2([metric()]), { overrides: { endpoint: 'h:1' } })).to.deep.equal([
        'scenarios[0] (cpu): sink: the endpoint override needs a sink with an address (file, tcp, udp, http_push, logstore, remote_write, otlp_grpc, broker), got stdout',
      ]);
    });

    it('--sink without the address it needs is reported like a file would be', () => {
      expect(problems(v2([metric()]), { overrides: { sink: 'file' } })).to.deep.equal(['scenarios[0] (cpu): sink.path: missing required field']);
    });

    it('an unknown sink type is reported with the allowed values', () => {
      expect(problems(v2([metric()]), { overrides: { sink: 'kafka', endpoint: 'k:1' } })).to.deep.equal([
        'scenarios[0] (cpu): sink.type: expected one of stdout, file, tcp, udp, http_push, logstore, remote_write, otlp_grpc, broker, got "kafka"',
      ]);
    });

    it('a bad endpoint is reported on the address field', () => {
      expect(problems(v2([metric()]), { overrides: { sink: 'tcp', endpoint: 'nohost' } })).to.deep.equal([
        'scenarios[0] (cpu): sink.address: expected host:port (port 1-65535), got "nohost"',
      ]);
    });

    it('--sink remote_write brings its own encoder unless one is set', () => {
      expect(entryOf(metric(), { overrides: { sink: 'remote_write', endpoint: 'http://p/w' } }).encoder).to.deep.equal({ type: 'remote_write' });
    });
  });

  describe('encoder', () => {
    it('sets the encoder type', () => {
      expect(entryOf(metric(), { overrides: { encoder: 'json_lines' } }).encoder).to.deep.equal({ type: 'json_lines' });
    });

    it('keeps the fields of the same encoder type, drops those of another', () => {
      expect(entryOf(metric({ encoder: { type: 'metrics_text', precision: 2 } }), { overrides: { encoder: 'metrics_text' } }).encoder).to.deep.equal({
        type: 'metrics_text',
        precision: 2,
      });
      expect(entryOf(metric({ encoder: { type: 'metrics_text', precision: 2 } }), { overrides: { encoder: 'json_lines' } }).encoder).to.deep.equal({
        type: 'json_lines',
      });
    });

    it('is checked against the entry like a file value', () => {
      expect(problems(v2([logs()]), { overrides: { encoder: 'metrics_text' } })).to.deep.equal([
        'scenarios[0] (app): encoder.type: metrics_text cannot encode a logs entry (use json_lines or syslog)',
      ]);
    });
  });
});
