import { expect } from 'chai';
import { compileScenario } from '../../lib/compile/index.js';
import { entryOf, entryProblems, histogram, load, logs, metric, problems, summary, v2 } from '../support/scenarios.js';

describe('entry: common fields', () => {
  describe('rate', () => {
    it('accepts a fractional rate', () => expect(entryOf(metric({ rate: 0.25 })).rate).to.equal(0.25));

    for (const rate of [0, -1]) {
      it(`rejects ${rate}`, () => {
        expect(entryProblems(metric({ rate }))).to.deep.equal([
          `scenarios[0] (cpu): rate: expected a number greater than 0, got ${rate}`,
        ]);
      });
    }

    it('rejects a quoted number as an invalid type (no coercion)', () => {
      expect(entryProblems(metric({ rate: '5' }))).to.deep.equal([
        'scenarios[0] (cpu): rate: invalid type: expected a number, got string "5"',
      ]);
    });

    it('is required', () => {
      const { rate: _, ...entry } = metric();
      expect(entryProblems(entry)).to.deep.equal(['scenarios[0] (cpu): rate: missing required field']);
    });
  });

  describe('name and id', () => {
    for (const name of ['cpu', 'node:cpu_seconds:rate5m', '_x', 'a1']) {
      it(`accepts the name ${name}`, () => expect(entryOf(metric({ name })).name).to.equal(name));
    }
    for (const name of ['1cpu', 'cpu-usage', 'cpu usage', '']) {
      it(`rejects the name ${JSON.stringify(name)}`, () => {
        expect(entryProblems(metric({ name, id: 'e' }))).to.deep.equal([
          `scenarios[0] (e): name: expected a name matching [a-zA-Z_:][a-zA-Z0-9_:]*, got ${JSON.stringify(name)}`,
        ]);
      });
    }

    it('bounds names, label keys and values (Loki refuses longer ones), naming the field and the length', () => {
      const long = (n: number) => 'a'.repeat(n);
      expect(entryOf(metric({ name: long(1024), labels: { [long(1024)]: long(2048) } })).name).to.have.length(1024);
      expect(
        entryProblems(
          metric({
            name: long(1025),
            id: 'e',
            labels: { [long(1025)]: 'x', ok: long(2049) },
            dynamic_labels: [
              { key: 'pod', prefix: long(2042), cardinality: 10 },
              { key: 'az', values: [long(2049)] },
            ],
            cardinality_spikes: [{ label: 'user', every: '1m', for: '10s', cardinality: 10, prefix: long(2033) }],
          }),
        ),
      ).to.deep.equal([
        'scenarios[0] (e): name: expected a name of at most 1024 characters, got 1025 characters',
        `scenarios[0] (e): labels.${long(57)}...: expected a label key of at most 1024 characters, got 1025 characters`,
        'scenarios[0] (e): labels.ok: expected a label value of at most 2048 characters, got 2049 characters',
        'scenarios[0] (e): dynamic_labels[0].prefix: expected a prefix of at most 2041 characters, got 2042 characters',
        'scenarios[0] (e): dynamic_labels[1].values[0]: expected a label value of at most 2048 characters, got 2049 characters',
        'scenarios[0] (e): cardinality_spikes[0].prefix: expected a prefix of at most 2032 characters, got 2033 characters',
      ]);
    });

    it('requires a name without pack', () => {
      const { name: _, ...entry } = metric();
      expect(entryProblems(entry)).to.deep.equal(['scenarios[0]: name: missing required field']);
    });

    it('defaults id to the name', () => expect(entryOf(metric({ name: 'up' })).id).to.equal('up'));
    it('keeps an explicit id', () => expect(entryOf(metric({ id: 'first' })).id).to.equal('first'));
    it('rejects an empty id', () => {
      expect(entryProblems(metric({ id: '' }))).to.deep.equal([
        'scenarios[0] (cpu): id: expected a non-empty string without control characters (such as a line break or tab), got ""',
      ]);
    });
    it('rejects an id with a control character, which would split the lines that print it', () => {
      expect(entryProblems(metric({ id: 'two\nlines' }))).to.deep.equal([
        'scenarios[0] (cpu): id: expected a non-empty string without control characters (such as a line break or tab), got "two\\nlines"',
      ]);
    });
  });

  describe('pack', () => {
    const packed = { signal_type: 'metrics', pack: 'node_basics', rate: 1 };

    it('replaces name and generator; id defaults to the pack name', () => {
      const entry = entryOf(packed);
      expect(entry).to.include({ id: 'node_basics', pack: 'node_basics', metric_type: 'gauge' });
      expect(entry).not.to.have.property('name');
      expect(entry).not.to.have.property('generator');
    });

    it('excludes name and generator', () => {
      expect(entryProblems({ ...packed, name: 'x', generator: { type: 'constant', value: 1 } })).to.deep.equal([
        'scenarios[0] (x): name: not allowed with pack (the pack names its metrics)',
        'scenarios[0] (x): generator: not allowed with pack (the pack supplies the generators)',
      ]);
    });

    it("refuses a pack file whose name, the entry's default id, holds a control character, as an id with one", () => {
      const file = { signal_type: 'metrics', pack: './packs/re\tdis.yaml', rate: 1 };
      expect(entryProblems(file)).to.deep.equal([
        'scenarios[0]: pack: the file name "re\\tdis", the default id of the entry, holds a control character (such as a line break or tab), which an id cannot: give the entry an id, or rename the file',
      ]);
      expect(entryOf({ ...file, id: 'redis' }).id).to.equal('redis');
    });
  });

  describe('signal_type', () => {
    it('is required, naming the allowed values', () => {
      const { signal_type: _, ...entry } = metric();
      expect(entryProblems(entry)).to.deep.equal([
        'scenarios[0] (cpu): signal_type: missing required field (allowed: metrics, logs, histogram, summary, traces)',
      ]);
    });

    it('rejects other values', () => {
      expect(entryProblems(metric({ signal_type: 'spans' }))).to.deep.equal([
        'scenarios[0] (cpu): signal_type: expected one of metrics, logs, histogram, summary, traces, got "spans"',
      ]);
    });
  });

  describe('what produces the values', () => {
    it('requires generator for metrics', () => {
      const { generator: _, ...entry } = metric();
      expect(entryProblems(entry)).to.deep.equal([
        'scenarios[0] (cpu): generator: missing required field (a metrics entry needs it)',
      ]);
    });

    it('requires log_generator for logs', () => {
      const { log_generator: _, ...entry } = logs();
      expect(entryProblems(entry)).to.deep.equal([
        'scenarios[0] (app): log_generator: missing required field (a logs entry needs it)',
      ]);
    });

    for (const make of [histogram, summary]) {
      const signal = make().signal_type as string;
      it(`requires distribution for ${signal}`, () => {
        const { distribution: _, ...entry } = make();
        expect(entryProblems(entry)).to.deep.equal([
          `scenarios[0] (latency): distribution: missing required field (a ${signal} entry needs it)`,
        ]);
      });
    }

    const foreign: [string, Record<string, unknown>, string, unknown, string][] = [
      ['generator', logs(), 'app', { type: 'constant', value: 1 }, 'metrics'],
      ['generator', histogram(), 'latency', { type: 'constant', value: 1 }, 'metrics'],
      ['log_generator', metric(), 'cpu', { type: 'template', templates: [{ message: 'x' }] }, 'logs'],
      ['distribution', metric(), 'cpu', { type: 'exponential', rate: 1 }, 'histogram and summary'],
      ['distribution', logs(), 'app', { type: 'exponential', rate: 1 }, 'histogram and summary'],
      ['buckets', summary(), 'latency', [1, 2], 'histogram'],
      ['quantiles', histogram(), 'latency', [0.5], 'summary'],
      ['observations_per_tick', metric(), 'cpu', 10, 'histogram and summary'],
      ['seed', metric(), 'cpu', 1, 'histogram and summary'],
    ];
    for (const [field, base, id, value, allowed] of foreign) {
      it(`rejects ${field} on a ${base.signal_type} entry`, () => {
        expect(entryProblems({ ...base, [field]: value })).to.deep.equal([
          `scenarios[0] (${id}): ${field}: not allowed on a ${base.signal_type} entry (only on ${allowed} entries)`,
        ]);
      });
    }
  });

  describe('metric_type and help', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['metrics with step', metric({ generator: { type: 'step', step_size: 1 } }), 'counter'],
      ['metrics with a step counting down', metric({ generator: { type: 'step', step_size: -1 } }), 'gauge'],
      ['metrics with a step from below 0', metric({ generator: { type: 'step', start: -5, step_size: 1 } }), 'gauge'],
      ['metrics with a step and jitter', metric({ generator: { type: 'step', step_size: 1 }, jitter: 2 }), 'gauge'],
      ['metrics with a step and jitter 0', metric({ generator: { type: 'step', step_size: 1 }, jitter: 0 }), 'counter'],
      ['metrics with sine', metric({ generator: { type: 'sine', amplitude: 1, period_secs: 10 } }), 'gauge'],
      ['metrics with constant', metric(), 'gauge'],
      ['metrics with sequence', metric({ generator: { type: 'sequence', values: [1] } }), 'gauge'],
      ['histogram', histogram(), 'histogram'],
      ['summary', summary(), 'summary'],
      ['logs', logs(), 'untyped'],
    ];
    for (const [what, fields, type] of cases) {
      it(`defaults to ${type} for ${what}`, () => expect(entryOf(fields).metric_type).to.equal(type));
    }

    it('keeps an explicit metric_type and help', () => {
      expect(entryOf(metric({ metric_type: 'counter', help: 'CPU' }))).to.include({
        metric_type: 'counter',
        help: 'CPU',
      });
    });

    it('rejects an unknown metric_type', () => {
      expect(entryProblems(metric({ metric_type: 'meter' }))).to.deep.equal([
        'scenarios[0] (cpu): metric_type: expected one of gauge, counter, histogram, summary, untyped, got "meter"',
      ]);
    });

    it('refuses a metric_type that does not fit the entry, naming the types that do', () => {
      expect(entryProblems(metric({ metric_type: 'histogram' }))).to.deep.equal([
        'scenarios[0] (cpu): metric_type: histogram does not fit a metrics entry, whose samples are single values: give gauge or counter or untyped (or leave it out)',
      ]);
      expect(entryProblems(histogram({ metric_type: 'counter' }))).to.deep.equal([
        "scenarios[0] (latency): metric_type: counter does not fit a histogram entry, whose samples are its histogram's series set: give histogram (or leave it out)",
      ]);
      expect(entryProblems(summary({ metric_type: 'untyped' }))[0]).to.match(
        /metric_type: untyped does not fit a summary entry/,
      );
      expect(entryOf(histogram({ metric_type: 'histogram' })).metric_type).to.equal('histogram');
      expect(entryOf(metric({ metric_type: 'untyped' })).metric_type).to.equal('untyped');
    });

    it('refuses jitter on a counter, whose samples it would make go down', () => {
      expect(entryProblems(metric({ metric_type: 'counter', jitter: 2 }))).to.deep.equal([
        'scenarios[0] (cpu): jitter: not allowed on a counter: the noise makes its samples go down, which Prometheus reads as resets (rate() and increase() jump by the whole value); give metric_type: gauge, or leave out jitter',
      ]);
      expect(entryOf(metric({ metric_type: 'counter', jitter: 0 })).metric_type).to.equal('counter');
    });

    it('refuses a counter whose generator goes below 0, which OpenMetrics forbids, naming the generator', () => {
      const why =
        'on a counter (metric_type: counter): OpenMetrics forbids negative counter values, and Prometheus reads every fall as a reset; give metric_type: gauge, or a generator that stays at 0 or above';
      for (const [generator, how] of [
        [{ type: 'sine', amplitude: 5, offset: 0, period_secs: 60 }, 'to -5'],
        [{ type: 'step', start: 10, step_size: -1 }, 'without end (a negative step_size and no max)'],
        [{ type: 'sequence', values: [3, -1, 2] }, 'to -1'],
        [{ type: 'spike', baseline: 1, magnitude: -3, duration_secs: 1, interval_secs: 10 }, 'to -2'],
        [{ type: 'constant', value: -0.5 }, 'to -0.5'],
      ] as const)
        expect(entryProblems(metric({ metric_type: 'counter', generator }))).to.deep.equal([
          `scenarios[0] (cpu): generator: goes down ${how} ${why}`,
        ]);
      for (const generator of [
        { type: 'sine', amplitude: 5, offset: 5, period_secs: 60 },
        { type: 'uniform', min: 0, max: 3 },
      ])
        expect(entryOf(metric({ metric_type: 'counter', generator })).metric_type).to.equal('counter');
      expect(
        entryOf(metric({ metric_type: 'gauge', generator: { type: 'constant', value: -1 } })).metric_type,
      ).to.equal('gauge');
    });

    it('accepts and ignores metric_type and help on a logs entry', () => {
      const entry = entryOf(logs({ metric_type: 'gauge', help: 'ignored' }));
      expect(entry.metric_type).to.equal('untyped');
      expect(entry).not.to.have.property('help');
    });
  });

  describe('time fields', () => {
    it('reads duration and phase_offset as milliseconds', () => {
      expect(entryOf(metric({ duration: '1.5s', phase_offset: '250ms' }))).to.include({
        duration: 1_500,
        phase_offset: 250,
      });
    });

    it("reads Prometheus' compound form (1m30s) in every duration field, to the plan its one-unit form (90s) gives", () => {
      // The compound form is how svc prints durations (progress lines, dry-run, svc describe): it reads back.
      const file = (d: (compound: string, single: string) => string) =>
        v2([
          metric({
            id: 'first',
            generator: { type: 'step', step_size: 1 },
            duration: d('2h30m', '150m'),
            gaps: { every: d('1m30s', '90s'), for: d('2s500ms', '2.5s') },
            gap_windows: [{ at: d('1h0m', '60m'), for: d('1w', '168h') }],
            bursts: { every: d('5m15s', '315s'), for: d('1m0.5s', '60500ms'), multiplier: 2 },
            cardinality_spikes: [{ label: 'pod', cardinality: 3, every: d('1h1m1s', '3661s'), for: d('1m1s', '61s') }],
            sink: {
              type: 'http_push',
              url: 'http://x/',
              retry: { max_attempts: 3, initial_backoff: d('1s250ms', '1.25s'), max_backoff: d('0h5m', '5m') },
            },
          }),
          metric({ id: 'second', after: { ref: 'first', op: '>', value: 5, delay: d('1m30s', '1.5m') } }),
          metric({ id: 'third', phase_offset: d('2m500ms', '120.5s'), start_time: `-${d('1d12h', '36h')}` }),
        ]);
      const compound = load(file((compound) => compound));
      expect(compound).to.deep.equal(load(file((_, single) => single)));
      expect(compound.scenarios[0]).to.deep.include({ duration: 9_000_000, gaps: { every: 90_000, for: 2_500 } });
      expect(compileScenario(compound, { origin: 'spec' })).to.deep.equal(
        compileScenario(load(file((_, single) => single)), { origin: 'spec' }),
      );
    });

    it('leaves duration out when absent (run until stopped)', () =>
      expect(entryOf(metric())).not.to.have.property('duration'));

    it('names the field of a bad duration', () => {
      expect(entryProblems(metric({ duration: '10 minutes' }))).to.deep.equal([
        'scenarios[0] (cpu): duration: expected a duration such as 500ms, 1.5s, 1m30s or 7d (units y, w, d, h, m, s, ms: largest first, each at most once), got "10 minutes"',
      ]);
      expect(entryProblems(metric({ duration: 60 }))).to.deep.equal([
        'scenarios[0] (cpu): duration: invalid type: expected a duration string such as "30s", got number 60',
      ]);
      expect(entryProblems(metric({ phase_offset: '0s' }))).to.deep.equal([
        'scenarios[0] (cpu): phase_offset: expected a positive, finite duration, got "0s"',
      ]);
    });

    it('reads start_time, default now', () => {
      expect(entryOf(metric()).start_time).to.deep.equal({ kind: 'now' });
      expect(entryOf(metric({ start_time: '-2d' })).start_time).to.deep.equal({
        kind: 'relative',
        offsetMs: -172_800_000,
      });
      expect(entryProblems(metric({ start_time: 'yesterday' }))).to.deep.equal([
        'scenarios[0] (cpu): start_time: expected now, an RFC 3339 instant (2024-05-01T12:00:00Z) or a signed offset (+1h, -30m, -1h30m, -2d: units largest first, each at most once), got "yesterday"',
      ]);
    });

    it('refuses a start_time before 1970 to the encoders whose times cannot go below it, naming start_time', () => {
      // The zipkin_json encoder wrote `"timestamp":/99500000` (not JSON) and OTLP stamped every such time 0.
      const before = '1969-12-31T23:59:59.5Z';
      const trace = (encoder: string, sink: Record<string, unknown>, start_time: string) => ({
        signal_type: 'traces',
        name: 'checkout',
        rate: 1,
        start_time,
        encoder: { type: encoder },
        sink,
        trace_generator: { services: { web: {} }, root: { service: 'web', operation: 'GET /', kind: 'server' } },
      });
      expect(entryProblems(trace('zipkin_json', { type: 'stdout' }, before))).to.deep.equal([
        'scenarios[0] (checkout): start_time: the zipkin_json encoder cannot write times before 1970 (Zipkin reads a timestamp before 1970 as none), and this start_time stamps 1969-12-31T23:59:59.500Z: give a start_time from 1970-01-01T00:00:00Z on, or another encoder (json_lines)',
      ]);
      // The otlp_http sink takes the otlp encoder only: no other encoder to advise.
      const otlp = { type: 'otlp_http', url: 'http://collector:4318/v1/metrics' };
      expect(entryProblems(metric({ start_time: before, sink: otlp, encoder: { type: 'otlp' } }))).to.deep.equal([
        "scenarios[0] (cpu): start_time: the otlp encoder cannot write times before 1970 (OTLP's times are unsigned nanoseconds since 1970), and this start_time stamps 1969-12-31T23:59:59.500Z: give a start_time from 1970-01-01T00:00:00Z on",
      ]);
      // Span metrics through OTLP as well, beside spans in json_lines.
      expect(
        entryProblems({
          ...trace('json_lines', { type: 'stdout' }, before),
          span_metrics: { sink: { type: 'otlp_http', url: 'http://collector:4318/v1/metrics' } },
        }),
      ).to.deep.equal([
        "scenarios[0] (checkout): start_time: span metrics' otlp encoder cannot write times before 1970 (OTLP's times are unsigned nanoseconds since 1970), and this start_time stamps 1969-12-31T23:59:59.500Z: give a start_time from 1970-01-01T00:00:00Z on",
      ]);
      // Spans and span metrics both through the entry's own otlp encoder: said once.
      const otlpTraces = { type: 'otlp_http', url: 'http://collector:4318/v1/traces' };
      expect(entryProblems({ ...trace('otlp', otlpTraces, before), span_metrics: {} })).to.deep.equal([
        "scenarios[0] (checkout): start_time: the otlp encoder cannot write times before 1970 (OTLP's times are unsigned nanoseconds since 1970), and this start_time stamps 1969-12-31T23:59:59.500Z: give a start_time from 1970-01-01T00:00:00Z on",
      ]);
      // A relative start_time counts from now: 100 years back is before 1970 too.
      expect(entryProblems(metric({ start_time: '-36500d', sink: otlp, encoder: { type: 'otlp' } }))).to.have.length(1);
      for (const ok of [
        trace('zipkin_json', { type: 'stdout' }, '1970-01-01T00:00:00Z'),
        trace('json_lines', { type: 'stdout' }, before),
      ])
        expect(entryOf(ok).start_time.kind).to.equal('absolute');
      expect(entryOf(metric({ start_time: before, encoder: { type: 'influx_lp' } })).start_time).to.deep.equal({
        kind: 'absolute',
        epochMs: -500,
      });
    });

    it('makes phase_offset and after mutually exclusive', () => {
      const file = v2([
        metric({ id: 'a' }),
        metric({ id: 'b', phase_offset: '1s', after: { ref: 'a', op: '>', value: 1 } }),
      ]);
      expect(problems(file)).to.deep.equal([
        'scenarios[1] (b): after: not allowed together with phase_offset (an entry starts after a delay or on a trigger, not both)',
      ]);
    });

    it('reads clock_group as given', () => expect(entryOf(metric({ clock_group: 'g1' })).clock_group).to.equal('g1'));
    it('refuses a clock_group holding a line break, which split the lines --dry-run prints it on', () => {
      expect(entryProblems(metric({ clock_group: 'g\nfake: line' }))).to.deep.equal([
        'scenarios[0] (cpu): clock_group: expected a non-empty string without control characters (such as a line break or tab), got "g\\nfake: line"',
      ]);
    });
  });

  describe('jitter, on_sink_error', () => {
    it('defaults jitter_seed to 0 and on_sink_error to warn, leaves jitter out', () => {
      const entry = entryOf(metric());
      expect(entry).to.include({ jitter_seed: 0, on_sink_error: 'warn' });
      expect(entry).not.to.have.property('jitter');
    });

    it('keeps jitter, jitter_seed and on_sink_error', () => {
      expect(entryOf(metric({ jitter: 0.5, jitter_seed: 7, on_sink_error: 'fail' }))).to.include({
        jitter: 0.5,
        jitter_seed: 7,
        on_sink_error: 'fail',
      });
    });

    it('rejects a negative jitter, a fractional seed, an unknown policy', () => {
      expect(entryProblems(metric({ jitter: -1, jitter_seed: 1.5, on_sink_error: 'ignore' }))).to.deep.equal([
        'scenarios[0] (cpu): jitter: expected a number greater than or equal to 0, got -1',
        'scenarios[0] (cpu): jitter_seed: expected an integer, got 1.5',
        'scenarios[0] (cpu): on_sink_error: expected one of warn, fail, got "ignore"',
      ]);
    });

    it('names the range of a seed too large to hold exactly, which is an integer all the same', () => {
      expect(entryProblems(metric({ jitter_seed: 1e300 }))).to.deep.equal([
        'scenarios[0] (cpu): jitter_seed: expected an integer from -9007199254740991 to 9007199254740991, got 1e+300',
      ]);
    });
  });

  describe('histogram and summary fields', () => {
    it('defaults buckets, observations_per_tick and seed on a histogram', () => {
      expect(entryOf(histogram())).to.deep.include({
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        observations_per_tick: 100,
        seed: 0,
      });
    });

    it("defaults quantiles (the reference tool's), observations_per_tick and seed on a summary", () => {
      expect(entryOf(summary())).to.deep.include({
        quantiles: [0.5, 0.9, 0.95, 0.99],
        observations_per_tick: 100,
        seed: 0,
      });
    });

    it('keeps the values given', () => {
      expect(entryOf(histogram({ buckets: [-1, 0, 2.5], observations_per_tick: 3, seed: 9 }))).to.deep.include({
        buckets: [-1, 0, 2.5],
        observations_per_tick: 3,
        seed: 9,
      });
      expect(entryOf(summary({ quantiles: [0.1, 0.999] })).quantiles).to.deep.equal([0.1, 0.999]);
    });

    it('leaves them out of a metrics entry', () => {
      const entry = entryOf(metric());
      for (const field of ['buckets', 'quantiles', 'observations_per_tick', 'seed'])
        expect(entry).not.to.have.property(field);
    });

    it('requires strictly increasing, finite buckets', () => {
      expect(entryProblems(histogram({ buckets: [1, 2, 2] }))).to.deep.equal([
        'scenarios[0] (latency): buckets[2]: expected a number greater than the previous bucket (2), got 2',
      ]);
      expect(entryProblems(histogram({ buckets: [] }))).to.deep.equal([
        'scenarios[0] (latency): buckets: expected a non-empty list, got an empty list',
      ]);
      expect(entryProblems(histogram({ buckets: [1, '+Inf'] }))).to.deep.equal([
        'scenarios[0] (latency): buckets[1]: invalid type: expected a number, got string "+Inf"',
      ]);
    });

    it('requires strictly increasing quantiles between 0 and 1', () => {
      expect(entryProblems(summary({ quantiles: [0.9, 0.5] }))).to.deep.equal([
        'scenarios[0] (latency): quantiles[1]: expected a number greater than the previous quantile (0.9), got 0.5',
      ]);
      for (const q of [0, 1, 1.5]) {
        expect(entryProblems(summary({ quantiles: [q] }))).to.deep.equal([
          `scenarios[0] (latency): quantiles[0]: expected a number between 0 and 1 (both excluded), got ${q}`,
        ]);
      }
    });

    it('refuses a distribution whose observations overflow to ±Inf (their _sum would be NaN), naming it', () => {
      const overflow =
        'distribution: observations would go beyond ±1.8e308, the largest finite number, within the duration (they reach |mean| + 8.6 × stddev, or 36.7 / rate, plus |mean_shift_per_sec| × the time): written as ±Inf, they would make _sum NaN; give parameters of a smaller magnitude';
      for (const distribution of [
        { type: 'normal', mean: 1e308, stddev: 1e308 },
        { type: 'normal', mean: 0, stddev: 3e307 },
        { type: 'exponential', rate: 1e-307 },
        { type: 'uniform', min: 0, max: 1, mean_shift_per_sec: 1e306 },
      ])
        expect(entryProblems(histogram({ distribution, duration: '10m' })), JSON.stringify(distribution)).to.deep.equal(
          [`scenarios[0] (latency): ${overflow}`],
        );
      // Without a duration, the shift counts over the longest one (365 days).
      expect(
        entryProblems(summary({ distribution: { type: 'normal', mean: 0, stddev: 1, mean_shift_per_sec: 1e301 } })),
      ).to.deep.equal([
        `scenarios[0] (latency): ${overflow.replace('within the duration', 'within 365 days (no duration)')}`,
      ]);
      for (const distribution of [
        { type: 'normal', mean: 1e307, stddev: 1e307 },
        { type: 'exponential', rate: 1e-306 },
        { type: 'uniform', min: -1e308, max: 1e308 },
      ])
        expect(entryOf(histogram({ distribution })).distribution).to.deep.equal(distribution);
    });

    it('requires observations_per_tick to be an integer of at least 1', () => {
      for (const n of [0, 2.5]) {
        expect(entryProblems(histogram({ observations_per_tick: n }))).to.deep.equal([
          `scenarios[0] (latency): observations_per_tick: expected an integer greater than 0, got ${n}`,
        ]);
      }
    });
  });
});

describe('entry: a field that failed to decode', () => {
  const traces = (extra = {}) => ({
    signal_type: 'traces',
    name: 'checkout',
    rate: 1,
    trace_generator: { root: { service: 'api', operation: 'GET /', kind: 'server', duration: 0.01 } },
    ...extra,
  });
  const badAge = { type: 'otlp_http', url: 'http://collector:4318', max_buffer_age: 100 };
  const ageProblem = 'max_buffer_age: invalid type: expected a duration string such as "30s", got number 100';

  it('is reported alone, not again by the rules that would take its default in its place', () => {
    // The entry's sink, which span metrics without a sink of their own would share, is not taken for stdout.
    expect(entryProblems(traces({ sink: badAge, span_metrics: true }))).to.deep.equal([
      `scenarios[0] (checkout): sink.${ageProblem}`,
    ]);
    expect(entryProblems(traces({ span_metrics: { sink: badAge } }))).to.deep.equal([
      `scenarios[0] (checkout): span_metrics.sink.${ageProblem}`,
    ]);
    // A generator or metric_type that failed is not taken for a gauge's.
    expect(
      entryProblems(metric({ generator: { type: 'step', step_size: 'x' }, exemplars: { every: 10 } })),
    ).to.deep.equal(['scenarios[0] (cpu): generator.step_size: invalid type: expected a number, got string "x"']);
    expect(entryProblems(metric({ metric_type: 'countr', exemplars: { every: 10 } }))).to.have.length(1);
    // Labels that failed are not taken for none.
    expect(
      entryProblems(logs({ labels: { 'bad key': 'x' }, sink: { type: 'logstore', url: 'http://loki:3100' } })),
    ).to.have.length(1);
  });

  it('refuses a negative span_metrics bucket bound: a duration is never below 0', () => {
    expect(entryProblems(traces({ span_metrics: { buckets: [-0.5, 0, 1] } }))).to.deep.equal([
      'scenarios[0] (checkout): span_metrics.buckets[0]: expected a number greater than or equal to 0, got -0.5',
    ]);
    const zero = entryOf(traces({ span_metrics: { buckets: [0, 1], sink: { type: 'file', path: '/tmp/m' } } }));
    expect(zero.span_metrics?.buckets).to.deep.equal([0, 1]);
  });

  it('leaves the rules that need it alone only: span metrics of their own sink are still checked', () => {
    expect(
      entryProblems(
        traces({
          sink: badAge,
          span_metrics: { sink: { type: 'file', path: '/tmp/m' }, encoder: { type: 'zipkin_json' } },
        }),
      ),
    ).to.deep.equal([
      `scenarios[0] (checkout): sink.${ageProblem}`,
      'scenarios[0] (checkout): span_metrics.encoder.type: zipkin_json encodes traces only, not a metrics entry',
    ]);
  });
});
