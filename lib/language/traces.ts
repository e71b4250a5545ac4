/**
 * The trace language: `trace_generator`, a call tree whose root span and nested `calls` stand
 * for services calling each other, with per-service resources, sampling and a seed. The codec
 * checks each field, then the tree as a whole (pairs of spans, durations that fit, the span
 * bound, services named but never called), every problem at its path.
 *
 * The tree is finite by construction: calls are nested mappings, with no reference to a named
 * subtree, so there is no cycle to look for (a YAML alias repeats a subtree, it cannot contain
 * itself, and expansions are bounded when the text is parsed).
 */
import * as t from 'io-ts';
import { isRight } from 'fp-ts/lib/Either.js';
import {
  Codec,
  andThen,
  atMost,
  boolean,
  errorAt,
  integer,
  invalidType,
  list,
  matching,
  nonEmptyString,
  nonNegative,
  oneOf,
  record,
  strict,
  unitInterval,
  string,
} from './combinators.js';
import { distribution, durationUpTo, duration, countUpTo, type DistributionConfig } from './fields.js';
import * as limits from './limits.js';
import { isMapping, show } from './problems.js';
import { formatBytes, formatMs } from '../format.js';
import { SPAN_KINDS, type AttributeValue, type SpanKind } from '../../operators/model/span.js';

export type { AttributeValue, SpanKind };

/** Seconds, fixed (a number, or a duration string such as `20ms`) or drawn from a distribution. */
export type SpanDuration = number | DistributionConfig;

/** A span attribute as written: one value, one of a list, or `prefix` + a number below `cardinality`. */
export type TraceAttribute =
  | { readonly form: 'fixed'; readonly value: AttributeValue }
  | { readonly form: 'list'; readonly values: readonly AttributeValue[] }
  | { readonly form: 'counter'; readonly prefix: string; readonly cardinality: number };

/**
 * A window of the run in which a span behaves otherwise: from `start` (ms after the entry's start)
 * for `for` ms, its `duration` and `error_rate` replace the span's own (one left out stays as it is).
 */
export interface IncidentConfig {
  readonly start: number;
  readonly for: number;
  readonly duration?: SpanDuration;
  readonly error_rate?: number;
}

/** What the root span and every call share. */
interface SpanConfigBase {
  readonly operation: string;
  readonly kind: SpanKind;
  readonly error_rate: number;
  readonly incident?: IncidentConfig;
  readonly attributes: Readonly<Record<string, TraceAttribute>>;
  readonly calls: readonly CallConfig[];
}

/** The root span of every trace. Without `duration` it lasts as long as its calls. */
export interface RootSpanConfig extends SpanConfigBase {
  readonly service: string;
  readonly duration?: SpanDuration;
}

/** A call made by the span above it. */
export interface CallConfig extends SpanConfigBase {
  /** The service called; absent: the caller's own. */
  readonly service?: string;
  readonly duration: SpanDuration;
  readonly parallel: boolean;
  readonly propagate: boolean;
  /** How many times the call is made: a count, or a distribution drawn and rounded. */
  readonly repeat: number | DistributionConfig;
  readonly probability: number;
  readonly new_trace: boolean;
  readonly queue_delay?: SpanDuration;
}

export interface ServiceConfig {
  readonly version?: string;
  readonly environment?: string;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly pods?: { readonly count: number; readonly rotate_every?: number };
}

export interface TraceGeneratorConfig {
  readonly root: RootSpanConfig;
  readonly services: Readonly<Record<string, ServiceConfig>>;
  /** Share of traces whose W3C `sampled` flag is set. */
  readonly sampled: number;
  readonly seed: number;
}

/**
 * Whether `call`, made from a span of service `caller`, is a pair of spans: a client (producer)
 * span in the caller and the callee's server (consumer) span below it. A client or producer call
 * to no other service is one span (an uninstrumented peer: a database, a cache, a broker).
 */
export function isPair(call: CallConfig, caller: string): boolean {
  return (call.kind === 'client' || call.kind === 'producer') && call.service !== undefined && call.service !== caller;
}

/** The callee of a producer pair runs after the producer's span, outside it. */
export function isAsync(call: CallConfig, caller: string): boolean {
  return call.kind === 'producer' && isPair(call, caller);
}

// ---- fields ---------------------------------------------------------------------------------------

export const ATTRIBUTE_KEY_PATTERN = '[A-Za-z_][A-Za-z0-9_.-]*';
const attributeKey = matching(ATTRIBUTE_KEY_PATTERN, 'an attribute name');

const scalar = new Codec<AttributeValue>(
  'attribute value',
  (u, c) =>
    typeof u === 'string' || typeof u === 'boolean' || (typeof u === 'number' && Number.isFinite(u))
      ? t.success(u)
      : invalidType(u, c, 'a string, a number or a boolean'),
  undefined,
  () => ({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] }),
);

const oneOfValues = strict('one_of attribute', {
  one_of: list(scalar, { nonEmpty: true, max: limits.MAX_LIST_VALUES }).describe(
    'Each span takes one of these values, drawn uniformly.',
  ),
});
const counted = strict(
  'counted attribute',
  {
    cardinality: countUpTo(limits.MAX_CARDINALITY).describe(
      'How many distinct values: prefix + a number drawn below it (user ids, order ids).',
    ),
  },
  { prefix: string.describe('Text before the number; default the attribute name and an underscore.') },
);

/** A span attribute; a counted one's prefix is left for {@link spanAttributes} to fill from its key. */
const spanAttribute = new Codec<TraceAttribute | { form: 'counter'; prefix?: string; cardinality: number }>(
  'attribute',
  (u, c) => {
    if (!isMapping(u)) {
      const value = scalar.validate(u, c);
      return isRight(value) ? t.success({ form: 'fixed', value: value.right }) : value;
    }
    if (Object.hasOwn(u, 'one_of')) {
      const decoded = oneOfValues.validate(u, c);
      return isRight(decoded) ? t.success({ form: 'list', values: decoded.right.one_of }) : decoded;
    }
    if (Object.hasOwn(u, 'cardinality')) {
      const decoded = counted.validate(u, c);
      return isRight(decoded) ? t.success({ form: 'counter', ...decoded.right }) : decoded;
    }
    return t.failure(u, c, 'expected a value, {one_of: [values]} or {cardinality: N, prefix?}');
  },
  undefined,
  (child) => ({ anyOf: [child(scalar), child(oneOfValues), child(counted)] }),
);

function bounded<A>(codec: Codec<Record<string, A>>, what: string): Codec<Record<string, A>> {
  return andThen<Record<string, A>, Record<string, A>>(codec, (values, u, c) => {
    const count = Object.keys(values).length;
    return count <= limits.MAX_SPAN_ATTRIBUTES
      ? t.success(values)
      : t.failure(u, c, `expected at most ${limits.MAX_SPAN_ATTRIBUTES} ${what}, got ${count}`);
  }).withSchema((child) => ({ ...child(codec), maxProperties: limits.MAX_SPAN_ATTRIBUTES }));
}

const spanAttributes = andThen(bounded(record(attributeKey, spanAttribute), 'attributes'), (values) =>
  t.success(
    Object.fromEntries(
      Object.entries(values).map(([key, a]): [string, TraceAttribute] => [
        key,
        a.form === 'counter' ? { form: 'counter', prefix: a.prefix ?? `${key}_`, cardinality: a.cardinality } : a,
      ]),
    ),
  ),
).describe(
  'Span attributes by name (semantic conventions such as http.request.method, http.route, db.system are plain keys): a value, {one_of: [values]}, or {cardinality: N, prefix}.',
);

/** The largest and smallest draw of a distribution, before the clamp to [0, `max`]; a drift moves both without bound. */
function drawRange(d: DistributionConfig): readonly [number, number] {
  if (d.mean_shift_per_sec) return [-Infinity, Infinity];
  if (d.type === 'uniform') return [d.min, d.max];
  if (d.type === 'exponential') return [0, Infinity];
  return d.stddev === 0 ? [d.mean, d.mean] : [-Infinity, Infinity];
}

/** Why a distribution clamped to [0, `max`] would mostly draw outside it: its field and the message, if it would. */
function outsideClamp(d: DistributionConfig, max: number, unit: string): [string, string] | undefined {
  switch (d.type) {
    case 'uniform':
      if (d.min < 0) return ['min', `expected at least 0, got ${d.min}`];
      return d.max > max ? ['max', `expected at most ${max}${unit}, got ${d.max}`] : undefined;
    case 'normal':
      return d.mean < 0 || d.mean > max ? ['mean', `expected 0 to ${max}${unit}, got ${d.mean}`] : undefined;
    case 'exponential':
      return 1 / d.rate > max
        ? ['rate', `expected at least ${1 / max} (a mean of at most ${max}${unit}), got ${d.rate}`]
        : undefined;
  }
}

/** A distribution whose draws are clamped to [0, `max`]: its range (uniform) or mean must lie inside. */
function clampedDistribution(max: number, unit: string): Codec<DistributionConfig> {
  return andThen(distribution, (d, u, c) => {
    const problem = outsideClamp(d, max, unit);
    return problem ? t.failures([errorAt(u, c, problem[0], problem[1])]) : t.success(d);
  });
}

const SPAN_DISTRIBUTION = clampedDistribution(limits.MAX_SPAN_SECONDS, ' seconds');
const spanSeconds = atMost(nonNegative, limits.MAX_SPAN_SECONDS, ' seconds');
const spanDurationText = durationUpTo(limits.MAX_SPAN_SECONDS * 1000);

/** Seconds: a number, a duration string (`20ms`), or a distribution of seconds (draws clamped to 0 and the limit). */
const spanDuration = new Codec<SpanDuration>(
  'span duration',
  (u, c) => {
    if (typeof u === 'number') return spanSeconds.validate(u, c);
    if (typeof u === 'string') {
      const ms = spanDurationText.validate(u, c);
      return isRight(ms) ? t.success(ms.right / 1000) : ms;
    }
    return SPAN_DISTRIBUTION.validate(u, c);
  },
  undefined,
  (child) => ({ anyOf: [child(spanSeconds), child(spanDurationText), child(distribution)] }),
).define('span_duration');

const repeat = new Codec<number | DistributionConfig>(
  'repeat',
  (u, c) =>
    isMapping(u)
      ? clampedDistribution(limits.MAX_REPEAT, '').validate(u, c)
      : countUpTo(limits.MAX_REPEAT).validate(u, c),
  undefined,
  (child) => ({ anyOf: [child(countUpTo(limits.MAX_REPEAT)), child(distribution)] }),
).describe(
  `How many times the call is made: a count, or a distribution drawn per span and rounded (clamped to 0 and ${limits.MAX_REPEAT}); default 1.`,
);

const share = (what: string) => unitInterval.describe(`${what}, from 0 to 1.`);
const errorRate = share('Share of these spans that fail: status error and an exception event; default 0');

const spanFields = {
  operation: nonEmptyString.describe('The operation: the span name (GET /cart, SELECT orders, publish orders).'),
  kind: oneOf(SPAN_KINDS).describe(
    'server, client, producer, consumer or internal. A client (producer) call to another service makes the client (producer) span and, below it, the callee’s server (consumer) span.',
  ),
};
const incidentFields = strict(
  'incident',
  {
    start: duration.describe('When the incident begins, after the entry’s start.'),
    for: duration.describe('How long it lasts.'),
  },
  {
    duration: spanDuration.describe('How long the span lasts during the incident; default as outside it.'),
    error_rate: share('Share of these spans that fail during the incident; default as outside it'),
  },
);
// Without either the window would change nothing: a mistake, not an incident.
const incident = andThen(
  incidentFields,
  (raw, u, c): t.Validation<IncidentConfig> =>
    raw.duration === undefined && raw.error_rate === undefined
      ? t.failure(u, c, 'expected duration or error_rate (or both): an incident without them changes nothing')
      : t.success(raw),
)
  .withSchema((child) => ({
    ...child(incidentFields),
    anyOf: [{ required: ['duration'] }, { required: ['error_rate'] }],
  }))
  .describe(
    'A window in which this span is slower or fails more (a payment outage): its duration and error_rate replace the span’s own there.',
  );

const spanOptions = { error_rate: errorRate, attributes: spanAttributes, incident };

const call: Codec<CallConfig> = new Codec<CallConfig>(
  'call',
  (u, c) => callFields.validate(u, c),
  undefined,
  (child) => callFields.schema(child),
).define('trace_call');

const calls = list(call, { max: limits.MAX_SPANS_PER_TRACE }).describe(
  'The calls this span makes, in order: each one after the one before, unless parallel.',
);

const callFields: Codec<CallConfig> = andThen(
  strict(
    'call',
    {
      ...spanFields,
      duration: spanDuration.describe(
        'How long the callee’s span lasts, in seconds: a number, a duration string (20ms) or a distribution (exponential, normal, uniform); at least as long as its calls in sequence.',
      ),
    },
    {
      ...spanOptions,
      service: nonEmptyString.describe('The service called; default the caller’s own.'),
      parallel: boolean.describe(
        'Starts together with the parallel calls next to it, and its repeats start together (a fan-out); default false.',
      ),
      propagate: boolean.describe('An error of this call marks the span that made it in error too; default false.'),
      repeat,
      probability: share('Chance that the call is made, per repeat (a cache miss); default 1'),
      calls,
      new_trace: boolean.describe(
        'A producer call to another service: its consumer starts a new trace, linked to the producer span; default false.',
      ),
      queue_delay: spanDuration.describe(
        'A producer call to another service: time from the producer span’s end to the consumer span’s start, in seconds; default 0.',
      ),
    },
  ),
  (raw): t.Validation<CallConfig> =>
    t.success({
      ...raw,
      parallel: raw.parallel ?? false,
      propagate: raw.propagate ?? false,
      error_rate: raw.error_rate ?? 0,
      attributes: raw.attributes ?? {},
      repeat: raw.repeat ?? 1,
      probability: raw.probability ?? 1,
      calls: raw.calls ?? [],
      new_trace: raw.new_trace ?? false,
    }),
);

const root = andThen(
  strict(
    'root span',
    { ...spanFields, service: nonEmptyString.describe('The service of the root span.') },
    {
      ...spanOptions,
      duration: spanDuration.describe(
        'How long the root span lasts, in seconds (a number, a duration string or a distribution); default as long as its calls.',
      ),
      calls,
    },
  ),
  (raw): t.Validation<RootSpanConfig> =>
    t.success({ ...raw, error_rate: raw.error_rate ?? 0, attributes: raw.attributes ?? {}, calls: raw.calls ?? [] }),
).describe('The first span of every trace, and below it the calls it makes.');

/** The resource attribute naming a span's service: a service's key, never one of its `attributes`. */
const SERVICE_NAME = 'service.name';

const service = andThen(
  strict(
    'service',
    {},
    {
      version: string.describe('Resource attribute service.version.'),
      environment: string.describe('Resource attribute deployment.environment.name.'),
      attributes: bounded(record(attributeKey, scalar), 'attributes').describe(
        'More resource attributes of the service (cloud.region, host.name).',
      ),
      pods: strict(
        'pods',
        { count: countUpTo(limits.MAX_PODS).describe('Pods serving the service: traces go to them in turn.') },
        {
          rotate_every: duration.describe(
            'Every pod is replaced (a new name) this often, from the entry start, as a rollout would; default never.',
          ),
        },
      ).describe('Resource attribute k8s.pod.name: <service>-<generation>-<pod>, the pod taking turns per trace.'),
    },
  ),
  (raw, u, c): t.Validation<ServiceConfig> => {
    // Every encoder, span metrics, trace_context.service and exemplars.service know a service by its key: a
    // service.name of its own would show one service under two names. One equal to the key says the same name
    // again, so it is taken, and left to the key.
    const { [SERVICE_NAME]: named, ...attributes } = raw.attributes ?? {};
    const key = c[c.length - 1]?.key;
    return named !== undefined && named !== key
      ? t.failures([
          errorAt(
            u,
            c,
            ['attributes', SERVICE_NAME],
            `the service's name is its key in services (and the service its spans name): name the service ${show(String(named))} instead`,
          ),
        ])
      : t.success({ ...raw, attributes });
  },
).describe('Resource attributes of one service (service.name is its key).');

const sampled = new Codec<number>(
  'sampled',
  (u, c) => (typeof u === 'boolean' ? t.success(u ? 1 : 0) : unitInterval.validate(u, c)),
  undefined,
  () => ({ anyOf: [{ type: 'number', minimum: 0, maximum: 1 }, { type: 'boolean' }] }),
).describe(
  'Share of traces marked sampled (the W3C trace flag), from 0 to 1, or true (all, the default) or false (none). Spans of every trace are written either way.',
);

// ---- the tree --------------------------------------------------------------------------------------

type Path = readonly (string | number)[];

/** A span of the tree, its path, and the service of the span that made it (the root's own). */
interface Place {
  readonly span: RootSpanConfig | CallConfig;
  /** The span as a call; absent for the root. */
  readonly call?: CallConfig;
  readonly path: Path;
  readonly caller: string;
  /** The service running the span's calls: the callee's, or the caller's own. */
  readonly service: string;
  /** Most instances of the span in one trace: the largest `repeat` of each call on its path, multiplied. */
  readonly instances: number;
}

/** Every span of the tree, the root first, each before its calls. */
function places(root: RootSpanConfig): Place[] {
  const found: Place[] = [];
  const visit = (
    span: RootSpanConfig | CallConfig,
    call: CallConfig | undefined,
    path: Path,
    caller: string,
    instances: number,
  ) => {
    const service = span.service ?? caller;
    found.push({ span, path, caller, service, instances, ...(call && { call }) });
    for (const [i, child] of span.calls.entries())
      visit(child, child, [...path, 'calls', i], service, instances * mostCopies(child));
  };
  visit(root, undefined, ['root'], root.service, 1);
  return found;
}

/** Problems of one call's kind and the fields that only some kinds take. */
function pairProblems({ call: span, path, caller }: Place): [Path, string][] {
  if (!span) return [];
  const problems: [Path, string][] = [];
  const pair = isPair(span, caller);
  const asyncPair = isAsync(span, caller);
  if ((span.kind === 'client' || span.kind === 'producer') && !pair && span.calls.length > 0)
    problems.push([
      [...path, 'calls'],
      `a ${span.kind} call to no other service is one span, with nobody below it to make calls: name the service it calls (service: <name>)`,
    ]);
  if (span.new_trace && !asyncPair)
    problems.push([
      [...path, 'new_trace'],
      'only a producer call to another service can start a new trace (its consumer roots it, linked to the producer)',
    ]);
  if (span.queue_delay !== undefined && !asyncPair)
    problems.push([[...path, 'queue_delay'], 'only a producer call to another service has a queue delay']);
  if (span.propagate && asyncPair)
    problems.push([
      [...path, 'propagate'],
      'a consumer’s error cannot reach the span that made the producer call: that span does not wait for the consumer',
    ]);
  return problems;
}

/** Fewest and most seconds a duration takes (after the clamp to [0, limit]; a drift or an unbounded tail has no bound below the limit). */
function durationRange(d: SpanDuration): readonly [number, number] {
  if (typeof d === 'number') return [d, d];
  const [low, high] = drawRange(d);
  return [Math.max(0, low), Math.min(limits.MAX_SPAN_SECONDS, high)];
}

/** Fewest and most times a call is made (a drawn count is rounded and clamped to [0, MAX_REPEAT]). */
function repeatRange(r: number | DistributionConfig): readonly [number, number] {
  if (typeof r === 'number') return [r, r];
  const [low, high] = drawRange(r);
  return [Math.max(0, Math.round(low)), Math.min(limits.MAX_REPEAT, Math.round(high))];
}

/**
 * The calls of `span` must fit in its longest duration: each sequential call (or parallel group)
 * at its shortest, one after another. The first call that cannot fit is the problem: a parent
 * is stretched to cover its calls, so a bound the calls always overrun is a mistake.
 */
function fitProblems({ span, path, service }: Place): [Path, string][] {
  if (span.duration === undefined) return [];
  const longest = durationRange(span.duration)[1];
  let used = 0;
  let group = 0;
  for (const [i, child] of span.calls.entries()) {
    const copies = child.probability === 1 ? repeatRange(child.repeat)[0] : 0;
    // A producer's span is the publish only: its consumer runs outside it.
    const shortest = isAsync(child, service) ? 0 : durationRange(child.duration)[0];
    const takes = copies === 0 ? 0 : child.parallel ? shortest : copies * shortest;
    if (child.parallel) {
      group = Math.max(group, takes);
    } else {
      used += group + takes;
      group = 0;
    }
    if (used + group > longest)
      return [
        [
          [...path, 'calls', i, 'duration'],
          `takes at least ${seconds(takes)}${used + group > takes ? ` with the calls before it (${seconds(used + group)} in all)` : ''}, more than the ${seconds(longest)} its parent lasts at most: a parent lasts at least as long as its calls in sequence`,
        ],
      ];
  }
  return [];
}

const seconds = (s: number) => formatMs(s * 1000);

/** Spans one instance of `span` makes at most, its calls at their largest repeat; `call` is the span as a call (not the root). */
function spansOf(span: RootSpanConfig | CallConfig, call: CallConfig | undefined, caller: string): number {
  const service = span.service ?? caller;
  const own = call && isPair(call, caller) ? 2 : 1;
  return own + span.calls.reduce((sum, child) => sum + mostCopies(child) * spansOf(child, child, service), 0);
}

const mostCopies = (call: CallConfig) => repeatRange(call.repeat)[1];

/**
 * Where the span bound is overrun: down the tree through the call whose spans make up most of
 * the excess, to the repeat that multiplies past it, or to the calls that add up past it.
 */
function boundProblem(root: RootSpanConfig): [Path, string] | undefined {
  const max = limits.MAX_SPANS_PER_TRACE;
  const limit = `; the limit is ${max} spans per trace`;
  let place: Place = { span: root, path: ['root'], caller: root.service, service: root.service, instances: 1 };
  let total = spansOf(root, undefined, root.service);
  if (total <= max) return undefined;
  for (;;) {
    const { span, path, service } = place;
    const parts = span.calls.map((child) => ({ child, each: spansOf(child, child, service) }));
    const weight = (part: (typeof parts)[number]) => mostCopies(part.child) * part.each;
    const biggest = parts.reduce((a, b) => (weight(b) > weight(a) ? b : a));
    const i = parts.indexOf(biggest);
    const childPath = [...path, 'calls', i];
    if (biggest.each > max) {
      const callee = biggest.child.service ?? service;
      place = {
        span: biggest.child,
        call: biggest.child,
        path: childPath,
        caller: service,
        service: callee,
        instances: 1,
      };
      total = biggest.each;
      continue;
    }
    if (weight(biggest) > max)
      return [
        [...childPath, 'repeat'],
        `up to ${mostCopies(biggest.child)} times ${biggest.each} spans is ${weight(biggest)} spans per trace${limit}`,
      ];
    const shares = parts.map((part, k) => `calls[${k}]: ${weight(part)}`).join(', ');
    return [[...path, 'calls'], `these calls make up to ${total} spans per trace (${shares})${limit}`];
  }
}

const textBytes = (value: AttributeValue): number => Buffer.byteLength(String(value));

/** Bytes of a span's attributes as text, each picked one at its longest (a counter's number: 8 digits at most). */
function attributeBytes(attributes: Readonly<Record<string, TraceAttribute>>): number {
  let bytes = 0;
  for (const [key, attribute] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(key);
    if (attribute.form === 'fixed') bytes += textBytes(attribute.value);
    else if (attribute.form === 'list')
      bytes += attribute.values.reduce<number>((most, v) => Math.max(most, textBytes(v)), 0);
    else bytes += Buffer.byteLength(attribute.prefix) + 8;
  }
  return bytes;
}

/** What every resource carries besides the service's own values, about: its keys, `service.instance.id` and `telemetry.sdk.*`. */
const STANDARD_RESOURCE_BYTES = 256;

/** Bytes of a service's resource attributes as text: its name, version, environment, attributes, a pod's name. */
function resourceBytes(name: string, service: ServiceConfig | undefined): number {
  let bytes = STANDARD_RESOURCE_BYTES + Buffer.byteLength(name) + (service?.pods ? Buffer.byteLength(name) + 20 : 0);
  for (const text of [service?.version, service?.environment]) if (text !== undefined) bytes += textBytes(text);
  for (const [key, value] of Object.entries(service?.attributes ?? {}))
    bytes += Buffer.byteLength(key) + textBytes(value);
  return bytes;
}

/** What the spans of one trace weigh (limits.MAX_TRACE_BYTES), and what weighs most: a span's attributes, or a service's resource. */
function traceWeight(config: TraceGeneratorConfig, all: readonly Place[]) {
  const parts: { path: Path; what: string; spans: number; each: number }[] = [];
  const spansIn = new Map<string, number>();
  const runsIn = (service: string, spans: number) => spansIn.set(service, (spansIn.get(service) ?? 0) + spans);
  for (const { span, call, caller, service, path, instances } of all) {
    const pair = call !== undefined && isPair(call, caller);
    if (pair) runsIn(caller, instances);
    runsIn(service, instances);
    const spans = pair ? 2 * instances : instances;
    parts.push({ path: [...path, 'attributes'], what: 'attributes', spans, each: attributeBytes(span.attributes) });
  }
  for (const [name, spans] of spansIn)
    parts.push({
      path: ['services', name],
      what: 'resource attributes',
      spans,
      each: resourceBytes(name, config.services[name]),
    });
  const total = parts.reduce((sum, part) => sum + part.spans * part.each, 0);
  const heaviest = parts.reduce((a, b) => (b.spans * b.each > a.spans * a.each ? b : a));
  return { total, heaviest };
}

/** The trace's weight past the bound, said at what weighs most. */
function weightProblem(config: TraceGeneratorConfig, all: readonly Place[]): [Path, string] | undefined {
  const { total, heaviest } = traceWeight(config, all);
  if (total <= limits.MAX_TRACE_BYTES) return undefined;
  const { path, what, spans, each } = heaviest;
  return [
    path,
    `up to ${spans} span${spans === 1 ? '' : 's'} carrying ${formatBytes(each)} of ${what} each: a trace of up to ${formatBytes(total)} of attributes (each span's own and its resource's, as text); the limit is ${formatBytes(limits.MAX_TRACE_BYTES)} per trace`,
  ];
}

/** Most bytes of attributes the spans of one tick carry (limits.MAX_TRACE_BYTES): what an entry's batches are sized by too. */
export function maxTraceBytes(config: TraceGeneratorConfig): number {
  return traceWeight(config, places(config.root)).total;
}

/** The services the spans of a trace generator's tree run in. */
export function spanServices(config: { readonly root: RootSpanConfig }): Set<string> {
  return new Set(places(config.root).map((place) => place.service));
}

/** The kinds of the spans each service of the tree runs: a pair's caller span in its caller's, its callee's in its own. */
export function spanKindsByService(config: { readonly root: RootSpanConfig }): Map<string, Set<SpanKind>> {
  const found = new Map<string, Set<SpanKind>>();
  const add = (service: string, kind: SpanKind) => found.set(service, (found.get(service) ?? new Set()).add(kind));
  for (const { span, call, caller, service } of places(config.root)) {
    if (call && isPair(call, caller)) {
      add(caller, call.kind);
      add(service, call.kind === 'client' ? 'server' : 'consumer');
    } else add(service, span.kind);
  }
  return found;
}

/** Services of `services` that no span of the tree runs in. */
function unusedServices(config: TraceGeneratorConfig, all: readonly Place[]): [Path, string][] {
  const used = new Set(all.map((p) => p.service));
  return Object.keys(config.services)
    .filter((name) => !used.has(name))
    .map((name) => [['services', name], `no span of the tree runs in service ${show(name)}`]);
}

/** Most spans one tick makes (its trace and the traces its consumers start): what an entry's batches are sized by. */
export function maxSpansPerTrace(config: { readonly root: RootSpanConfig }): number {
  return spansOf(config.root, undefined, config.root.service);
}

export const traceGenerator: Codec<TraceGeneratorConfig> = andThen(
  strict(
    'trace_generator',
    { root },
    {
      services: record(nonEmptyString, service).describe(
        'Resource attributes per service name (service.version, deployment.environment.name, k8s.pod.name, more).',
      ),
      sampled,
      seed: integer.describe(
        'Seed of every draw (ids, durations, errors, picks); the same seed makes the same traces.',
      ),
    },
  ),
  (raw, u, c): t.Validation<TraceGeneratorConfig> => {
    const config: TraceGeneratorConfig = {
      root: raw.root,
      services: raw.services ?? {},
      sampled: raw.sampled ?? 1,
      seed: raw.seed ?? 0,
    };
    const all = places(config.root);
    // The weight counts spans as the span bound does: past that bound, it would only repeat the problem.
    const bound = boundProblem(config.root) ?? weightProblem(config, all);
    const problems = [
      ...all.flatMap((place) => [...pairProblems(place), ...fitProblems(place)]),
      ...(bound ? [bound] : []),
      ...unusedServices(config, all),
    ];
    return problems.length
      ? t.failures(problems.map(([path, message]) => errorAt(u, c, path, message)))
      : t.success(config);
  },
)
  .describe(
    'Traces: a root span and the calls under it, services calling each other; rate counts the traces ticks start.',
  )
  .define('trace_generator');
