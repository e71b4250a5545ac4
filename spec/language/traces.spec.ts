import { expect } from 'chai';
import { Codec, type AnyCodec, type JsonSchema } from '../../lib/language/combinators.js';
import { MAX_SPANS_PER_TRACE, MAX_TRACE_BYTES } from '../../lib/language/limits.js';
import { formatBytes } from '../../lib/format.js';
import { maxSpansPerTrace, maxTraceBytes, traceGenerator } from '../../lib/language/traces.js';
import { schemaErrors } from '../support/json-schema.js';
import { documentedExample, traceConfig, generatorProblems } from '../support/trace-generators.js';

type Fields = Record<string, unknown>;

/** A tree of one root in `frontend` with `calls`; `extra` adds trace_generator fields. */
const tree = (calls: Fields[], extra: Fields = {}, root: Fields = {}): Fields => ({
  root: { service: 'frontend', operation: 'GET /', kind: 'server', calls, ...root },
  ...extra,
});
/** An internal call; its duration has no upper bound, so whatever it calls fits. */
const call = (extra: Fields = {}): Fields => ({
  operation: 'work',
  kind: 'internal',
  duration: { type: 'exponential', rate: 100 },
  ...extra,
});

/** The schema of trace_generator with its definitions, as lib/config/schema.ts writes the scenario schema. */
function schemaOfTraceGenerator(): Record<string, unknown> {
  const defs: Record<string, JsonSchema> = {};
  const child = (codec: AnyCodec): JsonSchema => {
    if (!(codec instanceof Codec)) return {};
    const name = codec.definition;
    if (name === undefined) return codec.schema(child);
    if (!defs[name]) {
      defs[name] = {};
      defs[name] = codec.schema(child);
    }
    return { $ref: `#/$defs/${name}` };
  };
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...child(traceGenerator), $defs: defs };
}

describe('trace_generator', () => {
  it('decodes the example of docs/traces.md, filling every default', () => {
    const config = traceConfig(documentedExample());
    expect(config.seed).to.equal(42);
    expect(config.sampled).to.equal(1);
    const [cart, payment, worker] = config.root.calls;
    expect(cart).to.include({ service: 'cart', kind: 'client', parallel: false, propagate: false, new_trace: false });
    expect(cart).to.include({ error_rate: 0, repeat: 1, probability: 1 });
    expect(cart!.calls[0]).to.include({ duration: 0.001, probability: 0.3 });
    expect(payment).to.deep.include({ duration: { type: 'uniform', min: 0.02, max: 0.08 }, error_rate: 0.02 });
    expect(worker).to.include({ new_trace: true, queue_delay: 0.01 });
    expect(config.root.attributes['enduser.id']).to.deep.equal({
      form: 'counter',
      prefix: 'user-',
      cardinality: 100000,
    });
    expect(config.root.attributes['http.response.status_code']).to.deep.equal({ form: 'fixed', value: 200 });
    expect(config.services.frontend).to.deep.equal({
      version: '2.4.1',
      environment: 'prod',
      pods: { count: 3, rotate_every: 3_600_000 },
      attributes: {},
    });
    expect(maxSpansPerTrace(config)).to.equal(12);
  });

  it('takes attribute values, lists and counters, sampling as a share or a flag', () => {
    const config = traceConfig(
      tree([call({ attributes: { user: { cardinality: 10 }, tier: { one_of: ['gold', 2, true] } } })], {
        sampled: false,
      }),
    );
    expect(config.sampled).to.equal(0);
    expect(config.root.calls[0]!.attributes).to.deep.equal({
      user: { form: 'counter', prefix: 'user_', cardinality: 10 },
      tier: { form: 'list', values: ['gold', 2, true] },
    });
    expect(traceConfig(tree([], { sampled: 0.25 })).sampled).to.equal(0.25);
    // A service.name equal to the service's key says its name again: taken, the key naming it.
    const named = { frontend: { attributes: { 'service.name': 'frontend', 'cloud.region': 'eu' } } };
    expect(traceConfig(tree([], { services: named })).services.frontend!.attributes).to.deep.equal({
      'cloud.region': 'eu',
    });
    expect(traceConfig(tree([])).seed).to.equal(0);
  });

  /** [what, document, every problem expected, at its path]. */
  const mistakes: [string, Fields, string[]][] = [
    [
      'an unknown kind',
      tree([call({ kind: 'clinet' })]),
      ['root.calls[0].kind: expected one of server, client, producer, consumer, internal, got "clinet"'],
    ],
    [
      'a misspelt field and a missing duration',
      tree([{ operation: 'x', kind: 'internal', propagte: true }]),
      [
        'root.calls[0].propagte: unknown field (did you mean propagate?)',
        'root.calls[0].duration: missing required field',
      ],
    ],
    [
      'calls below a client call to no other service',
      tree([call({ kind: 'client', calls: [call()] })]),
      [
        'root.calls[0].calls: a client call to no other service is one span, with nobody below it to make calls: name the service it calls (service: <name>)',
      ],
    ],
    [
      'new_trace and queue_delay where no consumer starts, propagate where the consumer runs alone',
      tree([
        call({ kind: 'client', service: 'cart', new_trace: true }),
        call({ queue_delay: '5ms' }),
        call({ kind: 'producer', service: 'worker', propagate: true }),
      ]),
      [
        'root.calls[0].new_trace: only a producer call to another service can start a new trace (its consumer roots it, linked to the producer)',
        'root.calls[1].queue_delay: only a producer call to another service has a queue delay',
        'root.calls[2].propagate: a consumer’s error cannot reach the span that made the producer call: that span does not wait for the consumer',
      ],
    ],
    [
      'calls that cannot fit in their parent',
      tree(
        [
          call({ duration: 0.06 }),
          call({ duration: { type: 'uniform', min: 0.05, max: 0.07 } }),
          call({ duration: 0.5, probability: 0.5 }),
        ],
        {},
        { duration: 0.1 },
      ),
      [
        'root.calls[1].duration: takes at least 50ms with the calls before it (110ms in all), more than the 100ms its parent lasts at most: a parent lasts at least as long as its calls in sequence',
      ],
    ],
    [
      'a repeated call that cannot fit, below a call bounded by a uniform distribution',
      tree([
        call({
          service: 'cart',
          kind: 'client',
          duration: { type: 'uniform', min: 0.01, max: 0.02 },
          calls: [call({ duration: '5ms', repeat: 5 })],
        }),
      ]),
      [
        'root.calls[0].calls[0].duration: takes at least 25ms, more than the 20ms its parent lasts at most: a parent lasts at least as long as its calls in sequence',
      ],
    ],
    [
      'a repeat past the span bound',
      tree([call({ repeat: 50, calls: [call({ repeat: 30 })] })]),
      ['root.calls[0].repeat: up to 50 times 31 spans is 1550 spans per trace; the limit is 1000 spans per trace'],
    ],
    [
      'a drawn repeat, counted at its clamp, past the bound inside a call',
      tree([
        call({
          calls: [call({ repeat: { type: 'exponential', rate: 1 }, calls: [call({ repeat: 20 })] })],
        }),
      ]),
      [
        'root.calls[0].calls[0].repeat: up to 100 times 21 spans is 2100 spans per trace; the limit is 1000 spans per trace',
      ],
    ],
    [
      'calls that add up past the bound',
      tree([call({ repeat: 100, calls: [call({ repeat: 4 })] }), call({ repeat: 100, calls: [call({ repeat: 5 })] })]),
      [
        'root.calls: these calls make up to 1101 spans per trace (calls[0]: 500, calls[1]: 600); the limit is 1000 spans per trace',
      ],
    ],
    [
      'a service no span runs in',
      tree([call({ service: 'cart', kind: 'client' })], { services: { cart: {}, carts: { version: '1' } } }),
      ['services.carts: no span of the tree runs in service "carts"'],
    ],
    [
      'values out of range',
      tree([
        call({
          duration: -1,
          repeat: 0,
          probability: 2,
          error_rate: -0.5,
          attributes: { 'a b': 1, c: { one_of: [] }, d: { foo: 1 }, e: { cardinality: 0 }, f: [1] },
        }),
        call({ duration: { type: 'uniform', min: -1, max: 2 } }),
        call({ duration: { type: 'uniform', min: 1, max: 7200 }, repeat: { type: 'normal', mean: 500, stddev: 1 } }),
        call({ duration: '2h' }),
        call({ duration: { type: 'exponential', rate: 0.0001 } }),
      ]),
      [
        'root.calls[0].duration: expected a number greater than or equal to 0, got -1',
        'root.calls[0].repeat: expected an integer greater than 0, got 0',
        'root.calls[0].probability: expected at most 1, got 2',
        'root.calls[0].error_rate: expected at least 0, got -0.5',
        'root.calls[0].attributes["a b"]: expected an attribute name matching [A-Za-z_][A-Za-z0-9_.-]*, got "a b"',
        'root.calls[0].attributes.c.one_of: expected a non-empty list, got an empty list',
        'root.calls[0].attributes.d: expected a value, {one_of: [values]} or {cardinality: N, prefix?}',
        'root.calls[0].attributes.e.cardinality: expected an integer greater than 0, got 0',
        'root.calls[0].attributes.f: invalid type: expected a string, a number or a boolean, got a list',
        'root.calls[1].duration.min: expected at least 0, got -1',
        'root.calls[2].duration.max: expected at most 3600 seconds, got 7200',
        'root.calls[2].repeat.mean: expected 0 to 100, got 500',
        'root.calls[3].duration: expected a duration up to 1h, got "2h"',
        'root.calls[4].duration.rate: expected at least 0.0002777777777777778 (a mean of at most 3600 seconds), got 0.0001',
      ],
    ],
    [
      'too many attributes, pods out of range, an unknown field of a service',
      tree([], {
        services: {
          frontend: {
            pods: { count: 0, rotate_every: '0s' },
            region: 'eu',
            attributes: Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`a${i}`, i])),
          },
        },
      }),
      [
        'services.frontend.pods.count: expected an integer greater than 0, got 0',
        'services.frontend.pods.rotate_every: expected a positive, finite duration, got "0s"',
        'services.frontend.region: unknown field (allowed: version, environment, attributes, pods)',
        'services.frontend.attributes: expected at most 128 attributes, got 129',
      ],
    ],
    [
      "a service.name among a service's attributes, which would show its spans under two names",
      tree([], { services: { frontend: { attributes: { 'service.name': 'shop', 'cloud.region': 'eu' } } } }),
      [
        'services.frontend.attributes["service.name"]: the service\'s name is its key in services (and the service its spans name): name the service "shop" instead',
      ],
    ],
    [
      'an incident that changes neither the duration nor the error rate',
      tree(
        [call({ incident: { start: '5m', for: '5m' } })],
        {},
        { incident: { start: '1m', for: '1m', error_rate: 1 } },
      ),
      ['root.calls[0].incident: expected duration or error_rate (or both): an incident without them changes nothing'],
    ],
    [
      'several mistakes of the tree at once',
      tree([call({ kind: 'client', new_trace: true, duration: 2 })], { services: { cart: {} } }, { duration: 1 }),
      [
        'root.calls[0].new_trace: only a producer call to another service can start a new trace (its consumer roots it, linked to the producer)',
        'root.calls[0].duration: takes at least 2s, more than the 1s its parent lasts at most: a parent lasts at least as long as its calls in sequence',
        'services.cart: no span of the tree runs in service "cart"',
      ],
    ],
  ];

  for (const [what, document, expected] of mistakes) {
    it(`names the path of each mistake: ${what}`, () => {
      expect(generatorProblems(document)).to.have.members(expected);
      expect(generatorProblems(document)).to.have.length(expected.length);
    });
  }

  it(`accepts a tree of exactly ${MAX_SPANS_PER_TRACE} spans per trace, and counts pairs as two spans`, () => {
    const atBound = tree([call({ repeat: 9, calls: [call({ repeat: 100, calls: [] })] }), call({ repeat: 90 })]);
    expect(generatorProblems(atBound)).to.deep.equal([]);
    expect(maxSpansPerTrace(traceConfig(atBound))).to.equal(MAX_SPANS_PER_TRACE);
    const pairs = tree([call({ service: 'cart', kind: 'client', repeat: 3, calls: [call()] })]);
    expect(maxSpansPerTrace(traceConfig(pairs))).to.equal(1 + 3 * 3);
  });

  it(`refuses a tree whose spans carry more than ${formatBytes(MAX_TRACE_BYTES)} of attributes, naming what weighs most`, () => {
    const huge = 'x'.repeat(900_000);
    // The scenario file takes a 900 kB value (below 1 MiB); repeated, its trace would weigh 86 MiB.
    expect(generatorProblems(tree([call({ repeat: 100, attributes: { huge } })]))).to.deep.equal([
      "root.calls[0].attributes: up to 100 spans carrying 878.9 KiB of attributes each: a trace of up to 85.9 MiB of attributes (each span's own and its resource's, as text); the limit is 16 MiB per trace",
    ]);
    // A resource is written with every span of its service (json_lines, zipkin_json).
    const resource = tree([call({ repeat: 30 })], { services: { frontend: { version: huge } } });
    expect(generatorProblems(resource)).to.deep.equal([
      "services.frontend: up to 31 spans carrying 879.2 KiB of resource attributes each: a trace of up to 26.6 MiB of attributes (each span's own and its resource's, as text); the limit is 16 MiB per trace",
    ]);
    // Six such spans (5.2 MiB, more than one OTLP message takes) stay possible: svc says what the collector refuses.
    const six = tree([call({ repeat: 6, attributes: { huge } })]);
    expect(generatorProblems(six)).to.deep.equal([]);
    expect(maxTraceBytes(traceConfig(six))).to.be.within(6 * 900_000, 6 * 900_000 + 3000);
  });

  it('writes a JSON Schema that describes every field and accepts the documented example', () => {
    const schema = schemaOfTraceGenerator();
    expect(schemaErrors(schema, documentedExample())).to.deep.equal([]);
    expect(schemaErrors(schema, tree([call({ kind: 'clinet' })]))).not.to.deep.equal([]);
    const incident = (fields: Fields) => tree([call({ incident: { start: '5m', for: '5m', ...fields } })]);
    expect(schemaErrors(schema, incident({ error_rate: 0.3 }))).to.deep.equal([]);
    expect(schemaErrors(schema, incident({}))).not.to.deep.equal([]);
    const undescribed: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const properties = (node as { properties?: Record<string, Record<string, unknown>> }).properties;
      // A variant's `type` is described by its union, as the scenario schema's spec says.
      for (const [field, sub] of Object.entries(properties ?? {}))
        if (field !== 'type' && sub.description === undefined) undescribed.push(`${path}/properties/${field}`);
      for (const [key, value] of Object.entries(node)) visit(value, `${path}/${key}`);
    };
    visit(schema, '#');
    expect(undescribed).to.deep.equal([]);
  });
});
