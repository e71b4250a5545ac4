/**
 * The operational aliases of `generator` (`flap`, `saturation`, `leak`, `degradation`, `steady`,
 * `spike_event`): names for common shapes that desugar into a generator, plus the entry's
 * `jitter` where the alias has noise. They are rewritten in the raw entry (and in `defaults`)
 * before validation, so the entry validated, run and shown by `--dry-run` holds the generator
 * they became; their own fields are checked here, so an error names the field the user wrote.
 */
import * as t from 'io-ts';
import { isRight } from 'fp-ts/lib/Either.js';
import {
  Codec,
  andThen,
  atLeast,
  failAt,
  integer,
  nonNegative,
  number,
  oneOf,
  strict,
  taggedSchema,
} from './combinators.js';
import {
  GENERATOR_VARIANTS,
  PACK_GENERATOR_VARIANTS,
  duration,
  generator,
  packGenerator,
  type GeneratorAlias,
} from './fields.js';
import { isMapping, issuesOf, type Issue } from './problems.js';
import { formatMs } from '../format.js';
import * as limits from './limits.js';
import type { GeneratorConfig } from './types.js';

/**
 * What an alias becomes: a generator, and the noise that becomes the entry's jitter (`given`: written in the
 * alias, not its default, which an entry's own `jitter` replaces).
 */
export interface Desugared {
  readonly generator: GeneratorConfig;
  readonly noise?: { readonly amount: number; readonly seed?: number; readonly given: boolean };
}

/**
 * The defaults of the aliases' fields: the reference tool's, so that its files, which leave any field out, mean
 * here what they mean there (docs/scenario-fields.md#operational-aliases).
 */
const DEFAULTS = {
  baseline: 0,
  ceiling: 100,
  noise: 1,
  time_to_saturate: 300_000,
  time_to_ceiling: 600_000,
  time_to_degrade: 300_000,
  up_duration: 10_000,
  down_duration: 5_000,
  center: 50,
  amplitude: 10,
  period: 60_000,
  spike_height: 100,
  spike_duration: 10_000,
  spike_interval: 30_000,
} as const;

/** A period of an alias: at least the 1 ms a generator period takes. */
const period = atLeast(duration, 1, ' ms').withSchema((child) => child(duration));
const seconds = (ms: number) => ms / 1000;
const noiseFields = {
  noise: nonNegative.describe(
    `Uniform noise ± noise on every value: becomes the entry's jitter (an entry's own jitter replaces the default); 0 for none; default ${DEFAULTS.noise}.`,
  ),
  noise_seed: integer.describe("Seed of the noise: becomes the entry's jitter_seed."),
};

/** The noise of an alias that has some: the entry's jitter, unless 0. */
function withNoise(a: { noise?: number; noise_seed?: number }, generator: GeneratorConfig): Desugared {
  const amount = a.noise ?? DEFAULTS.noise;
  if (amount === 0) return { generator };
  return {
    generator,
    noise: { amount, given: a.noise !== undefined, ...(a.noise_seed !== undefined && { seed: a.noise_seed }) },
  };
}

/** A ramp from baseline to ceiling over the duration in field `time`, then back to baseline: a sawtooth. */
function ramp(
  name: string,
  time: 'time_to_saturate' | 'time_to_ceiling' | 'time_to_degrade',
  noisy: boolean,
): Codec<Desugared> {
  const fields = {
    baseline: number.describe(`The value at the start and after each reset; default ${DEFAULTS.baseline}.`),
    ceiling: number.describe(`The value reached at the end of the ramp; above baseline; default ${DEFAULTS.ceiling}.`),
    [time]: period.describe(`How long the ramp from baseline to ceiling takes; default ${formatMs(DEFAULTS[time])}.`),
    ...(noisy && noiseFields),
  } as Record<'baseline' | 'ceiling' | 'noise' | 'noise_seed' | typeof time, Codec<number>>;
  return andThen(strict(`${name} generator`, { type: oneOf([name]) }, fields), (a, u, c) => {
    const { baseline = DEFAULTS.baseline, ceiling = DEFAULTS.ceiling } = a;
    if (baseline >= ceiling)
      return failAt(u, c, 'ceiling', `expected a number greater than baseline (${baseline}), got ${ceiling}`);
    const ms = a[time] ?? DEFAULTS[time];
    const generator: GeneratorConfig = { type: 'sawtooth', min: baseline, max: ceiling, period_secs: seconds(ms) };
    return t.success(noisy ? withNoise(a, generator) : { generator });
  });
}

/**
 * Values of a flap's two states by `enum`: a boolean or a link state (1 up, 0 down), SNMP ifOperStatus and the
 * gNMI/OpenConfig oper and admin states (1 up, 2 down), a BGP neighbour's state (6 established, 1 idle).
 */
const FLAP_STATES = {
  boolean: { up: 1, down: 0 },
  link_state: { up: 1, down: 0 },
  oper_status: { up: 1, down: 2 },
  oper_state: { up: 1, down: 2 },
  admin_state: { up: 1, down: 2 },
  neighbor_state: { up: 6, down: 1 },
} as const;

const ALIASES: Record<GeneratorAlias, Codec<Desugared>> = {
  flap: andThen(
    strict(
      'flap generator',
      { type: oneOf(['flap']) },
      {
        up_duration: period.describe(`How long each up state lasts; default ${formatMs(DEFAULTS.up_duration)}.`),
        down_duration: period.describe(`How long each down state lasts; default ${formatMs(DEFAULTS.down_duration)}.`),
        up_value: number.describe('The value while up; default from enum.'),
        down_value: number.describe('The value while down; default from enum.'),
        enum: oneOf(Object.keys(FLAP_STATES) as (keyof typeof FLAP_STATES)[]).describe(
          "The two states' values: boolean or link_state (up 1, down 0; boolean is the default), oper_status, oper_state or admin_state (SNMP ifOperStatus, gNMI/OpenConfig: up 1, down 2), neighbor_state (BGP: established 6, idle 1).",
        ),
      },
    ),
    (a, u, c): t.Validation<Desugared> => {
      const { up_duration = DEFAULTS.up_duration, down_duration = DEFAULTS.down_duration } = a;
      const cycle = up_duration + down_duration;
      if (cycle > limits.MAX_DURATION_MS) {
        return failAt(
          u,
          c,
          'down_duration',
          `expected up_duration + down_duration up to ${formatMs(limits.MAX_DURATION_MS)} (${limits.MAX_DURATION_DAYS} days), got ${formatMs(cycle)}`,
        );
      }
      const states = FLAP_STATES[a.enum ?? 'boolean'];
      const [up, down] = [a.up_value ?? states.up, a.down_value ?? states.down];
      return t.success({
        generator: {
          type: 'spike',
          baseline: down,
          magnitude: up - down,
          duration_secs: seconds(up_duration),
          interval_secs: seconds(cycle),
        },
      });
    },
  ),
  saturation: ramp('saturation', 'time_to_saturate', false),
  leak: ramp('leak', 'time_to_ceiling', false),
  degradation: ramp('degradation', 'time_to_degrade', true),
  steady: andThen(
    strict(
      'steady generator',
      { type: oneOf(['steady']) },
      {
        center: number.describe(`The centre line; default ${DEFAULTS.center}.`),
        amplitude: number.describe(`Half the swing around center; default ${DEFAULTS.amplitude}.`),
        period: period.describe(`One cycle of the swing; default ${formatMs(DEFAULTS.period)}.`),
        ...noiseFields,
      },
    ),
    (a) => {
      const { center = DEFAULTS.center, amplitude = DEFAULTS.amplitude, period = DEFAULTS.period } = a;
      return t.success(withNoise(a, { type: 'sine', amplitude, period_secs: seconds(period), offset: center }));
    },
  ),
  spike_event: andThen(
    strict(
      'spike_event generator',
      { type: oneOf(['spike_event']) },
      {
        baseline: number.describe(`The value outside spikes; default ${DEFAULTS.baseline}.`),
        spike_height: number.describe(`Added to baseline during a spike; default ${DEFAULTS.spike_height}.`),
        spike_duration: period.describe(
          `How long each spike lasts; shorter than spike_interval; default ${formatMs(DEFAULTS.spike_duration)}.`,
        ),
        spike_interval: period.describe(
          `From one spike's start to the next; default ${formatMs(DEFAULTS.spike_interval)}.`,
        ),
      },
    ),
    (a, u, c): t.Validation<Desugared> => {
      const {
        baseline = DEFAULTS.baseline,
        spike_height = DEFAULTS.spike_height,
        spike_duration = DEFAULTS.spike_duration,
        spike_interval = DEFAULTS.spike_interval,
      } = a;
      if (spike_duration >= spike_interval) {
        return failAt(
          u,
          c,
          'spike_duration',
          `expected a duration shorter than spike_interval (${formatMs(spike_interval)}), got ${formatMs(spike_duration)}`,
        );
      }
      return t.success({
        generator: {
          type: 'spike',
          baseline,
          magnitude: spike_height,
          duration_secs: seconds(spike_duration),
          interval_secs: seconds(spike_interval),
        },
      });
    },
  ),
};

/**
 * What the generator of an entry or of `defaults` may name: a generator type, or an alias (desugared before
 * the codec decodes it).
 */
export const entryGenerator = generator
  .withSchema(taggedSchema({ ...GENERATOR_VARIANTS, ...ALIASES }))
  .describe(
    'What produces the values: a generator type and its fields, or an operational alias (flap, saturation, leak, degradation, steady, spike_event).',
  )
  .define('generator');

/** The codec of the alias `u` names, if it names one. */
function aliasOf(u: unknown): Codec<Desugared> | undefined {
  return isMapping(u) && typeof u.type === 'string' && Object.hasOwn(ALIASES, u.type)
    ? ALIASES[u.type as GeneratorAlias]
    : undefined;
}

/**
 * The generator of a pack metric, in a pack file or in an entry's `overrides`, an alias allowed: what it
 * stands for, with its noise (which becomes that metric's jitter).
 */
export const packMetricGenerator = new Codec<Desugared>('generator', (u, c) => {
  const alias = aliasOf(u);
  if (alias) return alias.validate(u, c);
  const decoded = packGenerator.validate(u, c);
  return isRight(decoded) ? t.success({ generator: decoded.right }) : decoded;
})
  .withSchema(taggedSchema({ ...PACK_GENERATOR_VARIANTS, ...ALIASES }))
  .describe(
    "The metric's generator: a generator type (not csv_replay) or an operational alias, whose noise becomes the metric's jitter.",
  )
  .define('pack_metric_generator');

/**
 * `fields` (an entry's or `defaults`' raw fields) with an alias in `generator` replaced by the
 * generator it stands for, and its noise by `jitter` and `jitter_seed`; the alias's problems
 * otherwise, at `generator.<field>`. Anything else is returned as it is, for validation to judge.
 */
export function desugarAlias(fields: Record<string, unknown>): { fields: Record<string, unknown>; issues: Issue[] } {
  const alias = fields.generator;
  const codec = aliasOf(alias);
  if (!codec) return { fields, issues: [] };
  const root: t.Context = [{ key: '', type: t.unknown, actual: fields }];
  const decoded = codec.validate(alias, t.appendContext(root, 'generator', codec, alias));
  if (!isRight(decoded)) return { fields, issues: issuesOf(decoded.left) };
  const { generator, noise } = decoded.right;
  // The entry's own jitter replaces the alias's default noise.
  if (!noise || (!noise.given && Object.hasOwn(fields, 'jitter')))
    return { fields: { ...fields, generator }, issues: [] };
  if (Object.hasOwn(fields, 'jitter'))
    return {
      fields,
      issues: [{ path: ['generator', 'noise'], message: 'not allowed with jitter (noise becomes the entry jitter)' }],
    };
  if (noise.seed !== undefined && Object.hasOwn(fields, 'jitter_seed')) {
    return {
      fields,
      issues: [
        {
          path: ['generator', 'noise_seed'],
          message: 'not allowed with jitter_seed (noise_seed becomes the entry jitter_seed)',
        },
      ],
    };
  }
  return {
    fields: {
      ...fields,
      generator,
      jitter: noise.amount,
      ...(noise.seed !== undefined && { jitter_seed: noise.seed }),
    },
    issues: [],
  };
}
