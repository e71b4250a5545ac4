import {
  SAMPLED_FLAG,
  SPAN_STATUS,
  type AttributeValue,
  type PickedAttribute,
  type SpanKind,
  type SpanNode,
  type SpanResource,
  type SpanWriter,
  type TraceGenerator,
} from '../../operators/model/span.js';
import { MAX_REPEAT, MAX_SPAN_SECONDS } from '../language/limits.js';
import {
  isAsync,
  isPair,
  type CallConfig,
  type IncidentConfig,
  type RootSpanConfig,
  type ServiceConfig,
  type SpanDuration,
  type TraceGeneratorConfig,
} from '../language/traces.js';
import { createHash } from 'node:crypto';
import { SplitMix64, textSeed } from '../random.js';
import { TELEMETRY_SDK } from '../../operators/model/resource.js';
import { observation } from './distribution.js';
import { microsecondCycle, onMicrosecondGrid } from '../../operators/model/window.js';

/** A draw of seconds or of a count: from two unit draws (the second read by normal distributions only), at `at` ms. */
type Draw = (u: number, v: number, at: number) => number;

/** One call of the tree (or the root), compiled: its nodes and what each instance draws. */
interface CompiledCall {
  /** Node of the span the call makes in its caller (its only span, unless a pair). */
  readonly node: number;
  /** Node of the callee's span of a pair (server, consumer), or -1. */
  readonly callee: number;
  /** A producer pair: the consumer runs after the producer span, outside it. */
  readonly async: boolean;
  readonly newTrace: boolean;
  /** Seconds of the span running the call's calls (the callee's of a pair); absent: as long as its calls. */
  readonly duration?: Draw;
  readonly queueDelay?: Draw;
  readonly errorRate: number;
  /** Its incident window (ms after the entry start) and what it changes there. */
  readonly incident?: {
    readonly from: number;
    readonly until: number;
    readonly duration?: Draw;
    readonly errorRate?: number;
  };
  readonly propagate: boolean;
  readonly parallel: boolean;
  readonly repeat: number | Draw;
  readonly probability: number;
  /** How many values each picked attribute draws from; 0: none drawn, its first value (a fixed status code). */
  readonly choices: readonly number[];
  /** The pick of its HTTP spans' `http.response.status_code`, when they are HTTP spans that have one. */
  readonly statusCode?: StatusCode;
  readonly calls: readonly CompiledCall[];
}

/**
 * The `http.response.status_code` of a call's HTTP spans (kind server or client), as a pick, so that a span in error
 * can answer {@link FAILURE_STATUS_CODE} (docs/traces.md#errors): a fixed code becomes a pick of one value that is
 * never drawn, a list's picks are drawn among its own values.
 */
interface StatusCode {
  /** Its index among the node's picked attributes. */
  readonly at: number;
  /** Index of the value a span in error answers, when its own is no error for its kind. */
  readonly failure: number;
  /** By value index: whether it is an error of a server span (5xx), of a client span (4xx and 5xx). */
  readonly errors: { readonly server: Uint8Array; readonly client: Uint8Array };
}

const HTTP_STATUS_CODE = 'http.response.status_code';
/** What an HTTP span in error answers when its own status code is no error: 500 Internal Server Error. */
const FAILURE_STATUS_CODE = 500;
/** The least status code that is an error, by kind: the semantic conventions' rule for HTTP spans' status. */
const LEAST_ERROR_CODE = { server: 500, client: 400 } as const;

/** Gap before each call of a span: this much, plus {@link GAP_SHARE} of the span's own duration shared among its calls. */
const MIN_GAP_NS = 10_000;
const GAP_SHARE = 0.1;
/** Network time of a call, each way (client to server, server back to client; a publish): uniform in this range. */
const LATENCY_MIN_NS = 100_000;
const LATENCY_SPREAD_NS = 400_000;
const NS_PER_MS = 1e6;
const NS_PER_SECOND = 1e9;

/** Where an incident changes its span: `[from, until)`, ms after the entry start. */
export function incidentWindow(incident: IncidentConfig): { readonly from: number; readonly until: number } {
  // On the grid, as mergedWindows ends a window: 1.1 + 2.2 ms is 3.3000000000000003, which kept the span at 3.3 ms in it.
  return { from: incident.start, until: onMicrosecondGrid(incident.start + incident.for) };
}

/** The incidents of a `trace_generator`'s spans, root first, each with the operation of the span it changes. */
export function incidentsOf(
  config: TraceGeneratorConfig,
): { readonly operation: string; readonly incident: IncidentConfig }[] {
  const found: { operation: string; incident: IncidentConfig }[] = [];
  // Calls nest at most MAX_SPANS_PER_TRACE deep: the recursion is bounded.
  const walk = (span: RootSpanConfig | CallConfig): void => {
    if (span.incident) found.push({ operation: span.operation, incident: span.incident });
    span.calls.forEach(walk);
  };
  walk(config.root);
  return found;
}

/**
 * The traces of a `trace_generator`: tick n makes one trace, a pure function of (seed, n, the
 * tick's time), its ids of the run's anchor too. Every draw of trace n comes from its own SplitMix64 stream, seeded with output n
 * of the entry's (draw k of trace n), so a trace does not depend on the ones before it, and the
 * same seed makes the same traces on every run and machine. Their ids depend on `entryId` too, so that two entries
 * of one file, which share a seed (0 by default) and a start instant, never write the same ids.
 *
 * Layout (docs/traces.md): a span's calls start one after another, each after a gap of 10 µs
 * plus a tenth of the span's own duration shared among them; parallel calls (and the repeats of
 * a parallel call) start together and the next call waits for the last of them. A span ends at
 * its own duration, or 10 µs after its last call if that is later. A client span starts a network
 * delay (0.1 to 0.5 ms) before its server span and ends one after it; a producer span lasts one
 * such delay, and its consumer starts after it, `queue_delay` and one more delay later.
 */
export function traceGenerator(config: TraceGeneratorConfig, entryId = ''): TraceGenerator {
  const nodes: SpanNode[] = [];
  const services: string[] = [];
  const nodeService: number[] = [];
  const addNode = (node: SpanNode): number => {
    let service = services.indexOf(node.service);
    if (service < 0) service = services.push(node.service) - 1;
    nodeService.push(service);
    return nodes.push(node) - 1;
  };
  const compile = (span: RootSpanConfig | CallConfig, call: CallConfig | undefined, caller: string): CompiledCall => {
    const service = span.service ?? caller;
    const pair = call !== undefined && isPair(call, caller);
    const http = span.kind === 'server' || span.kind === 'client';
    const { fixed, picked, choices, statusCode } = attributesOf(span.attributes, http);
    // The caller's span of a pair names its callee, as instrumentations do, unless the call names it.
    const named = Object.hasOwn(span.attributes, 'peer.service');
    const peer = pair ? service : typeof fixed['peer.service'] === 'string' ? fixed['peer.service'] : undefined;
    const callerAttributes = pair && !named ? { 'peer.service': service, ...fixed } : fixed;
    const node = addNode(nodeOf(pair ? caller : service, span, span.kind, callerAttributes, picked, peer));
    const callee = pair
      ? addNode(nodeOf(service, span, span.kind === 'client' ? 'server' : 'consumer', fixed, picked))
      : -1;
    return {
      node,
      callee,
      async: call !== undefined && isAsync(call, caller),
      newTrace: call?.new_trace ?? false,
      ...(span.duration !== undefined && { duration: secondsDraw(span.duration) }),
      ...(call?.queue_delay !== undefined && { queueDelay: secondsDraw(call.queue_delay) }),
      errorRate: span.error_rate,
      ...(span.incident && {
        incident: {
          ...incidentWindow(span.incident),
          ...(span.incident.duration !== undefined && { duration: secondsDraw(span.incident.duration) }),
          ...(span.incident.error_rate !== undefined && { errorRate: span.incident.error_rate }),
        },
      }),
      propagate: call?.propagate ?? false,
      parallel: call?.parallel ?? false,
      repeat: call === undefined ? 1 : typeof call.repeat === 'number' ? call.repeat : observation(call.repeat),
      probability: call?.probability ?? 1,
      choices,
      ...(statusCode && { statusCode }),
      calls: span.calls.map((child) => compile(child, child, service)),
    };
  };
  const root = compile(config.root, undefined, config.root.service);
  const resources = services.map((name) => resourcesOf(name, config.services[name]));
  const entry = new SplitMix64(config.seed);
  const random = new SplitMix64(0);
  // Ids differ from run to run and from entry to entry, where the rest of a trace is the same for a seed: see `salted`.
  const salt = new Uint32Array(6);
  const entrySalt = new Uint32Array(6);
  const ofEntry = new SplitMix64(textSeed(entryId));
  for (let w = 0; w < 6; w += 2) ofEntry.words(w, entrySalt, w);
  let saltedFor = NaN;
  const { sampled } = config;

  // The state of the trace being written: its output, its next draw, its tick.
  let out: SpanWriter;
  let draw = 0;
  let tick = 0;
  let at = 0;
  /** Whether the last instance written failed in a way its caller sees. */
  let failed = false;
  /** Copies of each call of the spans being written, a frame per span. */
  const copies: number[] = [];

  const unit = () => random.unit(draw++);
  const nanoseconds = (seconds: Draw | undefined): number =>
    seconds ? Math.round(seconds(unit(), unit(), at) * NS_PER_SECOND) : 0;
  const latency = () => LATENCY_MIN_NS + Math.round(unit() * LATENCY_SPREAD_NS);
  /** The call's incident, when the trace being written starts inside its window. */
  const incidentOf = ({ incident }: CompiledCall) =>
    incident && at >= incident.from && at < incident.until ? incident : undefined;
  const durationOf = (call: CompiledCall) => incidentOf(call)?.duration ?? call.duration;
  const errorRateOf = (call: CompiledCall) => incidentOf(call)?.errorRate ?? call.errorRate;

  /** Fresh ids (never all zero) of a span: a new trace's id and flags when `parent` is -1, its parent's otherwise. */
  const open = (node: number, parent: number, start: number): number => {
    const s = out.add(node, parent, resources[nodeService[node]!]!(tick, at));
    const { traceId, spanId, flags } = out;
    if (parent < 0) {
      random.words(draw++, traceId, 4 * s);
      random.words(draw++, traceId, 4 * s + 2);
      for (let w = 0; w < 4; w++) traceId[4 * s + w] ^= salt[w]!;
      if ((traceId[4 * s]! | traceId[4 * s + 1]! | traceId[4 * s + 2]! | traceId[4 * s + 3]!) === 0)
        traceId[4 * s + 3] = 1;
      flags[s] = unit() < sampled ? SAMPLED_FLAG : 0;
    } else {
      traceId.copyWithin(4 * s, 4 * parent, 4 * parent + 4);
      flags[s] = flags[parent]!;
    }
    random.words(draw++, spanId, 2 * s);
    spanId[2 * s] ^= salt[4]!;
    spanId[2 * s + 1] ^= salt[5]!;
    if ((spanId[2 * s]! | spanId[2 * s + 1]!) === 0) spanId[2 * s + 1] = 1;
    out.start[s] = start;
    return s;
  };

  /** The call's picks for span `s`, drawn once per instance (both spans of a pair share them). */
  const pick = (call: CompiledCall, s: number) => {
    const { choices } = call;
    if (choices.length === 0) return;
    const at = out.pickRoom(choices.length);
    out.pickAt[s] = at;
    for (let j = 0; j < choices.length; j++)
      out.picks[at + j] = choices[j] === 0 ? 0 : Math.floor(unit() * choices[j]!);
  };

  /** Whether span `s` answered a status code that is an error for its kind (server or client). */
  const answeredError = (code: StatusCode | undefined, s: number): boolean =>
    code !== undefined &&
    code.errors[nodes[out.node[s]!]!.kind as 'server' | 'client'][out.picks[out.pickAt[s]! + code.at]!] === 1;

  /**
   * Ends span `s` at `end`; its status from its own error draw, its status code (a server's 5xx is its error, a
   * client's 4xx or 5xx one it sees) and its calls' errors. A span in error whose status code is none answers 500.
   * Returns whether it failed.
   */
  const close = (s: number, end: number, errorRate: number, callFailed: boolean, code?: StatusCode): boolean => {
    const drawn = errorRate > 0 && unit() < errorRate;
    const answered = answeredError(code, s);
    const raised = drawn || (answered && nodes[out.node[s]!]!.kind === 'server');
    const seen = callFailed || answered;
    out.end[s] = end;
    out.status[s] = raised ? SPAN_STATUS.error : seen ? SPAN_STATUS.failedCall : SPAN_STATUS.unset;
    if (code && (raised || seen) && !answered) out.picks[out.pickAt[s]! + code.at] = code.failure;
    return raised || seen;
  };

  /** How many copies of `call` an instance of its caller makes: its repeat, each copy kept with its probability. */
  const copiesOf = (call: CompiledCall): number => {
    const { repeat, probability } = call;
    const times =
      typeof repeat === 'number' ? repeat : Math.min(MAX_REPEAT, Math.max(0, Math.round(repeat(unit(), unit(), at))));
    if (probability === 1) return times;
    let made = 0;
    for (let i = 0; i < times; i++) if (unit() < probability) made++;
    return made;
  };

  /**
   * Writes the calls of `call` below span `s`, which starts at `start` and lasts `own` ns by
   * itself; returns when `s` ends and sets `failed` when a call that propagates failed.
   */
  const calls = (call: CompiledCall, s: number, start: number, own: number): number => {
    const children = call.calls;
    const frame = copies.length;
    let slots = 0;
    let inGroup = false;
    for (const child of children) {
      const n = copiesOf(child);
      copies.push(n);
      if (!child.parallel) slots += n;
      else if (n > 0 && !inGroup) slots++;
      inGroup = child.parallel && (inGroup || n > 0);
    }
    const gap = MIN_GAP_NS + Math.round((GAP_SHARE * own) / (slots + 1));
    let cursor = start;
    let groupStart = -1;
    let groupEnd = 0;
    let callFailed = false;
    for (let c = 0; c < children.length; c++) {
      const child = children[c]!;
      const n = copies[frame + c]!;
      if (child.parallel) {
        if (n === 0) continue;
        if (groupStart < 0) groupEnd = groupStart = cursor + gap;
        for (let copy = 0; copy < n; copy++) {
          groupEnd = Math.max(groupEnd, instance(child, s, groupStart));
          callFailed ||= child.propagate && failed;
        }
      } else {
        if (groupStart >= 0) [cursor, groupStart] = [groupEnd, -1];
        for (let copy = 0; copy < n; copy++) {
          cursor = instance(child, s, cursor + gap);
          callFailed ||= child.propagate && failed;
        }
      }
    }
    if (groupStart >= 0) cursor = groupEnd;
    copies.length = frame;
    failed = callFailed;
    return cursor === start ? start + own : Math.max(start + own, cursor + MIN_GAP_NS);
  };

  /** Writes one instance of `call` below span `parent`, from `start`; returns when its span in the caller ends. */
  const instance = (call: CompiledCall, parent: number, start: number): number => {
    const first = open(call.node, parent, start);
    pick(call, first);
    if (call.callee < 0) {
      const end = calls(call, first, start, nanoseconds(durationOf(call)));
      failed = close(first, end, errorRateOf(call), failed, call.statusCode);
      return end;
    }
    const there = latency();
    if (call.async) {
      const published = start + there;
      out.end[first] = published;
      const consumed = published + nanoseconds(call.queueDelay) + latency();
      const consumer = call.newTrace ? open(call.callee, -1, consumed) : open(call.callee, first, consumed);
      if (call.newTrace) out.link[consumer] = first;
      out.pickAt[consumer] = out.pickAt[first]!;
      close(consumer, calls(call, consumer, consumed, nanoseconds(durationOf(call))), errorRateOf(call), failed);
      // The producer does not wait for its consumer: nothing reaches the caller.
      failed = false;
      return published;
    }
    const back = latency();
    const server = open(call.callee, first, start + there);
    out.pickAt[server] = out.pickAt[first]!;
    const served = calls(call, server, start + there, nanoseconds(durationOf(call)));
    failed = close(server, served, errorRateOf(call), failed, call.statusCode);
    out.end[first] = served + back;
    // The client sees its server's failure (and the 5xx it answered then), or a status code that is a client's error.
    failed ||= answeredError(call.statusCode, first);
    out.status[first] = failed ? SPAN_STATUS.failedCall : SPAN_STATUS.unset;
    return served + back;
  };

  /**
   * The words every id of a run is XORed with, drawn from its anchor (the `start_time` instant) and its entry's
   * id: a run that starts `now` writes ids no other run wrote, and an entry ids no other entry of its file wrote,
   * so two runs or two entries into one trace backend never merge their traces, while a run with an absolute
   * `start_time` (a replay, a backfill) writes the same ids again. XOR by one constant keeps the ids of a run apart
   * from each other, and leaves every other draw where it was.
   */
  const salted = (anchor: number): void => {
    const source = new SplitMix64(anchor);
    for (let w = 0; w < 6; w += 2) source.words(w, salt, w);
    for (let w = 0; w < 6; w++) salt[w] ^= entrySalt[w]!;
    saltedFor = anchor;
  };

  return {
    nodes,
    trace(index, offset, writer, anchor) {
      if (anchor !== saltedFor) salted(anchor);
      out = writer;
      draw = 0;
      tick = index;
      at = offset;
      random.reseed(entry, index);
      instance(root, -1, Math.round(offset * NS_PER_MS));
    },
  };
}

function nodeOf(
  service: string,
  span: RootSpanConfig | CallConfig,
  kind: SpanKind,
  attributes: Readonly<Record<string, AttributeValue>>,
  picked: readonly PickedAttribute[],
  peer?: string,
): SpanNode {
  return {
    service,
    name: span.operation,
    kind,
    attributes,
    picked,
    ...(peer !== undefined && { peer }),
    exception: { type: 'Error', message: `${span.operation} failed` },
  };
}

/**
 * A span's attributes split into fixed ones and picked ones, with the number of choices of each pick; of `http` spans
 * (server, client), the status code as a pick (a fixed whole number or a list of them; text or other numbers are no code).
 */
function attributesOf(attributes: RootSpanConfig['attributes'], http: boolean) {
  const fixed: Record<string, AttributeValue> = {};
  const picked: PickedAttribute[] = [];
  const choices: number[] = [];
  let statusCode: StatusCode | undefined;
  for (const [key, attribute] of Object.entries(attributes)) {
    const own = attribute.form === 'fixed' ? [attribute.value] : attribute.form === 'list' ? attribute.values : [];
    // Only whole numbers are codes: a quoted "503" or a float is written as given, and no 500 of another type joins it.
    if (http && key === HTTP_STATUS_CODE && own.length > 0 && own.every((v) => Number.isInteger(v))) {
      const known = own.indexOf(FAILURE_STATUS_CODE);
      const values = known < 0 ? [...own, FAILURE_STATUS_CODE] : own;
      const errorsFrom = (least: number) => Uint8Array.from(values, (v) => ((v as number) >= least ? 1 : 0));
      statusCode = {
        at: picked.length,
        failure: known < 0 ? own.length : known,
        errors: { server: errorsFrom(LEAST_ERROR_CODE.server), client: errorsFrom(LEAST_ERROR_CODE.client) },
      };
      picked.push({ key, values });
      choices.push(attribute.form === 'fixed' ? 0 : own.length);
    } else if (attribute.form === 'fixed') fixed[key] = attribute.value;
    else if (attribute.form === 'list') {
      picked.push({ key, values: attribute.values });
      choices.push(attribute.values.length);
    } else {
      picked.push({ key, prefix: attribute.prefix, cardinality: attribute.cardinality });
      choices.push(attribute.cardinality);
    }
  }
  return { fixed, picked, choices, statusCode };
}

/** Seconds of a span duration, clamped to [0, MAX_SPAN_SECONDS]. */
function secondsDraw(duration: SpanDuration): Draw {
  if (typeof duration === 'number') return () => duration;
  const observe = observation(duration);
  return (u, v, at) => Math.min(MAX_SPAN_SECONDS, Math.max(0, observe(u, v, at)));
}

/** The OpenTelemetry semantic conventions' namespace of UUID v5 `service.instance.id`s. */
const INSTANCE_ID_NAMESPACE = Buffer.from('4d63009a8d0f11eeaad74c796ed8e320', 'hex');

/** A `service.instance.id` as the semantic conventions recommend: a UUID v5 of the instance's name (a pod's, or the service's). */
function instanceId(name: string): string {
  const hash = createHash('sha1').update(INSTANCE_ID_NAMESPACE).update(name).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The resource of a span of `service` on tick n at `at` ms (docs/traces.md#resources-and-pods): `service.name`, its
 * `version` and `environment` (`deployment.environment.name`), a `service.instance.id`, `telemetry.sdk.*`, and its
 * `attributes` over them; with `pods`, the pod `n mod count` of the generation `at / rotate_every` as `k8s.pod.name`
 * and as the instance. A generation's resources are made once and kept until the next one (encoders cache their
 * bytes per object).
 */
function resourcesOf(service: string, config: ServiceConfig | undefined): (n: number, at: number) => SpanResource {
  const named: Record<string, AttributeValue> = { 'service.name': service };
  if (config?.version !== undefined) named['service.version'] = config.version;
  const described: Record<string, AttributeValue> = { ...TELEMETRY_SDK };
  if (config?.environment !== undefined) described['deployment.environment.name'] = config.environment;
  const own = config?.attributes ?? {};
  const instance = (name: string) => ({ ...named, 'service.instance.id': instanceId(name), ...described });
  const pods = config?.pods;
  if (!pods) {
    const resource = { service, attributes: { ...instance(service), ...own } };
    return () => resource;
  }
  // The pods of a service counted together (span metrics): its resource without the pod's own attributes.
  const resource = { service, attributes: { ...named, ...described, ...own } };
  let generation = -1;
  // Made as the turns reach them: a generation may end before every pod served a trace.
  let current: (SpanResource | undefined)[] = [];
  // In microseconds: in ms, 0.3 / 0.1 is 2.999…, which kept a trace at 0.3 ms in the generation before.
  const generations = pods.rotate_every ? microsecondCycle(pods.rotate_every) : undefined;
  return (n, at) => {
    const now = generations ? generations.index(at) : 0;
    if (now !== generation) [generation, current] = [now, []];
    const pod = n % pods.count;
    const name = `${service}-${now}-${pod}`;
    return (current[pod] ??= {
      service,
      attributes: { ...instance(name), 'k8s.pod.name': name, ...own },
      serviceResource: resource,
    });
  };
}
