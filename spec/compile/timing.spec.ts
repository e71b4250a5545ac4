import { expect } from 'chai';
import fc from 'fast-check';
import { TestScheduler } from 'rxjs/testing';
import type { Entry } from '../../lib/config/types.js';
import type { GeneratorConfig } from '../../lib/language/types.js';
import type { After } from '../../lib/language/fields.js';
import { describePredictedStart } from '../../lib/compile/index.js';
import { firstCrossing } from '../../lib/compile/crossing.js';
import { valueGenerator } from '../../lib/generators/value.js';
import { startEntries } from '../../lib/runtime/file-run.js';
import { metricEntry } from '../support/entries.js';
import { MemorySink } from '../support/sinks.js';
import { compile, compileProblems, stepEntry } from '../support/plans.js';
import { metric } from '../support/scenarios.js';

const after = (ref: string, op: '<' | '>', value: number, extra: Record<string, unknown> = {}) => ({
  after: { ref, op, value, ...extra },
});

describe('compile: clock groups', () => {
  it('puts entries linked by after in one automatic group chain_<lowest id>', () => {
    const plan = compile([
      stepEntry('zeta'),
      stepEntry('beta', after('zeta', '>', 2)),
      stepEntry('gamma', after('beta', '>', 1)),
      stepEntry('solo'),
    ]);
    expect(plan.scenarios.map((e) => e.clock_group)).to.deep.equal([
      'chain_beta',
      'chain_beta',
      'chain_beta',
      undefined,
    ]);
    expect(plan.groups).to.deep.equal([
      {
        name: 'chain_beta',
        automatic: true,
        linkedBy: ['after'],
        members: ['zeta', 'beta', 'gamma'],
        start_time: { kind: 'now' },
      },
    ]);
  });

  it('gives a linked set the group one of its entries names', () => {
    const plan = compile([
      stepEntry('cpu', { clock_group: 'incident' }),
      stepEntry('alert', after('cpu', '>', 2)),
      stepEntry('other', { clock_group: 'incident' }),
    ]);
    expect(plan.scenarios.map((e) => e.clock_group)).to.deep.equal(['incident', 'incident', 'incident']);
    expect(plan.groups).to.deep.equal([
      {
        name: 'incident',
        automatic: false,
        linkedBy: ['after'],
        members: ['cpu', 'alert', 'other'],
        start_time: { kind: 'now' },
      },
    ]);
  });

  it('keeps separate linked sets and explicit groups apart', () => {
    const plan = compile([
      stepEntry('a'),
      stepEntry('b', after('a', '>', 1)),
      stepEntry('c'),
      stepEntry('d', after('c', '>', 1)),
      stepEntry('e', { clock_group: 'x' }),
    ]);
    expect(plan.groups.map((g) => [g.name, g.members])).to.deep.equal([
      ['chain_a', ['a', 'b']],
      ['chain_c', ['c', 'd']],
      ['x', ['e']],
    ]);
  });

  it('rejects two different groups in one linked set', () => {
    expect(
      compileProblems([
        stepEntry('cpu', { clock_group: 'a' }),
        stepEntry('mid', after('cpu', '>', 1)),
        stepEntry('alert', { clock_group: 'b', ...after('mid', '>', 1) }),
      ]),
    ).to.deep.equal([
      'scenarios[2] (alert): clock_group: entries linked by after share one clock group, but this one names "b" and scenarios[0] (cpu) names "a": name the same clock_group on both, or drop one',
    ]);
  });

  it('rejects entries of one group with different start times', () => {
    expect(
      compileProblems([
        stepEntry('cpu', { start_time: '-1h' }),
        stepEntry('alert', after('cpu', '>', 1)),
        stepEntry('x', { clock_group: 'g', start_time: '2026-01-01T00:00:00Z' }),
        stepEntry('y', { clock_group: 'g', start_time: '2026-01-01T00:00:00Z' }),
      ]),
    ).to.deep.equal([
      'scenarios[1] (alert): start_time: the entries of clock group "chain_alert" share one start-time reference: expected -1h as on scenarios[0] (cpu), got now',
    ]);
  });
});

describe('compile: after', () => {
  /** When the entry `alert` starts, as compile sees it. */
  const startOf = (upstream: Record<string, unknown>, condition: ReturnType<typeof after>) =>
    compile([{ ...stepEntry('cpu'), ...upstream }, stepEntry('alert', condition)]).plans[1]!.predictedStart;

  it('computes the crossing of a step, a sequence and a sine', () => {
    expect(startOf({}, after('cpu', '>', 4))).to.deep.equal({
      kind: 'after',
      crossing: { kind: 'tick', tick: 5, offset: 500, value: 5 },
      at: 500,
    });
    expect(startOf({ generator: { type: 'step', start: 10, step_size: -0.5 } }, after('cpu', '<', 8))).to.deep.include({
      at: 500,
    });
    expect(startOf({ generator: { type: 'sequence', values: [1, 2, 9, 3] } }, after('cpu', '>', 5))).to.deep.include({
      at: 200,
    });
    // 50 + 40·sin(2πt/10s) > 70 from t = 10/12 s: the first tick at 10/s is 900 ms.
    expect(
      startOf({ generator: { type: 'sine', amplitude: 40, period_secs: 10, offset: 50 } }, after('cpu', '>', 70)),
    ).to.deep.include({ at: 900 });
    // Below 20: sin < -0.75 from t = (π + asin 0.75)/2π · 10 s = 6.35 s: the first tick is 6.4 s.
    expect(
      startOf({ generator: { type: 'sine', amplitude: 40, period_secs: 10, offset: 50 } }, after('cpu', '<', 20)),
    ).to.deep.include({ at: 6400 });
  });

  it('finds the crossing of a sawtooth, a spike, a wrapping step and a uniform from their first ticks', () => {
    // 0 + 100·(t mod 10 s)/10 s > 42 first at t = 4.3 s (ticks every 100 ms).
    expect(
      startOf({ generator: { type: 'sawtooth', min: 0, max: 100, period_secs: 10 } }, after('cpu', '>', 42)),
    ).to.deep.include({ at: 4300 });
    // The spike (1 + 9) comes first; the baseline 1 from 2 s.
    expect(
      startOf(
        { generator: { type: 'spike', baseline: 1, magnitude: 9, duration_secs: 2, interval_secs: 30 } },
        after('cpu', '<', 5),
      ),
    ).to.deep.include({ at: 2000 });
    // 0, 3, 6, 9, 0, …: above 8 at tick 3.
    expect(
      startOf({ generator: { type: 'step', start: 0, step_size: 3, max: 10 } }, after('cpu', '>', 8)),
    ).to.deep.include({ at: 300 });
    const uniform = { type: 'uniform', min: 0, max: 1, seed: 3 } as const;
    const values = Array.from({ length: 50 }, (_, n) => valueGenerator(uniform)(n, n * 100));
    expect(startOf({ generator: uniform }, after('cpu', '>', 0.9))).to.deep.include({
      at: values.findIndex((v) => v > 0.9) * 100,
    });
  });

  it('adds the delay, the watched entry phase offset, and the starts up a chain', () => {
    const plan = compile([
      stepEntry('cpu', { phase_offset: '1s' }),
      stepEntry('alert', after('cpu', '>', 4, { delay: '250ms' })),
      stepEntry('page', after('alert', '>', 1)),
    ]);
    expect(plan.plans.map((p) => p.predictedStart)).to.deep.equal([
      { kind: 'offset', at: 1000 },
      { kind: 'after', crossing: { kind: 'tick', tick: 5, offset: 500, value: 5 }, at: 1750 },
      { kind: 'after', crossing: { kind: 'tick', tick: 2, offset: 200, value: 2 }, at: 1950 },
    ]);
    expect(describePredictedStart(plan.scenarios[1]!, plan.plans[1]!.predictedStart)).to.equal(
      "when cpu > 4 (+ 250ms delay): cpu's tick 5 (value 5) 500ms after it starts → 1.75s after the file start",
    );
  });

  it('follows bursts: the crossing tick is where the burst put it', () => {
    // 10/s ×5 in the first second of every 10 s: ticks every 20 ms there.
    expect(startOf({ bursts: { every: '10s', for: '1s', multiplier: 5 } }, after('cpu', '>', 4))).to.deep.include({
      at: 100,
    });
  });

  it('leaves a jittered watched entry to the runtime, and what depends on it', () => {
    const plan = compile([
      stepEntry('cpu', { jitter: 1 }),
      stepEntry('alert', after('cpu', '>', 4)),
      stepEntry('page', after('alert', '>', 1)),
    ]);
    expect(plan.plans[1]!.predictedStart).to.deep.equal({
      kind: 'after',
      crossing: { kind: 'runtime', reason: 'cpu has jitter ±1' },
    });
    expect(describePredictedStart(plan.scenarios[1]!, plan.plans[1]!.predictedStart)).to.equal(
      'when cpu > 4: decided at run time (cpu has jitter ±1)',
    );
    expect(plan.plans[2]!.predictedStart).to.not.have.property('at');
    expect(describePredictedStart(plan.scenarios[2]!, plan.plans[2]!.predictedStart)).to.equal(
      "when alert > 1: alert's tick 2 (value 2) 200ms after it starts; alert's own start is decided at run time",
    );
  });

  describe('rejects a condition that can never hold', () => {
    const problem = (upstream: Record<string, unknown>, condition: ReturnType<typeof after>) =>
      compileProblems([{ ...stepEntry('cpu'), ...upstream }, stepEntry('alert', condition)]);

    it('on a constant, a sequence, a step moving away, a sine out of range', () => {
      expect(problem({ generator: { type: 'constant', value: 50 } }, after('cpu', '>', 80))).to.deep.equal([
        'scenarios[1] (alert): after: cpu never goes above 80 (constant 50), so this entry would never start',
      ]);
      expect(problem({ generator: { type: 'sequence', values: [3, 9, 5] } }, after('cpu', '<', 2))).to.deep.equal([
        'scenarios[1] (alert): after: cpu never goes below 2 (sequence values from 3 to 9), so this entry would never start',
      ]);
      expect(problem({ generator: { type: 'step', start: 10, step_size: 1 } }, after('cpu', '<', 5))).to.deep.equal([
        'scenarios[1] (alert): after: cpu never goes below 5 (step from 10 by 1: moving away from 5), so this entry would never start',
      ]);
      expect(problem({ generator: { type: 'step', start: 10, step_size: 0 } }, after('cpu', '>', 50))[0]).to.include(
        '(step_size 0: constant 10)',
      );
      expect(
        problem({ generator: { type: 'sine', amplitude: 10, period_secs: 60, offset: 50 } }, after('cpu', '>', 60)),
      ).to.deep.equal([
        'scenarios[1] (alert): after: cpu never goes above 60 (sine between 40 and 60), so this entry would never start',
      ]);
      // A wrapping step never writes its max: 0 … 4 by 1 never goes above 4.5.
      expect(
        problem({ generator: { type: 'step', start: 0, step_size: 1, max: 5 } }, after('cpu', '>', 4.5)),
      ).to.deep.equal([
        'scenarios[1] (alert): after: cpu never goes above 4.5 (step from 0 by 1, wrapping at 5), so this entry would never start',
      ]);
      expect(
        problem({ generator: { type: 'sawtooth', min: 0, max: 100, period_secs: 60 } }, after('cpu', '>', 100)),
      ).to.deep.equal([
        'scenarios[1] (alert): after: cpu never goes above 100 (sawtooth from 0 to below 100), so this entry would never start',
      ]);
      expect(
        problem(
          { generator: { type: 'spike', baseline: 1, magnitude: 9, duration_secs: 1, interval_secs: 60 } },
          after('cpu', '>', 10),
        ),
      ).to.deep.equal([
        'scenarios[1] (alert): after: cpu never goes above 10 (spike between 1 and 10), so this entry would never start',
      ]);
    });

    it('when the watched entry stops first', () => {
      expect(problem({ duration: '500ms' }, after('cpu', '>', 7))).to.deep.equal([
        'scenarios[1] (alert): after: cpu never goes above 7 before it stops (duration 500ms; it would first be above 7 at its tick 8, 800ms after it starts), so this entry would never start',
      ]);
      expect(
        problem(
          { duration: '2s', generator: { type: 'sine', amplitude: 10, period_secs: 60, offset: 0 } },
          after('cpu', '>', 9),
        )[0],
      ).to.include('before it stops (duration 2s)');
    });
  });

  it('rejects a condition that already holds at the first tick of the watched entry', () => {
    expect(
      compileProblems([
        stepEntry('cpu', { generator: { type: 'constant', value: 90 } }),
        stepEntry('alert', after('cpu', '>', 80)),
      ]),
    ).to.deep.equal([
      'scenarios[1] (alert): after: cpu > 80 already holds at the first tick of cpu (value 90): the condition must become true later; to start at a fixed time use phase_offset',
    ]);
    expect(
      compileProblems([
        stepEntry('cpu', { generator: { type: 'sine', amplitude: 10, period_secs: 60, offset: 0 } }),
        stepEntry('alert', after('cpu', '<', 1)),
      ])[0],
    ).to.include('cpu < 1 already holds at the first tick of cpu (value 0)');
  });

  it('still reports unknown refs, self references and cycles, naming the path', () => {
    expect(
      compileProblems([
        metric({ id: 'a', after: { ref: 'b', op: '>', value: 1 } }),
        metric({ id: 'b', after: { ref: 'a', op: '>', value: 1 } }),
      ]),
    ).to.deep.equal(['scenarios[0] (a): after.ref: circular wait: a → b → a']);
  });
});

describe('compile and runtime agree on when an after entry starts', () => {
  const generators: fc.Arbitrary<GeneratorConfig> = fc.oneof(
    fc.record({
      type: fc.constant('step' as const),
      start: fc.integer({ min: -20, max: 20 }),
      step_size: fc.double({ min: -3, max: 3, noNaN: true }),
    }),
    fc.record({
      type: fc.constant('sequence' as const),
      values: fc.array(fc.integer({ min: -10, max: 10 }), { minLength: 1, maxLength: 8 }),
      repeat: fc.boolean(),
    }),
    fc.record({
      type: fc.constant('sine' as const),
      amplitude: fc.double({ min: -20, max: 20, noNaN: true }),
      period_secs: fc.double({ min: 0.05, max: 3, noNaN: true }),
      offset: fc.double({ min: -5, max: 5, noNaN: true }),
    }),
    fc.record({
      type: fc.constant('uniform' as const),
      min: fc.integer({ min: -10, max: 0 }),
      max: fc.integer({ min: 1, max: 10 }),
      seed: fc.integer(),
    }),
    fc.record({
      type: fc.constant('sawtooth' as const),
      min: fc.integer({ min: -10, max: 0 }),
      max: fc.integer({ min: 1, max: 10 }),
      period_secs: fc.double({ min: 0.05, max: 3, noNaN: true }),
    }),
    fc.record({
      type: fc.constant('spike' as const),
      baseline: fc.integer({ min: -5, max: 5 }),
      magnitude: fc.integer({ min: -10, max: 10 }),
      duration_secs: fc.constantFrom(0.2, 0.5),
      interval_secs: fc.constantFrom(1, 2.5),
    }),
    fc.record({
      type: fc.constant('step' as const),
      start: fc.integer({ min: -5, max: 5 }),
      step_size: fc.constantFrom(0.5, 1, 2),
      max: fc.integer({ min: 6, max: 12 }),
    }),
  );

  it('for every generator, with rates, bursts and durations', async () => {
    await fc.assert(
      fc.asyncProperty(
        generators,
        fc.constantFrom(1, 3, 7, 10, 40),
        fc.boolean(),
        fc.constantFrom<'<' | '>'>('<', '>'),
        fc.integer({ min: -15, max: 15 }),
        async (generator, rate, burst, op, value) => {
          const cpu: Entry = metricEntry({
            id: 'cpu',
            rate,
            duration: 4000,
            generator,
            ...(burst && { bursts: { every: 1000, for: 300, multiplier: 3 } }),
          });
          const condition: After = { ref: 'cpu', op, value, delay: 50 };
          const crossing = firstCrossing(cpu, condition);
          if (crossing.kind === 'runtime') return;

          const scheduler = new TestScheduler(() => undefined);
          scheduler.maxFrames = Infinity;
          const alert = metricEntry({ id: 'alert', duration: 10, after: condition });
          const fileRun = startEntries([cpu, alert], { scheduler, createSink: () => new MemorySink() });
          scheduler.flush();
          await fileRun.done;
          const started = fileRun.startedAt('alert');
          if (crossing.kind === 'never') expect(started).to.equal(undefined);
          else expect(started).to.be.closeTo(crossing.offset + 50, 1e-6);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('compile: the crossing searches of one file share a budget', () => {
  it('leaves the crossings it has no steps left for to the runtime', () => {
    // A sequence search costs one step per value: 3000 of the file's 5000 each. Alone, each pair
    // is worked out; together, the first spends what the second and third would need.
    const values = [...Array<number>(2999).fill(0), 1];
    const pair = (i: number) => [
      metric({ id: `s${i}`, generator: { type: 'sequence', values, repeat: true } }),
      metric({ id: `a${i}`, after: { ref: `s${i}`, op: '>', value: 0.5 } }),
    ];
    const crossings = (entries: Parameters<typeof compile>[0]) =>
      compile(entries).plans.flatMap(({ predictedStart: start }) =>
        start.kind === 'after' ? [start.crossing.kind === 'runtime' ? start.crossing.reason : start.crossing.kind] : [],
      );
    expect(crossings(pair(0))).to.deep.equal(['tick']);
    const spent = 'svc stopped looking for the crossing before running (the file has many after entries to work out)';
    expect(crossings([0, 1, 2].flatMap(pair))).to.deep.equal(['tick', spent, spent]);
  });
});
