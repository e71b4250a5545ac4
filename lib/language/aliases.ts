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
import { isMapping, issuesOf, show, type Issue } from './problems.js';
import { formatMs } from '../format.js';
import * as limits from './limits.js';
import type { GeneratorConfig } from './types.js';

/** What an alias becomes: a generator, and the noise that becomes the entry's jitter. */
export interface Desugared {
  readonly generator: GeneratorConfig;
  readonly noise?: { readonly amount: number; readonly seed?: number };
}

/** A period of an alias: at least the 1 ms a generator period takes. */
const period = atLeast(duration, 1, ' ms').withSchema((child) => child(duration));
const seconds = (ms: number) => ms / 1000;
const noiseFields = {
  noise: nonNegative.describe("Uniform noise ± noise on every value: becomes the entry's jitter."),
  noise_seed: integer.describe("Seed of the noise: becomes the entry's jitter_seed."),
};

function ceilingAbove<A extends { baseline: number; ceiling: number }>(
  a: A,
  u: unknown,
  c: t.Context,
): t.Validation<A> {
  return a.baseline < a.ceiling
    ? t.success(a)
    : failAt(u, c, 'ceiling', `expected a number greater than baseline (${a.baseline}), got ${a.ceiling}`);
}

function withNoise(
  a: { noise?: number; noise_seed?: number },
  u: unknown,
  c: t.Context,
  generator: GeneratorConfig,
): t.Validation<Desugared> {
  if (a.noise === undefined)
    return a.noise_seed === undefined
      ? t.success({ generator })
      : failAt(u, c, 'noise_seed', 'only allowed with noise');
  return t.success({
    generator,
    noise: { amount: a.noise, ...(a.noise_seed !== undefined && { seed: a.noise_seed }) },
  });
}

/** A ramp from baseline to ceiling over the duration in field `time`, then back to baseline: a sawtooth. */
function ramp(name: string, time: string, optional: Partial<typeof noiseFields>): Codec<Desugared> {
  const required = {
    type: oneOf([name]),
    baseline: number.describe('The value at the start and after each reset.'),
    ceiling: number.describe('The value reached at the end of the ramp; above baseline.'),
    [time]: period.describe('How long the ramp from baseline to ceiling takes.'),
  } as { type: Codec<string>; baseline: Codec<number>; ceiling: Codec<number> };
  return andThen(andThen(strict(`${name} generator`, required, optional), ceilingAbove), (a, u, c) => {
    const ms = (a as unknown as Record<string, number>)[time]!;
    return withNoise(a as { noise?: number; noise_seed?: number }, u, c, {
      type: 'sawtooth',
      min: a.baseline,
      max: a.ceiling,
      period_secs: seconds(ms),
    });
  });
}

/** Values of a flap's two states by `enum`: a boolean (1 up, 0 down), or SNMP ifOperStatus (1 up, 2 down). */
const FLAP_STATES = { boolean: { up: 1, down: 0 }, oper_status: { up: 1, down: 2 } } as const;

const ALIASES: Record<GeneratorAlias, Codec<Desugared>> = {
  flap: andThen(
    strict(
      'flap generator',
      {
        type: oneOf(['flap']),
        up_duration: period.describe('How long each up state lasts.'),
        down_duration: period.describe('How long each down state lasts.'),
      },
      {
        up_value: number.describe('The value while up; default from enum.'),
        down_value: number.describe('The value while down; default from enum.'),
        enum: oneOf(Object.keys(FLAP_STATES) as (keyof typeof FLAP_STATES)[]).describe(
          "The two states' values: boolean (up 1, down 0, the default) or oper_status (SNMP ifOperStatus: up 1, down 2).",
        ),
      },
    ),
    (a, u, c): t.Validation<Desugared> => {
      const cycle = a.up_duration + a.down_duration;
      if (cycle > limits.MAX_DURATION_MS) {
        return failAt(
          u,
          c,
          'down_duration',
          `expected up_duration + down_duration up to ${formatMs(limits.MAX_DURATION_MS)} (365 days), got ${formatMs(cycle)}`,
        );
      }
      const states = FLAP_STATES[a.enum ?? 'boolean'];
      const [up, down] = [a.up_value ?? states.up, a.down_value ?? states.down];
      return t.success({
        generator: {
          type: 'spike',
          baseline: down,
          magnitude: up - down,
          duration_secs: seconds(a.up_duration),
          interval_secs: seconds(cycle),
        },
      });
    },
  ),
  saturation: ramp('saturation', 'time_to_saturate', {}),
  leak: ramp('leak', 'time_to_ceiling', {}),
  degradation: ramp('degradation', 'time_to_degrade', noiseFields),
  steady: andThen(
    strict(
      'steady generator',
      {
        type: oneOf(['steady']),
        center: number.describe('The centre line.'),
        amplitude: number.describe('Half the swing around center.'),
        period: period.describe('One cycle of the swing.'),
      },
      noiseFields,
    ),
    (a, u, c) =>
      withNoise(a, u, c, { type: 'sine', amplitude: a.amplitude, period_secs: seconds(a.period), offset: a.center }),
  ),
  spike_event: andThen(
    strict('spike_event generator', {
      type: oneOf(['spike_event']),
      baseline: number.describe('The value outside spikes.'),
      spike_height: number.describe('Added to baseline during a spike.'),
      spike_duration: period.describe('How long each spike lasts; shorter than spike_interval.'),
      spike_interval: period.describe("From one spike's start to the next."),
    }),
    (a, u, c): t.Validation<Desugared> => {
      if (a.spike_duration >= a.spike_interval) {
        const raw = u as Record<string, unknown>;
        return failAt(
          u,
          c,
          'spike_duration',
          `expected a duration shorter than spike_interval (${show(raw.spike_interval)}), got ${show(raw.spike_duration)}`,
        );
      }
      return t.success({
        generator: {
          type: 'spike',
          baseline: a.baseline,
          magnitude: a.spike_height,
          duration_secs: seconds(a.spike_duration),
          interval_secs: seconds(a.spike_interval),
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
 * A pack metric's generator in `overrides`, an alias allowed: what it stands for, with its noise
 * (which becomes the expanded entry's jitter).
 */
export const overrideGenerator = new Codec<Desugared>('generator', (u, c) => {
  const alias = aliasOf(u);
  if (alias) return alias.validate(u, c);
  const decoded = packGenerator.validate(u, c);
  return isRight(decoded) ? t.success({ generator: decoded.right }) : decoded;
})
  .withSchema(taggedSchema({ ...PACK_GENERATOR_VARIANTS, ...ALIASES }))
  .describe("Replaces the metric's generator: a generator type (not csv_replay) or an operational alias.")
  .define('override_generator');

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
  if (!noise) return { fields: { ...fields, generator }, issues: [] };
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
