import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { scenarioSchema } from '../../lib/config/schema.js';
import { scenarioFromDocument } from '../../lib/config/load.js';
import { decodePack, isPackDocument } from '../../lib/config/pack.js';
import { interpolate } from '../../lib/config/interpolate.js';
import { schemaErrorPlaces, schemaErrors } from '../support/json-schema.js';

/**
 * The JSON Schema an editor checks a file with and svc's own validation, given the same documents: what one
 * refuses for a field's own value, the other refuses too. Rules across fields and entries (min below max, ids
 * that exist, limits of rate × multiplier) stay with validation: the schema cannot say them.
 */

type Document = Record<string, unknown>;
const schema = scenarioSchema() as Document;

/** svc's verdict on a parsed YAML document: its problems, none when it loads. */
function loaderErrors(document: unknown): string[] {
  try {
    if (isPackDocument(document)) decodePack(document, 'document');
    else scenarioFromDocument(document, { origin: 'document.yaml', format: 'yaml' });
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

/** `document` as YAML or JSON gives it: the fields set to undefined (left out of an entry) are not there. */
const asParsed = (document: Document) => JSON.parse(JSON.stringify(document)) as Document;

const entry = { signal_type: 'metrics', name: 'up', rate: 1, generator: { type: 'constant', value: 1 } };
const file = (fields: Document): Document => ({ version: 2, kind: 'runnable', scenarios: [{ ...entry, ...fields }] });

/** A single logs entry whose template generator has `fields` too. */
const logs = (fields: Document): Document => ({
  signal_type: 'logs',
  name: 'app',
  rate: 1,
  log_generator: { type: 'template', templates: [{ message: 'x' }], ...fields },
});
/** A single histogram entry with `fields`. */
const histogram = (fields: Document): Document => ({
  signal_type: 'histogram',
  name: 'latency',
  rate: 1,
  distribution: { type: 'exponential', rate: 1 },
  ...fields,
});
/** A traces entry, and a logs entry whose trace_context names it with `fields` too. */
const logsOfTraces = (fields: Document): Document => ({
  version: 2,
  kind: 'runnable',
  scenarios: [
    {
      id: 'checkout',
      signal_type: 'traces',
      name: 'checkout',
      rate: 1,
      trace_generator: { root: { service: 'api', operation: 'GET /', kind: 'server' } },
    },
    { ...logs({}), trace_context: { from: 'checkout', ...fields } },
  ],
});

/** Values each refused by svc for the field's own shape: the schema must refuse them as well. */
const REFUSED_BY_BOTH = {
  'a quantile of 0': file({
    signal_type: 'summary',
    generator: undefined,
    distribution: { type: 'exponential', rate: 1 },
    quantiles: [0, 0.5],
  }),
  'a quantile above 1': file({
    signal_type: 'summary',
    generator: undefined,
    distribution: { type: 'exponential', rate: 1 },
    quantiles: [0.5, 2],
  }),
  'a seed past 2^53': file({ jitter: 1, jitter_seed: 1e300 }),
  'a start_time of no grammar': file({ start_time: 'yesterday' }),
  'a start_time without its sign': file({ start_time: '1h' }),
  'an instant without a time zone': file({ start_time: '2024-05-01T12:00:00' }),
  'a duration of 0': file({ duration: '0s' }),
  'a window of 0.0ms': file({ gaps: { every: '1m', for: '0.0ms' } }),
  'a duration below the microsecond': file({ duration: '0.0004ms' }),
  'an address without a port': file({ sink: { type: 'tcp', address: 'localhost' } }),
  'brokers with an address without a port': file({ sink: { type: 'broker', brokers: 'a:9092, b', topic: 't' } }),
  'a Kafka topic with a space': file({ sink: { type: 'broker', brokers: 'a:9092', topic: 'my topic' } }),
  'the Kafka topic ..': file({ sink: { type: 'broker', brokers: ['a:9092'], topic: '..' } }),
  'an empty Kafka client_id': file({ sink: { type: 'broker', brokers: ['a:9092'], topic: 't', client_id: '' } }),
  'a syslog app_name with a space': file({
    signal_type: 'logs',
    generator: undefined,
    log_generator: { type: 'template', templates: [{ message: 'x' }] },
    encoder: { type: 'syslog', app_name: 'my app' },
  }),
  'an entry without rate, and no defaults.rate': file({ rate: undefined }),
  'an entry without signal_type, and no defaults.signal_type': file({ signal_type: undefined }),
  'an entry without name nor pack': file({ name: undefined }),
  'a metrics entry without generator nor pack': file({ generator: undefined }),
  'a logs entry without log_generator': file({ signal_type: 'logs', generator: undefined }),
  'a logs entry beside version: 2 holding its log generator in generator': {
    ...logs({}),
    version: 2,
    log_generator: undefined,
    generator: { type: 'template', templates: [{ message: 'x' }] },
  },
  'a single histogram entry without distribution': { signal_type: 'histogram', name: 'h', rate: 1 },
  'an entry with pack and name': file({ pack: 'node_cpu', generator: undefined }),
  'an entry with overrides and no pack': file({ overrides: {} }),
  'metric_type summary on a metrics entry': file({ metric_type: 'summary' }),
  'metric_type gauge on a histogram entry': file({
    signal_type: 'histogram',
    generator: undefined,
    distribution: { type: 'exponential', rate: 1 },
    metric_type: 'gauge',
  }),
  'a dynamic label of neither form': file({ dynamic_labels: [{ key: 'k' }] }),
  'a dynamic label of both forms': file({ dynamic_labels: [{ key: 'k', cardinality: 2, values: ['a'] }] }),
  'a prefix on a list-form dynamic label': file({ dynamic_labels: [{ key: 'k', prefix: 'p', values: ['a'] }] }),
  'severity weights all 0': logs({ severity_weights: { info: 0, warn: 0 } }),
  'exemplars with every and probability': histogram({ exemplars: { every: 2, probability: 0.5 } }),
  'exemplars with service and no from': histogram({ exemplars: { service: 'api' } }),
  'trace_context on: probability without probability': logsOfTraces({ on: 'probability' }),
  'trace_context probability without on: probability': logsOfTraces({ probability: 0.5 }),
  'name and scenario_name': { ...file({}), name: 'a', scenario_name: 'b' },
  'phase_offset and after': {
    version: 2,
    kind: 'runnable',
    scenarios: [
      { ...entry, id: 'first' },
      { ...entry, name: 'second', phase_offset: '1s', after: { ref: 'first', op: '>', value: 0 } },
    ],
  },
  'delay without while': file({ delay: { open: '1s' } }),
} satisfies Record<string, Document>;

/**
 * Where the schema refuses each of REFUSED_BY_BOTH, and by which rule (spec/support/json-schema.ts
 * schemaErrorPlaces): a case whose rule goes fails, even when another error still refuses it. A rule
 * across fields is marked at the field svc's message names (a false schema), not at the whole entry.
 */
const REFUSED_AT: Record<keyof typeof REFUSED_BY_BOTH, string> = {
  'a quantile of 0': '/scenarios/0/quantiles/0 exclusiveMinimum',
  'a quantile above 1': '/scenarios/0/quantiles/1 exclusiveMaximum',
  'a seed past 2^53': '/scenarios/0/jitter_seed maximum',
  'a start_time of no grammar': '/scenarios/0/start_time pattern',
  'a start_time without its sign': '/scenarios/0/start_time pattern',
  'an instant without a time zone': '/scenarios/0/start_time pattern',
  'a duration of 0': '/scenarios/0/duration not',
  'a window of 0.0ms': '/scenarios/0/gaps/for not',
  'a duration below the microsecond': '/scenarios/0/duration not',
  'an address without a port': '/scenarios/0/sink/address pattern',
  'brokers with an address without a port': '/scenarios/0/sink/brokers pattern',
  'a Kafka topic with a space': '/scenarios/0/sink/topic pattern',
  'the Kafka topic ..': '/scenarios/0/sink/topic not',
  'an empty Kafka client_id': '/scenarios/0/sink/client_id minLength',
  'a syslog app_name with a space': '/scenarios/0/encoder/app_name pattern',
  'an entry without rate, and no defaults.rate': '/scenarios/0 required rate',
  'an entry without signal_type, and no defaults.signal_type': '/scenarios/0 required signal_type',
  'an entry without name nor pack': '/scenarios/0 required name',
  'a metrics entry without generator nor pack': '/scenarios/0 required generator',
  'a logs entry without log_generator': '/scenarios/0 required log_generator',
  'a logs entry beside version: 2 holding its log generator in generator': '/generator false schema',
  'a single histogram entry without distribution': ' required distribution',
  'an entry with pack and name': '/scenarios/0/name false schema',
  'an entry with overrides and no pack': '/scenarios/0/overrides false schema',
  'metric_type summary on a metrics entry': '/scenarios/0/metric_type enum',
  'metric_type gauge on a histogram entry': '/scenarios/0/metric_type enum',
  'a dynamic label of neither form': '/scenarios/0/dynamic_labels/0 oneOf',
  'a dynamic label of both forms': '/scenarios/0/dynamic_labels/0 oneOf',
  'a prefix on a list-form dynamic label': '/scenarios/0/dynamic_labels/0 dependentRequired cardinality',
  'severity weights all 0': '/log_generator/severity_weights not',
  'exemplars with every and probability': '/exemplars/probability false schema',
  'exemplars with service and no from': '/exemplars dependentRequired from',
  'trace_context on: probability without probability': '/scenarios/1/trace_context required probability',
  'trace_context probability without on: probability': '/scenarios/1/trace_context/probability false schema',
  'name and scenario_name': '/scenario_name false schema',
  'phase_offset and after': '/scenarios/1/after false schema',
  'delay without while': '/scenarios/0 dependentRequired while',
};

/** Documents svc loads, near those it refuses: the schema must accept them. */
const ACCEPTED_BY_BOTH: Record<string, Document> = {
  'entries whose rate, signal_type and generator come from defaults': {
    version: 2,
    kind: 'runnable',
    defaults: { signal_type: 'metrics', rate: 1, generator: { type: 'constant', value: 1 } },
    scenarios: [
      { name: 'a' },
      { name: 'b', signal_type: 'logs', log_generator: { type: 'template', templates: [{ message: 'x' }] } },
    ],
  },
  'an entry with pack and overrides': file({ name: undefined, generator: undefined, pack: 'node_cpu', overrides: {} }),
  'dynamic labels of each form': file({
    dynamic_labels: [
      { key: 'a', prefix: 'p', cardinality: 2 },
      { key: 'b', values: ['x'] },
    ],
  }),
  'severity weights with one above 0': logs({ severity_weights: { info: 0, warn: 1 } }),
  'trace_context with on: probability and probability': logsOfTraces({ on: 'probability', probability: 0.5 }),
  'a flat logs entry holding its log generator in generator': {
    ...logs({}),
    log_generator: undefined,
    generator: { type: 'template', templates: [{ message: 'x' }] },
  },
  'a flat entry without signal_type holding a replay log generator in generator': {
    name: 'app',
    rate: 1,
    generator: { type: 'replay', file: 'app.log' },
  },
  'a flat entry whose signal type its fields imply': {
    name: 'h',
    rate: 1,
    distribution: { type: 'exponential', rate: 1 },
  },
};

/**
 * Duration strings at the edges of the grammar (Prometheus' compound form, fractions, zero, the order and repeat of
 * units), and at the limits of the fields (365 days; 36500 days for a start_time's offset), by one part alone: svc
 * and the schema take the same ones. Longer only by parts together or a fraction (`1y1d`, `1.5y`), a duration is
 * validation's alone (docs/scenario-fields.md#editors-and-the-json-schema).
 */
const DURATIONS = {
  taken: ['90s', '1m30s', '1h30m', '2m500ms', '2m05s', '1h2m3.5s', '1.5s', '0.5m', '0h1m', '7d', '1w', '1y', '0.001ms'],
  refused: ['1m1m', '1s1m', '1ms1s', '1m-3s', 'm', '', '5', '1h 30m', '1e3ms', '1S', '7D', '1d1d', '-1s'],
  zero: ['0s', '0h0m', '0.0004ms', '0s0.0004ms', '0.0000000001h0s'],
  long: ['365d', '0365d', '366d', '52w', '53w', '8760h', '8761h', '31536000000ms', '31536000001ms', '36500d', '36501d'],
};
/** Each duration field, holding `text`; start_time holds it as an offset back. */
const DURATION_FIELDS: Record<string, (text: string) => Document> = {
  duration: (text) => file({ duration: text }),
  phase_offset: (text) => file({ phase_offset: text }),
  'gap_windows[].for': (text) => file({ gap_windows: [{ at: '0s', for: text }] }),
  'gap_windows[].at': (text) => file({ gap_windows: [{ at: text, for: '1s' }] }),
  start_time: (text) => file({ start_time: `-${text}` }),
};

/** Every example file, parsed as svc reads it (`${NAME}` with its default). */
function examples(): [string, Document][] {
  return readdirSync('examples', { withFileTypes: true, recursive: true })
    .filter((f) => f.isFile() && /\.ya?ml$/.test(f.name) && !/\.rules\.ya?ml$/.test(f.name))
    .map((f) => join(f.parentPath, f.name))
    .map((path) => [path, parse(interpolate(readFileSync(path, 'utf8'), {}, path)) as Document]);
}

type Path = (string | number)[];
/** Every place in `node` (not the document itself); of a list, its first two items stand for the rest. */
function places(node: unknown, path: Path = []): Path[] {
  const below = Array.isArray(node)
    ? node.slice(0, 2).flatMap((item, i) => places(item, [...path, i]))
    : typeof node === 'object' && node !== null
      ? Object.entries(node).flatMap(([key, value]) => places(value, [...path, key]))
      : [];
  return path.length ? [path, ...below] : below;
}

/** Values at fields' edges: zero, a sign, a fraction, a double past 2^53, strings of no grammar, nothing. */
const PROBES: unknown[] = [0, -1, 0.5, 1e300, '', 'x', null];

describe('the JSON Schema and validation agree', () => {
  it('the schema refuses what svc refuses for a field alone, each by its own rule, at the field', () => {
    const cases = Object.entries(REFUSED_BY_BOTH).map(([what, document]) => ({ what, document: asParsed(document) }));
    expect(cases.filter(({ document }) => loaderErrors(document).length === 0).map(({ what }) => what)).to.deep.equal(
      [],
    );
    const misplaced = cases
      .map(({ what, document }) => ({ what, where: REFUSED_AT[what as keyof typeof REFUSED_BY_BOTH], document }))
      .filter(({ where, document }) => !schemaErrorPlaces(schema, document).includes(where))
      .map(({ what, where, document }) => `${what}: expected ${where}, got ${schemaErrorPlaces(schema, document)}`);
    expect(misplaced).to.deep.equal([]);
  });

  it('the schema accepts what svc loads, near what it refuses', () => {
    for (const [what, written] of Object.entries(ACCEPTED_BY_BOTH)) {
      const document = asParsed(written);
      expect(loaderErrors(document), `svc, ${what}`).to.deep.equal([]);
      expect(schemaErrors(schema, document), `the schema, ${what}`).to.deep.equal([]);
    }
  });

  it('take the same duration strings in every duration field', () => {
    const verdicts = (text: string) =>
      Object.entries(DURATION_FIELDS).map(([field, document]) => {
        const svc = loaderErrors(asParsed(document(text))).length === 0;
        const editor = schemaErrors(schema, asParsed(document(text))).length === 0;
        return `${field} ${JSON.stringify(text)}: svc ${svc ? 'takes' : 'refuses'}, the schema ${editor ? 'takes' : 'refuses'}`;
      });
    const disagreeing = Object.values(DURATIONS)
      .flat()
      .flatMap(verdicts)
      .filter((verdict) => /takes.*refuses|refuses.*takes/.test(verdict));
    expect(disagreeing).to.deep.equal([]);
    for (const text of DURATIONS.taken) expect(loaderErrors(file({ duration: text })), text).to.deep.equal([]);
    for (const text of [...DURATIONS.refused, ...DURATIONS.zero])
      expect(loaderErrors(file({ duration: text })), text).to.have.length(1);
  });

  it("refuse a duration one part of which alone passes its field's limit, both at the field", () => {
    const traces = (root: Document) =>
      file({
        signal_type: 'traces',
        generator: undefined,
        trace_generator: { root: { service: 'api', operation: 'GET /', kind: 'server', ...root } },
      });
    const sink = (fields: Document) => file({ sink: { type: 'http_push', url: 'http://localhost:9/', ...fields } });
    // svc's field path and limit (as its message names them), and a document holding a value past the limit.
    const tooLong: [string, string, Document][] = [
      ['duration', '8760h (365 days)', file({ duration: '366d' })],
      ['phase_offset', '8760h (365 days)', file({ phase_offset: '2y' })],
      ['gaps.every', '8760h (365 days)', file({ gaps: { every: '53w', for: '1m' } })],
      ['gap_windows[0].at', '8760h (365 days)', file({ gap_windows: [{ at: '8761h', for: '1s' }] })],
      ['generator.up_duration', '8760h (365 days)', file({ generator: { type: 'flap', up_duration: '400d' } })],
      ['sink.max_buffer_age', '1h', sink({ max_buffer_age: '61m' })],
      ['sink.retry.max_backoff', '1h', sink({ retry: { max_attempts: 3, max_backoff: '3601s' } })],
      ['trace_generator.root.duration', '1h', traces({ duration: '2h' })],
      ['start_time', '36500d (100 years)', file({ start_time: '-36501d' })],
    ];
    const verdicts = tooLong.map(([field, limit, written]) => {
      const document = asParsed(written);
      const at = `/scenarios/0/${field.replace(/\[(\d+)\]/g, '.$1').replaceAll('.', '/')}`;
      const named = (message: string) =>
        message.includes(`(up): ${field}: expected`) && message.includes(`up to ${limit}`);
      return {
        field,
        limit,
        svc: loaderErrors(document).filter(named).length,
        schema: schemaErrorPlaces(schema, document).filter((place) => place === `${at} not`).length,
      };
    });
    expect(verdicts).to.deep.equal(tooLong.map(([field, limit]) => ({ field, limit, svc: 1, schema: 1 })));
  });

  it('the schema accepts what svc loads: every example with one value changed or removed', function () {
    this.timeout(60_000); // some 7,000 documents loaded
    const refusedValid: string[] = [];
    for (const [path, document] of examples()) {
      for (const place of places(document)) {
        const parentPath = place.slice(0, -1);
        const key = place.at(-1)!;
        const changes: [string, (parent: Document) => void][] = [
          ...PROBES.map((probe): [string, (parent: Document) => void] => [
            JSON.stringify(probe),
            (parent) => (parent[key] = structuredClone(probe)),
          ]),
          ['removed', (parent) => (Array.isArray(parent) ? parent.splice(Number(key), 1) : delete parent[key])],
        ];
        for (const [change, apply] of changes) {
          const changed = structuredClone(document);
          apply(parentPath.reduce<Document>((node, k) => node[k] as Document, changed));
          if (loaderErrors(changed).length === 0 && schemaErrors(schema, changed).length > 0)
            refusedValid.push(`${path} ${place.join('.')} ${change}: ${schemaErrors(schema, changed)[0]}`);
        }
      }
    }
    expect(refusedValid).to.deep.equal([]);
  });
});
