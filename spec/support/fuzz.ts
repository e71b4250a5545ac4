/**
 * Hostile request bodies for svc-server: scenario entries and single events whose every field may
 * be valid, out of range, of the wrong type or absent, serialized as JSON or YAML, plus raw texts
 * that stress the parser (deep nesting, alias expansion, binary, truncation). Network addresses
 * are only loopback ones or names that cannot resolve (`.invalid`): fuzzing never sends traffic
 * off this machine.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';

export interface FuzzRequest {
  readonly path: '/scenarios' | '/events';
  readonly contentType: string;
  readonly body: string;
}

const ADDRESSES = [
  '127.0.0.1:1',
  'localhost:9',
  'no-such-host.invalid:9',
  '[::1]:1',
  '127.0.0.1:99999',
  '127.0.0.1',
  ':9',
  'a:b:c',
  '',
];
const URLS = [
  'http://127.0.0.1:1/x',
  'http://no-such-host.invalid/',
  'http://admin:pw@127.0.0.1:1/',
  'https://[::1]:1/',
  'ftp://127.0.0.1/',
  'not a url',
  '',
];
const PATHS = ['out.prom', 'sub/dir/out.prom', '../escape.prom', '/etc/svc-fuzz.prom', '.', '', 'a\u0000b'];

const number = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -10, max: 100 }),
  fc.constantFrom(0, -1, 0.001, 1e300, 2 ** 53, 3e15, 1e9, 1e6, 2 ** 31, Number.MAX_SAFE_INTEGER),
);
const duration = fc.oneof(
  fc.constantFrom(
    '1s',
    '100ms',
    '2m',
    '9999999999999h',
    '1e300s',
    '-1s',
    '0ms',
    '1.5s',
    'forever',
    '',
    '1m30s',
    '1m1m',
    '52w1d',
  ),
  fc.tuple(number, fc.constantFrom('ms', 's', 'm', 'h', 'd', 'w', 'y', '')).map(([n, unit]) => `${n}${unit}`),
);
const junk = fc.oneof(
  fc.string({ maxLength: 20 }),
  number,
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
);
const name = fc.oneof(fc.constantFrom('up', 'http_requests_total', 'bad-name', '0x', ''), fc.string({ maxLength: 12 }));
const labels = fc.dictionary(
  fc.oneof(fc.constantFrom('host', 'le', '__name__', 'bad-key'), fc.string({ maxLength: 8 })),
  fc.oneof(fc.string({ maxLength: 8 }), junk),
  { maxKeys: 4 },
);

/** Some of an object's fields, each now and then replaced by junk. */
function maybe<T extends Record<string, fc.Arbitrary<unknown>>>(
  fields: T,
  required: (keyof T & string)[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    Object.fromEntries(
      Object.entries(fields).map(([key, arb]) => [
        key,
        fc.oneof({ weight: 12, arbitrary: arb }, { weight: 1, arbitrary: junk }),
      ]),
    ),
    {
      requiredKeys: required,
    },
  );
}

/** A valid `base` with a few of `fields` laid over it: most bodies get past validation, and each may break one thing. */
function over(
  base: Record<string, unknown>,
  fields: Record<string, fc.Arbitrary<unknown>>,
  most = 3,
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .uniqueArray(fc.constantFrom(...Object.keys(fields)), { maxLength: most })
    .chain((keys) => fc.record(Object.fromEntries(keys.map((key) => [key, fields[key]!]))))
    .map((changes) => ({ ...base, ...changes }));
}

const sink = fc.oneof(
  maybe({ type: fc.constant('stdout') }, ['type']),
  maybe({ type: fc.constant('file'), path: fc.constantFrom(...PATHS) }, ['type', 'path']),
  maybe(
    {
      type: fc.constantFrom('tcp', 'udp'),
      address: fc.constantFrom(...ADDRESSES),
      retry: maybe({ max_attempts: number, initial_backoff: duration }),
    },
    ['type', 'address'],
  ),
  maybe({
    type: fc.constantFrom('http_push', 'logstore'),
    url: fc.constantFrom(...URLS),
    batch_size: number,
    max_streams_per_push: number,
    headers: fc.dictionary(
      fc.constantFrom('Authorization', 'X-Scope-OrgID', 'bad header'),
      fc.string({ maxLength: 8 }),
      { maxKeys: 2 },
    ),
  }),
  maybe({ type: fc.constantFrom('remote_write', 'otlp_grpc', 'broker', 'nope'), url: fc.constantFrom(...URLS) }),
);
const encoder = maybe(
  { type: fc.constantFrom('metrics_text', 'json_lines', 'syslog', 'remote_write', 'otlp', 'nope'), precision: number },
  ['type'],
);
const generator = fc.oneof(
  maybe({ type: fc.constant('constant'), value: number }, ['type', 'value']),
  maybe({ type: fc.constant('sine'), amplitude: number, period_secs: number, offset: number }, [
    'type',
    'amplitude',
    'period_secs',
    'offset',
  ]),
  maybe({ type: fc.constant('step'), start: number, step_size: number }, ['type', 'start', 'step_size']),
  maybe({ type: fc.constant('sequence'), values: fc.array(number, { maxLength: 5 }), repeat: fc.boolean() }, [
    'type',
    'values',
  ]),
);
const window = maybe({ every: duration, for: duration, multiplier: number });

const BASE_ENTRY = {
  signal_type: 'metrics',
  name: 'fuzz_gauge',
  rate: 5,
  duration: '2s',
  generator: { type: 'constant', value: 1 },
};

const entry = over(
  BASE_ENTRY,
  {
    id: name,
    signal_type: fc.constantFrom('metrics', 'logs', 'histogram', 'summary', 'traces'),
    name,
    rate: number,
    duration,
    start_time: fc.constantFrom('now', '-2h', '+1d', '2026-01-01T00:00:00Z', 'yesterday'),
    generator,
    log_generator: maybe({
      type: fc.constant('template'),
      templates: fc.array(
        maybe({ message: fc.string({ maxLength: 20 }), severity: fc.constantFrom('info', 'error', 'loud') }),
        { maxLength: 3 },
      ),
      field_pools: fc.dictionary(fc.string({ maxLength: 5 }), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), {
        maxKeys: 2,
      }),
      seed: number,
    }),
    distribution: maybe({
      type: fc.constantFrom('exponential', 'normal', 'zipf'),
      rate: number,
      mean: number,
      stddev: number,
    }),
    observations_per_tick: number,
    buckets: fc.array(number, { maxLength: 6 }),
    quantiles: fc.array(number, { maxLength: 4 }),
    labels,
    dynamic_labels: fc.array(
      maybe({ key: name, cardinality: number, values: fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }) }),
      { maxLength: 2 },
    ),
    jitter: number,
    gaps: window,
    bursts: window,
    cardinality_spikes: fc.array(
      maybe({
        label: name,
        every: duration,
        for: duration,
        cardinality: number,
        strategy: fc.constantFrom('counter', 'random'),
      }),
      { maxLength: 2 },
    ),
    phase_offset: duration,
    on_sink_error: fc.constantFrom('warn', 'fail', 'ignore'),
    encoder,
    sink,
  },
  5,
);

const file = fc.record(
  {
    version: fc.oneof(fc.constant(2), junk),
    kind: fc.constantFrom('runnable', 'composable', 'other'),
    scenarios: fc.array(entry, { minLength: 0, maxLength: 4 }),
  },
  { requiredKeys: [] },
);

const BASE_EVENT = {
  signal_type: 'metrics',
  labels: {},
  metric: { name: 'fuzz_gauge', value: 1 },
  encoder: { type: 'metrics_text' },
  sink: { type: 'stdout' },
};

const event = over(BASE_EVENT, {
  signal_type: fc.constantFrom('logs', 'metrics', 'traces'),
  labels,
  log: maybe({
    severity: fc.constantFrom('info', 'error', 'INFO', 'loud'),
    message: fc.string({ maxLength: 30 }),
    fields: labels,
  }),
  metric: maybe({ name, value: number }),
  encoder,
  sink,
});

/** Texts that stress the parser rather than the validator. */
const raw = fc.oneof(
  fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc
    .integer({ min: 1, max: 1_400 })
    .map((depth) => `${Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1`),
  fc.constant(
    `a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from(
      { length: 9 },
      (_, i) =>
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(', ')}]`,
    ).join('\n')}\n`,
  ),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.string({ maxLength: 200 }),
);

/** One hostile request: a scenario file, a flat entry, a single event or a raw text, mostly under the content type its form calls for. */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.oneof(
      { weight: 4, arbitrary: fc.tuple(fc.constant('/scenarios' as const), fc.oneof(file, entry)) },
      { weight: 3, arbitrary: fc.tuple(fc.constant('/events' as const), event) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('/scenarios' as const, '/events' as const), raw) },
    ),
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('json', 'yaml') },
      { weight: 1, arbitrary: fc.constant('truncated') },
    ),
    fc.oneof(
      { weight: 8, arbitrary: fc.constant('matching') },
      { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/yaml', 'text/plain', 'application/x-yaml') },
    ),
  )
  .map(([[path, value], form, type]) => {
    const yaml = form === 'yaml' && path === '/scenarios';
    const text = typeof value === 'string' ? value : yaml ? stringify(value) : JSON.stringify(value);
    const contentType = type !== 'matching' ? type : yaml ? 'text/yaml' : 'application/json';
    return { path, contentType, body: form === 'truncated' ? text.slice(0, Math.floor(text.length / 2)) : text };
  });
