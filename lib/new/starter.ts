/**
 * The starter scenario of `svc new`: one commented entry of a signal type, for a sink and an
 * encoder, that validates and runs as written. Every field says what it does; optional fields
 * worth knowing are there, commented out.
 */
import type { SignalType } from '../language/types.js';
import { loadScenario } from '../config/load.js';
import { CommentedDocument, withCommentBefore, type Field, type Item } from './commented.js';
import { placeholderSink } from './sink-placeholders.js';

/** The signal types `svc new --signal` takes. */
export const STARTER_SIGNALS: readonly SignalType[] = ['metrics', 'logs', 'histogram', 'summary', 'traces'];

export interface StarterOptions {
  readonly signal: SignalType;
  /** A sink type of the registry; default stdout. */
  readonly sink?: string;
  /** An encoder type of the registry; default: the one the entry gets without one. */
  readonly encoder?: string;
}

/** What produces the values of each signal, and its fields. */
const SOURCES: Record<SignalType, readonly Item[]> = {
  metrics: [
    { key: 'name', value: 'app_cpu_usage_percent', comment: 'metric name: [a-zA-Z_:][a-zA-Z0-9_:]*' },
    { key: 'help', value: 'CPU used by the app, in percent.', comment: 'the # HELP line of scrape endpoints' },
    {
      key: 'generator',
      value: { type: 'sine', amplitude: 30, period_secs: 60, offset: 50 },
      flow: true,
      comment: 'the value of each tick: 50 ± 30 over a minute',
    },
    'Other generators: {type: constant, value: 1}, {type: step, start: 0, step_size: 1} (a counter),',
    '{type: uniform, min: 0, max: 100}, {type: sawtooth, min: 0, max: 100, period_secs: 300},',
    '{type: sequence, values: [1, 5, 2]}, and aliases such as {type: flap, up_duration: 1m, down_duration: 10s}.',
    'jitter: 2                  # uniform noise of ±2 on every value (seeded by jitter_seed)',
    'metric_type: gauge         # gauge, counter, histogram, summary or untyped (default: counter for step, else gauge)',
  ],
  logs: [
    { key: 'name', value: 'app_logs', comment: 'entry name, shown in progress lines' },
    {
      key: 'log_generator',
      value: {
        type: 'template',
        templates: [
          { message: 'user {user} logged in from {ip}' },
          { message: 'payment {order} failed', severity: 'error' },
        ],
        field_pools: { user: ['ann', 'bob', 'eve'], ip: ['10.0.0.1', '10.0.0.2'], order: ['A-17', 'B-42'] },
        severity_weights: { info: 8, warn: 1, error: 1 },
        seed: 0,
      },
      flowChildren: true,
      comment:
        'records from message templates; {placeholder} values come from field_pools and are written as fields too',
    },
  ],
  histogram: [
    { key: 'name', value: 'http_request_duration_seconds', comment: 'metric name: _bucket, _sum and _count series' },
    { key: 'help', value: 'HTTP request latency.', comment: 'the # HELP line of scrape endpoints' },
    {
      key: 'distribution',
      value: { type: 'exponential', rate: 10 },
      flow: true,
      comment: 'observations: exponential with mean 1/rate = 100 ms; also normal {mean, stddev}, uniform {min, max}',
    },
    {
      key: 'buckets',
      value: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      flow: true,
      comment: 'upper bounds (le); +Inf is implicit',
    },
    { key: 'observations_per_tick', value: 100, comment: 'observations drawn each tick' },
    { key: 'seed', value: 0, comment: 'seed of the observations: the same seed, the same values' },
    'distribution: {type: exponential, rate: 10, mean_shift_per_sec: 0.001}   # instead of the distribution above: latency that drifts up 1 ms a second',
  ],
  summary: [
    { key: 'name', value: 'rpc_duration_seconds', comment: 'metric name: quantile, _sum and _count series' },
    { key: 'help', value: 'RPC latency.', comment: 'the # HELP line of scrape endpoints' },
    {
      key: 'distribution',
      value: { type: 'normal', mean: 0.2, stddev: 0.05 },
      flow: true,
      comment: 'observations: normal around 200 ms; also exponential {rate}, uniform {min, max}',
    },
    {
      key: 'quantiles',
      value: [0.5, 0.9, 0.99],
      flow: true,
      comment: 'quantiles written, each strictly between 0 and 1',
    },
    { key: 'observations_per_tick', value: 100, comment: 'observations drawn each tick' },
    { key: 'seed', value: 0, comment: 'seed of the observations: the same seed, the same values' },
  ],
  traces: [
    { key: 'name', value: 'checkout', comment: 'entry name, shown in progress lines' },
    {
      key: 'trace_generator',
      value: {
        seed: 0,
        services: { frontend: { version: '1.0.0', environment: 'dev' }, payment: { version: '2.1.0' } },
        root: {
          service: 'frontend',
          operation: 'GET /checkout',
          kind: 'server',
          attributes: { 'http.request.method': 'GET', 'http.route': '/checkout' },
          calls: [
            {
              service: 'payment',
              operation: 'POST /pay',
              kind: 'client',
              duration: { type: 'uniform', min: 0.02, max: 0.08 },
              error_rate: 0.02,
              propagate: true,
            },
          ],
        },
      },
      flowChildren: true,
      comment: 'a call tree: the frontend calls payment (a client span and its server span), 2 % of calls fail',
    },
  ],
};

/** The static labels of a starter entry (a log store needs one). */
const STARTER_LABELS = { service: 'checkout', env: 'dev' };

/** Optional fields every entry may take, commented out. */
const SCHEDULES: readonly string[] = [
  'dynamic_labels: [{key: pod, cardinality: 3}]                 # a rotating label: pod_0, pod_1, pod_2, pod_0, …',
  'dynamic_labels: [{key: region, values: [eu, us]}]            # … or from a list',
  'gaps: {every: 2m, for: 20s}                                  # silence in the last 20 s of every 2 minutes',
  'bursts: {every: 1m, for: 5s, multiplier: 10}                 # 10 × the rate in the first 5 s of every minute',
  'cardinality_spikes: [{label: user, every: 1m, for: 10s, cardinality: 500}]   # a label with 500 values for 10 s a minute',
  'phase_offset: 10s                                            # start 10 s after the file',
  'start_time: -1h                                              # timestamps an hour in the past (only timestamps move)',
  'on_sink_error: fail                                          # stop at the first sink error (default: warn, drop and go on)',
];

/** The lines of {@link SCHEDULES} that set labels. */
const LABEL_SCHEDULES = ['dynamic_labels', 'cardinality_spikes'];

/**
 * The text of the starter scenario for `options`. Throws a ConfigError when the sink and encoder
 * do not go together for the signal (the validator's own messages), or when this installation
 * lacks the build feature one of them needs.
 */
export function starterScenario(options: StarterOptions): string {
  const { signal } = options;
  const sinkType = options.sink ?? 'stdout';
  const sink = placeholderSink(signal, sinkType);
  // Without --encoder, the entry's default encoder for the sink and signal, as the validator resolves it.
  const encoderType =
    options.encoder ??
    loadScenario(
      JSON.stringify({
        signal_type: signal,
        name: 'starter',
        rate: 1,
        ...sourceValues(signal),
        ...(signal !== 'traces' && { labels: STARTER_LABELS }),
        sink,
      }),
      { origin: 'svc new', format: 'json' },
    ).scenarios[0]!.encoder.type;

  const doc = new CommentedDocument();
  const sinkFields = Object.keys(sink).filter((key) => key !== 'type');
  const entry = doc.mapping([
    { key: 'signal_type', value: signal, comment: 'metrics, logs, histogram, summary or traces' },
    ...SOURCES[signal],
    {
      key: 'rate',
      value: 2,
      // A traces entry's tick starts a trace, a tree of spans: its events (spans) are several per tick.
      comment: `${signal === 'traces' ? 'traces (each a tree of spans)' : 'events'} per second, fractions allowed (0.1: one every 10 s)`,
    },
    {
      key: 'duration',
      value: '1m',
      comment: 'run time (500ms, 30s, 1m30s, 2h); without it the entry runs until stopped',
    },
    // A trace's spans carry attributes and their services' resources, not labels.
    ...(signal === 'traces'
      ? SCHEDULES.filter((line) => !LABEL_SCHEDULES.some((field) => line.startsWith(field)))
      : [
          {
            key: 'labels',
            value: STARTER_LABELS,
            flow: true,
            comment: 'static labels on every event',
          },
          ...SCHEDULES,
        ]),
    {
      key: 'encoder',
      value: { type: encoderType },
      flow: true,
      comment: options.encoder ? 'output format' : `output format (the default for a ${signal} entry on this sink)`,
    },
    {
      key: 'sink',
      value: sink,
      flow: true,
      comment: sinkFields.length
        ? `destination; ${sinkFields.join(', ')}: placeholder${sinkFields.length > 1 ? 's' : ''} to replace (docs/sinks.md)`
        : 'destination (docs/sinks.md)',
    },
  ]);
  const root = doc.mapping([
    { key: 'version', value: 2, comment: 'the scenario file format' },
    { key: 'kind', value: 'runnable', comment: 'a file to run (composable: a file for others to use)' },
    {
      key: 'scenarios',
      value: doc.list([
        withCommentBefore(entry, ['One entry per emitted series family; several entries run together.']),
      ]),
    },
  ]);
  const text = doc.write(root, [
    `A starter ${signal} scenario, written by svc new. Check it: svc run <this file> --dry-run; run it: svc run <this file>.`,
    'Every field and rule: docs/scenario-fields.md.',
  ]);
  // The pairing rule and the build features are the validator's: the file is checked as svc run would.
  loadScenario(text, { origin: 'svc new' });
  return text;
}

/** The value-producing fields of a signal, without their comments. */
function sourceValues(signal: SignalType): Record<string, unknown> {
  return Object.fromEntries(
    SOURCES[signal].filter((item): item is Field => typeof item !== 'string').map((field) => [field.key, field.value]),
  );
}
