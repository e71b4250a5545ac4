import { expect } from 'chai';
import { applyOverrides } from '../../lib/config/index.js';
import { entryOf, load, logs, metric, problems, v2 } from '../support/scenarios.js';

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

  it('name the flag in their messages, once for the whole file', () => {
    expect(
      problems(v2([metric(), logs()]), { overrides: { rate: 0, duration: '5x', on_sink_error: 'retry' } }),
    ).to.deep.equal([
      '--rate: expected a number greater than 0, got 0',
      '--duration: expected a duration such as 500ms, 1.5s, 1m30s or 7d (units y, w, d, h, m, s, ms: largest first, each at most once), got "5x"',
      '--on-sink-error: expected one of warn, fail, got "retry"',
    ]);
  });

  it('say which entries a flag does not fit when it fits the others', () => {
    expect(
      problems(v2([metric(), logs(), logs({ name: 'b' })]), { overrides: { encoder: 'metrics_text' } }),
    ).to.deep.equal([
      '--encoder metrics_text: metrics_text cannot encode a logs entry (use json_lines or syslog) (on scenarios[1] (app), scenarios[2] (b))',
    ]);
  });

  it('merge labels key by key, the override winning', () => {
    expect(
      entryOf(metric({ labels: { env: 'dev', host: 'a' } }), { overrides: { labels: { env: 'ci', run: '7' } } }).labels,
    ).to.deep.equal({
      env: 'ci',
      host: 'a',
      run: '7',
    });
    expect(entryOf(metric(), { overrides: { labels: { env: 'ci' } } }).labels).to.deep.equal({ env: 'ci' });
    expect(problems(v2([metric()]), { overrides: { labels: { 'bad-key': 'x' } } })).to.deep.equal([
      '--label bad-key: expected a label key matching [a-zA-Z_][a-zA-Z0-9_]*, got "bad-key"',
    ]);
  });

  it('give labels to the entries that take them, not to a traces entry, whose spans carry attributes', () => {
    const traces = {
      signal_type: 'traces',
      name: 'checkout',
      rate: 1,
      trace_generator: { root: { service: 'frontend', operation: 'GET /', kind: 'server', duration: 0.01 } },
    };
    const file = load(v2([traces, logs()]), { overrides: { labels: { env: 'ci' } } });
    expect(file.scenarios.map((entry) => entry.labels)).to.deep.equal([{}, { env: 'ci' }]);
    // A flat entry whose trace_generator makes it a traces entry, too.
    const { signal_type: _signal, ...flat } = traces;
    expect(
      load(JSON.stringify(flat), { format: 'yaml', overrides: { labels: { env: 'ci' } } }).scenarios[0]!.signal_type,
    ).to.equal('traces');
  });

  describe('sink and endpoint', () => {
    const cases: [string, string, string][] = [
      ['file', '/tmp/out.prom', 'path'],
      ['tcp', 'h:9000', 'address'],
      ['udp', 'h:514', 'address'],
      ['http_push', 'http://h/push', 'url'],
      ['remote_write', 'http://h/api/v1/write', 'url'],
      ['otlp_grpc', 'h:4317', 'endpoint'],
      ['broker', 'k1:9092,k2:9092', 'brokers'],
    ];
    for (const [sink, endpoint, field] of cases) {
      it(`--sink ${sink} --endpoint fills ${field}`, () => {
        expect(applyOverrides(metric(), { sink, endpoint }).raw.sink).to.deep.equal({ type: sink, [field]: endpoint });
      });
    }

    it('--sink file --endpoint makes a runnable file sink', () => {
      expect(entryOf(metric(), { overrides: { sink: 'file', endpoint: '/tmp/out.prom' } }).sink).to.deep.equal({
        type: 'file',
        path: '/tmp/out.prom',
      });
    });

    it('--sink broker alone needs a topic, which no flag gives', () => {
      expect(
        problems(v2([metric(), metric({ id: 'b' })]), { overrides: { sink: 'broker', endpoint: 'k:9092' } }),
      ).to.deep.equal([
        '--sink broker: the broker sink needs topic, which no flag sets: write the sink in the scenario file',
      ]);
    });

    it('--sink logstore --endpoint fills url', () => {
      expect(
        entryOf(logs({ labels: { job: 'app' } }), { overrides: { sink: 'logstore', endpoint: 'http://loki:3100' } })
          .sink,
      ).to.deep.equal({
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
      const entry = entryOf(metric({ sink: { type: 'http_push', url: 'http://a', batch_size: 10 } }), {
        overrides: { endpoint: 'http://b' },
      });
      expect(entry.sink).to.deep.equal({ type: 'http_push', url: 'http://b', batch_size: 10 });
    });

    it('--endpoint alone re-addresses a sink that came from defaults', () => {
      const file = load(v2([metric()], { defaults: { sink: { type: 'file', path: '/a' } } }), {
        overrides: { endpoint: '/b' },
      });
      expect(file.scenarios[0]!.sink).to.deep.equal({ type: 'file', path: '/b' });
    });

    it('--endpoint without a sink that has an address is an error', () => {
      expect(problems(v2([metric()]), { overrides: { endpoint: 'h:1' } })).to.deep.equal([
        "--endpoint: the entry's sink is stdout, which has no address: give --sink too (file, tcp, udp, http_push, logstore, remote_write, otlp_grpc, otlp_http, broker)",
      ]);
    });

    it('--sink without --endpoint names the missing flag, once for the file', () => {
      expect(problems(v2([metric(), metric({ id: 'b' }), logs()]), { overrides: { sink: 'file' } })).to.deep.equal([
        "--sink file: missing --endpoint (the sink's path)",
      ]);
    });

    it('--sink without --endpoint keeps the address of an entry sink of that type, and names the entries without one', () => {
      expect(
        load(v2([metric({ sink: { type: 'file', path: '/a' } })]), { overrides: { sink: 'file' } }).scenarios[0]!.sink,
      ).to.deep.equal({
        type: 'file',
        path: '/a',
      });
      expect(
        problems(v2([metric({ sink: { type: 'file', path: '/a' } }), metric({ id: 'b' })]), {
          overrides: { sink: 'file' },
        }),
      ).to.deep.equal(["--sink file: missing --endpoint (the sink's path) (on scenarios[1] (b))"]);
    });

    it('a flag-made entry (svc metrics) names the missing flag', () => {
      const entry = JSON.stringify({
        signal_type: 'metrics',
        name: 'up',
        rate: 1,
        generator: { type: 'constant', value: 1 },
      });
      expect(problems(entry, { format: 'json', overrides: { rate: 1, sink: 'file' } })).to.deep.equal([
        "--sink file: missing --endpoint (the sink's path)",
      ]);
    });

    it('an unknown sink type is reported with the allowed values', () => {
      expect(problems(v2([metric()]), { overrides: { sink: 'kafak', endpoint: 'k:1' } })).to.deep.equal([
        '--sink kafak: expected one of stdout, file, tcp, udp, http_push, logstore, remote_write, otlp_grpc, otlp_http, broker (or loki for logstore, kafka for broker), got "kafak"; did you mean kafka?',
      ]);
    });

    it('a bad endpoint is reported on the flag', () => {
      expect(problems(v2([metric()]), { overrides: { sink: 'tcp', endpoint: 'nohost' } })).to.deep.equal([
        '--endpoint: expected host:port (port 1-65535), got "nohost"',
      ]);
    });

    it('--sink remote_write brings its own encoder unless one is set', () => {
      const entry = entryOf(metric(), { overrides: { sink: 'remote_write', endpoint: 'http://p/w' } });
      expect([entry.sink, entry.encoder]).to.deep.equal([
        { type: 'remote_write', url: 'http://p/w' },
        { type: 'remote_write' },
      ]);
      expect(
        problems(v2([metric()]), {
          overrides: { sink: 'remote_write', endpoint: 'http://p/w', encoder: 'json_lines' },
        }),
      ).to.deep.equal([
        '--sink remote_write: the remote_write sink needs the remote_write encoder, got encoder json_lines',
      ]);
    });
  });

  describe('encoder', () => {
    it('sets the encoder type', () => {
      expect(entryOf(metric(), { overrides: { encoder: 'json_lines' } }).encoder).to.deep.equal({ type: 'json_lines' });
    });

    it('keeps the fields of the same encoder type, drops those of another', () => {
      expect(
        entryOf(metric({ encoder: { type: 'metrics_text', precision: 2 } }), { overrides: { encoder: 'metrics_text' } })
          .encoder,
      ).to.deep.equal({
        type: 'metrics_text',
        precision: 2,
      });
      expect(
        entryOf(metric({ encoder: { type: 'metrics_text', precision: 2 } }), { overrides: { encoder: 'json_lines' } })
          .encoder,
      ).to.deep.equal({
        type: 'json_lines',
      });
    });

    it('is checked against the entry like a file value', () => {
      expect(problems(v2([logs()]), { overrides: { encoder: 'metrics_text' } })).to.deep.equal([
        '--encoder metrics_text: metrics_text cannot encode a logs entry (use json_lines or syslog)',
      ]);
    });
  });
});
