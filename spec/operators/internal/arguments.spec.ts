import { expect } from 'chai';
import { lastValueFrom, NEVER, of, pipe, toArray, type OperatorFunction } from 'rxjs';
import {
  bursts,
  deliver,
  encode,
  exemplars,
  gapWindows,
  gaps,
  gate,
  generate,
  histogram,
  jitter,
  labels,
  nativeHistogram,
  observe,
  RateSchedule,
  spanMetrics,
  summary,
  ticks,
  traceContext,
  type Sink,
  type TickBatch,
} from '../../../operators/index.js';

/** Calls a JavaScript caller could make: the types would refuse them, so they are cast. */
const untyped = (value: unknown): any => value;

describe('operator arguments', () => {
  const refused: [string, () => unknown, ErrorConstructor, string][] = [
    ['ticks maxBatch', () => ticks({ maxBatch: 0 }), RangeError, 'ticks: maxBatch must be a whole number ≥ 1, got 0'],
    [
      'ticks duration',
      () => ticks({ duration: Number.NaN }),
      RangeError,
      'ticks: duration must be a number of ms ≥ 0 (Infinity: no end), got NaN',
    ],
    [
      'ticks duration as text',
      () => ticks({ duration: untyped('50') }),
      TypeError,
      'ticks: duration must be a number of ms ≥ 0 (Infinity: no end), got "50"',
    ],
    [
      'bursts',
      () => bursts({ every: 0, for: 0, multiplier: 2 }),
      RangeError,
      'bursts: burst.every must be a finite number > 0, got 0',
    ],
    [
      'gaps for ≥ every',
      () => gaps({ every: 100, for: 200 }),
      RangeError,
      'gaps: window.for must be shorter than window.every (100 ms), got 200 ms',
    ],
    [
      'gaps without for',
      () => gaps(untyped({ every: 200, duration: 100 })),
      RangeError,
      'gaps: window must be an object with every and for, got {every, duration}',
    ],
    [
      'gapWindows',
      () => gapWindows([{ at: 0, for: -1 }]),
      RangeError,
      'gapWindows: windows[0].for must be a finite number > 0, got -1',
    ],
    ['generate', () => generate(untyped(5)), TypeError, 'generate: generator must be a function, got 5'],
    ['jitter', () => jitter(Number.NaN), RangeError, 'jitter: amount must be a finite number ≥ 0, got NaN'],
    [
      'labels cardinality',
      () => labels({ dynamic: [{ key: 'pod', cardinality: 0 }] }),
      RangeError,
      'labels: dynamic[0].cardinality must be a whole number ≥ 1, got 0',
    ],
    [
      'labels values',
      () => labels({ dynamic: [{ key: 'pod', values: [] }] }),
      RangeError,
      'labels: dynamic[0].values must not be empty',
    ],
    // Label values are text: a number prefix would be added to the counter ("6" for prefix 5, tick 1), a string
    // given as the static map would label events with its characters.
    [
      'labels static as text',
      () => labels({ static: untyped('env=ci') }),
      TypeError,
      'labels: static must be an object, got "env=ci"',
    ],
    [
      'labels static value',
      () => labels({ static: untyped({ env: 1 }) }),
      TypeError,
      'labels: static.env must be a string, got 1',
    ],
    [
      'labels rotating prefix',
      () => labels({ dynamic: [{ key: 'pod', cardinality: 2, prefix: untyped(5) }] }),
      TypeError,
      'labels: dynamic[0].prefix must be a string, got 5',
    ],
    [
      'labels rotating value',
      () => labels({ dynamic: [{ key: 'pod', values: untyped(['a', 2]) }] }),
      TypeError,
      'labels: dynamic[0].values[1] must be a string, got 2',
    ],
    [
      'labels spike prefix',
      () => labels({ spikes: [{ label: 'user', every: 100, for: 10, cardinality: 2, prefix: untyped(7) }] }),
      TypeError,
      'labels: spikes[0].prefix must be a string, got 7',
    ],
    [
      'labels shard',
      () => labels({ shard: { index: 2, count: 2 } }),
      RangeError,
      'labels: shard.index must be a whole number from 0 to 1 (below shard.count), got 2',
    ],
    [
      'observe',
      () => observe(() => 1, -1),
      RangeError,
      'observe: perTick must be a whole number from 0 to 10000, got -1',
    ],
    [
      'histogram buckets out of order',
      () => histogram([5, 1]),
      RangeError,
      'histogram: buckets must increase, but buckets[1] (1) is not greater than 5',
    ],
    [
      'histogram native',
      () => histogram([1], { native: untyped({ schema: 0 }) }),
      TypeError,
      'histogram: native.zeroThreshold must be a finite number ≥ 0, got undefined',
    ],
    [
      'nativeHistogram schema',
      () => nativeHistogram({ schema: 9, zeroThreshold: 0, maxBuckets: 160 }),
      RangeError,
      'nativeHistogram: options.schema must be a whole number from -4 to 8, got 9',
    ],
    ['summary', () => summary([1.5]), RangeError, 'summary: quantiles[0] must be a number from 0 to 1, got 1.5'],
    ['exemplars', () => exemplars({ every: 0 }), RangeError, 'exemplars: every must be a whole number ≥ 1, got 0'],
    // A span choice that matches nothing (a kind misspelt, a service that is not text) would name no span, silently.
    [
      'exemplars choice kind',
      () => exemplars({ choice: { kinds: [untyped('srv')] } }),
      RangeError,
      "exemplars: choice.kinds[0] must be one of 'server', 'client', 'producer', 'consumer', 'internal', got \"srv\"",
    ],
    [
      'exemplars choice',
      () => exemplars({ choice: untyped('roots') }),
      TypeError,
      'exemplars: choice must be an object, got "roots"',
    ],
    [
      'traceContext choice service',
      () => traceContext(NEVER, { choice: { service: untyped(5) } }),
      TypeError,
      'traceContext: choice.service must be a string, got 5',
    ],
    [
      'traceContext choice kinds',
      () => traceContext(NEVER, { choice: { kinds: untyped('server') } }),
      TypeError,
      'traceContext: choice.kinds must be a list, got "server"',
    ],
    [
      'traceContext',
      () => traceContext(NEVER, { on: untyped('warn') }),
      RangeError,
      "traceContext: on must be one of 'error', 'all', 'probability', got \"warn\"",
    ],
    [
      'spanMetrics',
      () => spanMetrics(NEVER, { family: untyped('count') }),
      RangeError,
      "spanMetrics: family must be one of 'calls', 'duration', got \"count\"",
    ],
    // A flag given as text: 'false' would turn exemplars on.
    [
      'spanMetrics exemplars',
      () => spanMetrics(NEVER, { family: 'duration', exemplars: untyped('false') }),
      TypeError,
      'spanMetrics: exemplars must be true or false, got "false"',
    ],
    [
      'encode',
      () => encode(untyped(undefined)),
      TypeError,
      'encode: encoder must be an object with encode(), got undefined',
    ],
    [
      'deliver sink',
      () => deliver(untyped({})),
      RangeError,
      'deliver: sink must be an object with write(), flush(), close(), got {}',
    ],
    ['gate', () => gate(untyped(true)), TypeError, 'gate: condition must be an object with subscribe(), got true'],
    [
      'RateSchedule',
      () => RateSchedule.constant(untyped('10')),
      TypeError,
      'RateSchedule: rate must be a finite number > 0, got "10"',
    ],
    // A pattern that names no slot it could emit would end the run silently, without a tick.
    [
      'ticks slots period',
      () => ticks({ slots: { period: 0, residues: [] } }),
      RangeError,
      'ticks: slots.period must be a whole number ≥ 1, got 0',
    ],
    [
      'ticks slots residue past the period',
      () => ticks({ slots: { period: 2, residues: [5] } }),
      RangeError,
      'ticks: slots.residues[0] must be a whole number from 0 to 1 (below slots.period), got 5',
    ],
    [
      'ticks slots residues out of order',
      () => ticks({ slots: { period: 4, residues: [2, 1] } }),
      RangeError,
      'ticks: slots.residues must increase, but slots.residues[1] (1) is not greater than 2',
    ],
    // A JavaScript caller's options left out or null: named, instead of a destructuring TypeError of their fields.
    ['ticks options null', () => ticks(untyped(null)), TypeError, 'ticks: options must be an object, got null'],
    [
      'spanMetrics without options',
      () => spanMetrics(NEVER, untyped(undefined)),
      TypeError,
      'spanMetrics: options must be an object, got undefined',
    ],
    ['labels options null', () => labels(untyped(null)), TypeError, 'labels: options must be an object, got null'],
    [
      'labels dynamic element',
      () => labels({ dynamic: [untyped(null)] }),
      TypeError,
      'labels: dynamic[0] must be an object, got null',
    ],
    ['gate options null', () => gate(NEVER, untyped(null)), TypeError, 'gate: options must be an object, got null'],
    [
      'histogram options',
      () => histogram([1], untyped(null)),
      TypeError,
      'histogram: options must be an object, got null',
    ],
    [
      'nativeHistogram options',
      () => nativeHistogram(untyped(null)),
      TypeError,
      'nativeHistogram: options must be an object, got null',
    ],
    ['exemplars options', () => exemplars(untyped(null)), TypeError, 'exemplars: options must be an object, got null'],
    [
      'traceContext options',
      () => traceContext(NEVER, untyped('all')),
      TypeError,
      'traceContext: options must be an object, got "all"',
    ],
    [
      'gapWindows element',
      () => gapWindows([untyped(null)]),
      TypeError,
      'gapWindows: windows[0] must be an object, got null',
    ],
    [
      'deliver options',
      () => deliver({ write: () => undefined, flush: async () => {}, close: async () => {} }, untyped(null)),
      TypeError,
      'deliver: options must be an object, got null',
    ],
    [
      'deliver sink null',
      () => deliver(untyped(null)),
      TypeError,
      'deliver: sink must be an object with write(), flush(), close(), got null',
    ],
  ];
  for (const [name, call, type, message] of refused) {
    it(`${name}: refused when the operator is made, naming the argument`, () => {
      expect(call).to.throw(type, message);
    });
  }

  it('deliver: an onError it does not know is refused, not taken for warn', () => {
    const sink: Sink = { write: () => undefined, flush: async () => {}, close: async () => {} };
    expect(() => deliver(sink, { onError: untyped('ignore') })).to.throw(
      RangeError,
      "deliver: onError must be one of 'warn', 'fail', got \"ignore\"",
    );
  });

  it('ticks: a source value that is not a schedule errors the stream, naming what it must be', async () => {
    const run = lastValueFrom(of(untyped(10)).pipe(ticks({ duration: 10 }), toArray()));
    const error = await run.then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.equal(
      'ticks: each value of its source must be a RateSchedule (of(RateSchedule.constant(rate))), got 10',
    );
  });

  it('histogram, nativeHistogram, summary: batches without observations or labels error the stream, naming the stages', async () => {
    const batches = (pipeline: OperatorFunction<TickBatch, unknown>) =>
      lastValueFrom(of(RateSchedule.constant(1000)).pipe(ticks({ duration: 3 }), pipeline, toArray())).then(
        () => undefined,
        (e: Error) => e.message,
      );
    const expected = (operator: string, got: string) =>
      `${operator}: each value of its source must be a labelled batch of observations (observe(…), labels(…) before it), got ${got}`;
    const unlabelled: OperatorFunction<TickBatch, unknown> = pipe(
      observe(() => 1, 1),
      untyped(histogram()),
    );
    expect(await batches(unlabelled)).to.equal(
      expected('histogram', '{size, anchor, start, index, offset, observations}'),
    );
    const unobserved: OperatorFunction<TickBatch, unknown> = pipe(labels(), untyped(summary()));
    expect(await batches(unobserved)).to.equal(expected('summary', '{size, anchor, start, index, offset, series}'));
    const neither: OperatorFunction<TickBatch, unknown> = untyped(nativeHistogram());
    expect(await batches(neither)).to.equal(expected('nativeHistogram', '{size, anchor, start, index, offset}'));
  });

  it('takes what the runtime passes: defaults, Infinity as no end, zero observations a tick', () => {
    expect(() => ticks({ duration: Infinity, ahead: 0 })).not.to.throw();
    expect(() => ticks({ slots: { period: 3, residues: [] } })).not.to.throw();
    expect(() => observe(() => 1, 0)).not.to.throw();
    expect(() => histogram()).not.to.throw();
    expect(() => summary([0, 1])).not.to.throw();
    expect(() => labels({ dynamic: [{ key: 'pod', values: ['a'] }], shard: { index: 0, count: 1 } })).not.to.throw();
  });
});
