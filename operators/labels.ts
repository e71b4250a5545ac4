/**
 * The labels operator gives every tick its label set. The words it uses:
 *
 * - **dimension**: one varying label (a rotating label or a cardinality spike); static labels are
 *   not dimensions.
 * - **digit**: which value a dimension gives a tick: 0 for absent (a spike outside its window),
 *   1 … cardinality for its values. Tick n's digit of a rotating label is (n mod cardinality) + 1.
 * - **radix**: how many digits a dimension has, absence included (cardinality + 1).
 * - **code**: a tick's digits read as one mixed-radix number (dimension by dimension, each
 *   digit below its radix): equal codes, equal label sets. Past 2^53 codes it is the digits' text.
 * - **interned**: up to {@link MAX_INTERNED} codes, each label set is built once and kept in an
 *   array indexed by its code; ticks of one set share one `Series` object.
 * - **transient**: past that, a tick's `Series` is built for it (runs of one set share it) and
 *   not kept, so memory stays flat at any cardinality.
 * - **counted label**: a dimension whose value is `prefix` + a number (a counter form, a spike).
 * - **shape**, **hole**, **fill**: past interning, the label sets whose non-counted labels agree
 *   share a shape: their text with a hole (a private-use marker character) where each counted
 *   label's number goes; a tick's set is the shape and its fills (the numbers). Encoders write
 *   the shape's bytes around the fills, so no label text is built per tick.
 * - **shard**: one of `count` workers; it keeps the ticks of its own label sets.
 */
import { defer, filter, ignoreElements, map, pipe, type OperatorFunction } from 'rxjs';
import { selectTicks, type Labelled, type TickBatch } from './model/batch.js';
import {
  hasHoleMarker,
  holeMarker,
  MAX_HOLES,
  seriesOf,
  seriesOfSorted,
  seriesShape,
  ShapedSeries,
  type Series,
} from './model/series.js';
import { inHeadOf, type Window } from './model/window.js';
import { fnv1a, SplitMix64 } from '../lib/random.js';
import {
  check,
  checkList,
  checkOptional,
  checkWindow,
  INTEGER,
  OBJECT,
  oneOf,
  POSITIVE_COUNT,
  STRING,
  wholeNumberBelow,
} from './internal/arguments.js';

/** A rotating label present on every event: `prefix` + (n mod cardinality), or `values` cycled. */
export type RotatingLabel =
  | { readonly key: string; readonly values: readonly string[] }
  | { readonly key: string; readonly cardinality: number; readonly prefix?: string };

/** A label injected only in the head `[0, for)` of every cycle, with `cardinality` distinct values. */
export interface CardinalitySpike extends Window {
  readonly label: string;
  readonly cardinality: number;
  /** `counter`: prefix + (n mod cardinality); `random`: prefix + SplitMix64 hex of (seed, n mod cardinality). */
  readonly strategy?: 'counter' | 'random';
  readonly prefix?: string;
  readonly seed?: number;
}

/** One of `count` shards that split the series between them: this one emits series `index`, `index + count`, …. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

export interface LabelOptions {
  readonly static?: Readonly<Record<string, string>>;
  readonly dynamic?: readonly RotatingLabel[];
  readonly spikes?: readonly CardinalitySpike[];
  /** Keep only the ticks of this shard's series; default: every tick. */
  readonly shard?: Shard;
}

/** One varying label: which of its values tick n carries (0 = absent), and the value's text. */
interface Dimension {
  readonly key: string;
  /** Number of distinct digits, absence included. */
  readonly radix: number;
  digit(index: number, offset: number): number;
  text(digit: number): string;
  /** A counting label's values: `prefix` + `fill(digit)` (digits or hex digits, which no format escapes). */
  readonly counted?: { readonly prefix: string; fill(digit: number): number | string };
}

/**
 * Label injection: gives every tick its label set as a {@link Series}. Static labels
 * are on every event; each rotating label takes value n mod cardinality on tick n; a spike
 * label is present only inside its window. On a key collision a rotating label beats a static
 * one and a spike beats both.
 *
 * ```
 * ticks:   0---1---2---3---|
 *          labels({ static: { env: 'ci' }, dynamic: [{ key: 'pod', cardinality: 2 }] })
 * series:  a---b---a---b---|   a = {env="ci",pod="pod_0"}, b = {env="ci",pod="pod_1"}
 * ```
 *
 * With a `shard`, series are numbered in the order they first appear (0, 1, 2, …: the same on
 * every shard, which all see the same ticks) and only the ticks of series `n` with
 * `n mod count = index` pass, at their own times: N shards together emit each event once.
 *
 * ```
 * ticks:   0---1---2---3---|
 *          labels({ dynamic: [{ key: 'pod', cardinality: 2 }], shard: { index: 1, count: 2 } })
 * series:  ----b-------b---|
 * ```
 *
 * Up to 65,536 possible label sets are interned: ticks of one label set share one `Series`
 * object. Past that each tick gets its own (consecutive ticks of one set share it), marked
 * `transient`, so memory does not grow with cardinality (whatever keeps state per label set
 * keys it by `Series.key`), and a shard takes the sets whose FNV-1a hash of their key is
 * `index` modulo `count` (as Prometheus' `hashmod` spreads targets): decided by each shard
 * alone, without a number per series. Such a transient set is a `ShapedSeries` where it can
 * be: a shape shared by the ticks whose other labels agree, with the counters of its counting
 * labels as fills, so no label text is built per tick (docs/architecture.md, "The hot path").
 */
export function labels<B extends TickBatch>(options: LabelOptions = {}): OperatorFunction<B, Labelled<B>> {
  checkLabelOptions(options);
  const fixed = options.static ?? {};
  const shard = options.shard;
  const dimensions = dimensionsOf(options);
  if (dimensions.length === 0) {
    // One series, number 0: another shard runs along, emitting nothing.
    if (shard && shard.index !== 0) return ignoreElements();
    const only = seriesOf(fixed);
    return map((batch) => ({ ...batch, series: new Array<Series>(batch.size).fill(only) }));
  }

  // Every label name the entry can write, sorted once; per name its static value and the
  // dimensions that may set it (the last one present wins: spikes beat rotating labels).
  const names = [...new Set([...Object.keys(fixed), ...dimensions.map((d) => d.key)])].sort();
  const fixedValues = names.map((name) => (Object.hasOwn(fixed, name) ? fixed[name] : undefined));
  const setters = names.map((name) => dimensions.flatMap((d, i) => (d.key === name ? [i] : [])).reverse());
  const values = new Array<string | undefined>(names.length);
  // The label set of a tick's digits; `marked`: counting labels' values hold their hole's marker.
  const build = (digits: readonly number[], transient: boolean, marked = false): Series => {
    for (let n = 0; n < names.length; n++) {
      let value = fixedValues[n];
      for (const d of setters[n]!) {
        const digit = digits[d]!;
        if (digit === 0) continue;
        const counted = dimensions[d]!.counted;
        value = marked && counted ? counted.prefix + holeMarker(d) : dimensions[d]!.text(digit);
        break;
      }
      values[n] = value;
    }
    return seriesOfSorted(names, values, transient);
  };

  // A tick's label set is named by its digits, read as one mixed-radix number while that
  // stays exact, else as a string.
  const codes = codesOf(dimensions);
  const exact = codes <= Number.MAX_SAFE_INTEGER;
  // Few enough label sets are interned, each built once; past that every tick builds its own,
  // marked transient, and memory stays flat at any cardinality (rotating labels cycle through
  // all their values, so a cache smaller than the cycle would never hit).
  const interning = codes <= MAX_INTERNED;
  // Past interning, the label sets of ticks whose non-counting labels agree share a shape, and a
  // tick's set is that shape with its counters filled in: no label text is built per tick. A
  // shape is named by the digits of the other labels and which counting labels are present.
  const shapeRadix = (d: Dimension) => (d.counted ? 2 : d.radix);
  const shapeCodes = dimensions.reduce((product, d) => product * shapeRadix(d), 1);
  const shaped =
    !interning &&
    shapeCodes <= SHAPES &&
    dimensions.length <= MAX_HOLES &&
    ![...names, ...fixedValues, ...dimensions.map((d) => d.counted?.prefix)].some(
      (text) => text !== undefined && hasHoleMarker(text),
    );
  const labelled: OperatorFunction<B, Labelled<B>> = (source) =>
    defer(() => {
      // The interned label sets live as long as one subscription: a finished run frees them.
      // Interning means at most 65,536 codes, each exact: an array indexed by the code.
      const interned = new Array<Interned | undefined>(interning ? codes : 0);
      // Shard: the number of each interned label set, by its key (digits of several dimensions may spell one set).
      const numbers = new Map<string, number>();
      const isMine = (series: Series): boolean => {
        if (!shard) return true;
        if (!interning) return shardOf(series, shard.count) === shard.index;
        let n = numbers.get(series.key);
        if (n === undefined) numbers.set(series.key, (n = numbers.size));
        return n % shard.count === shard.index;
      };
      const shapes = new Map<number, ReturnType<typeof seriesShape>>();
      const shapedSeries = (digits: readonly number[]): Series => {
        let shapeCode = 0;
        for (let d = 0; d < dimensions.length; d++) {
          const dimension = dimensions[d]!;
          shapeCode = shapeCode * shapeRadix(dimension) + (dimension.counted ? Math.min(digits[d]!, 1) : digits[d]!);
        }
        let shape = shapes.get(shapeCode);
        if (!shape) shapes.set(shapeCode, (shape = seriesShape(build(digits, false, true))));
        const fills = new Array<number | string>(dimensions.length);
        for (let d = 0; d < dimensions.length; d++) {
          const { counted } = dimensions[d]!;
          fills[d] = counted && digits[d] !== 0 ? counted.fill(digits[d]!) : 0;
        }
        return new ShapedSeries(shape, fills);
      };
      let lastCode: number | string | undefined;
      let last: Interned | undefined;
      const made = (code: number | string, digits: readonly number[]): Interned => {
        if (code === lastCode) return last!;
        const series = shaped ? shapedSeries(digits) : build(digits, !interning);
        const found = { series, mine: isMine(series) };
        if (interning) interned[code as number] = found;
        lastCode = code;
        return (last = found);
      };
      const digits = new Array<number>(dimensions.length);
      return source.pipe(
        map((batch) => {
          let kept: number[] | undefined;
          // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
          const { size, index, offset } = batch;
          const series = new Array<Series>(size);
          for (let i = 0; i < size; i++) {
            const n = index[i]!;
            const at = offset[i]!;
            let code = 0;
            for (let d = 0; d < dimensions.length; d++) {
              const dimension = dimensions[d]!;
              const digit = dimension.digit(n, at);
              digits[d] = digit;
              code = code * dimension.radix + digit;
            }
            // The intern table, else the label set made last (ticks of one set come in runs), else a
            // new one; past 2^53 codes a tick's code is the text of its digits.
            const known = interning ? interned[code] : undefined;
            const found = known ?? made(exact ? code : digits.join(), digits);
            series[i] = found.series;
            if (!found.mine && !kept) kept = Array.from({ length: i }, (_, j) => j);
            else if (found.mine && kept) kept.push(i);
          }
          const all = { ...batch, series };
          return kept ? selectTicks(all, kept) : all;
        }),
      );
    });
  return shard
    ? pipe(
        labelled,
        filter((batch) => batch.size > 0),
      )
    : labelled;
}

const KEY = { type: 'string', test: (key: string) => key !== '', expected: 'a label name' } as const;

/** Throws, naming the field, unless `options` can label ticks: a mistake would show as `pod_NaN` or a crash later. */
function checkLabelOptions(options: LabelOptions): void {
  check('labels', 'options', options, OBJECT);
  const { static: fixed = {}, dynamic = [], spikes = [], shard } = options;
  // Label values are text: a number would be added to a counter (prefix 5 gives "6" for tick 1), and a string
  // taken for the static map would label every event with its characters.
  check('labels', 'static', fixed, OBJECT);
  for (const [key, value] of Object.entries(fixed)) check('labels', `static.${key}`, value, STRING);
  checkList('labels', 'dynamic', dynamic);
  dynamic.forEach((label, i) => {
    check('labels', `dynamic[${i}]`, label, OBJECT);
    check('labels', `dynamic[${i}].key`, label.key, KEY);
    if ('values' in label) {
      checkList('labels', `dynamic[${i}].values`, label.values);
      if (label.values.length === 0) throw new RangeError(`labels: dynamic[${i}].values must not be empty`);
      // The path is written for the value refused only: a list of 100,000 values would write 100,000 of them.
      const refused = label.values.findIndex((value) => typeof value !== 'string');
      if (refused >= 0) check('labels', `dynamic[${i}].values[${refused}]`, label.values[refused], STRING);
    } else {
      check('labels', `dynamic[${i}].cardinality`, label.cardinality, POSITIVE_COUNT);
      checkOptional('labels', `dynamic[${i}].prefix`, label.prefix, STRING);
    }
  });
  checkList('labels', 'spikes', spikes);
  spikes.forEach((spike, i) => {
    check('labels', `spikes[${i}]`, spike, OBJECT);
    check('labels', `spikes[${i}].label`, spike.label, KEY);
    check('labels', `spikes[${i}].cardinality`, spike.cardinality, POSITIVE_COUNT);
    checkWindow('labels', `spikes[${i}]`, spike);
    checkOptional('labels', `spikes[${i}].strategy`, spike.strategy, oneOf(['counter', 'random']));
    checkOptional('labels', `spikes[${i}].prefix`, spike.prefix, STRING);
    checkOptional('labels', `spikes[${i}].seed`, spike.seed, INTEGER);
  });
  if (!shard) return;
  check('labels', 'shard', shard, OBJECT);
  check('labels', 'shard.count', shard.count, POSITIVE_COUNT);
  check('labels', 'shard.index', shard.index, wholeNumberBelow(shard.count, 'shard.count'));
}

/** Most label sets an entry interns (see `labels`); past that, a shard hashes every tick's label set. */
const MAX_INTERNED = 1 << 16;

/**
 * Whether `labels(options)` interns its label sets (its ticks name at most 65,536 of them);
 * past that every tick gets a transient label set, and a shard finds its own by hashing each.
 */
export function internsLabelSets(options: LabelOptions): boolean {
  return codesOf(dimensionsOf(options)) <= MAX_INTERNED;
}

/** Label sets are counted exactly up to here. */
export const COUNTED_LABEL_SETS = 1e15;

/**
 * How many distinct label sets `labels(options)` can write (counted up to {@link COUNTED_LABEL_SETS}):
 * tick n takes value n mod cardinality of every rotating label and of every spike inside its
 * window, so with the spikes of a subset S present the sets repeat every lcm of those
 * cardinalities; the count is the sum of those periods over every S, counted spike by spike as
 * how many subsets give each period. It is exact when the windows let every subset hold for a
 * whole period of ticks; shorter windows, or two labels of one key, write fewer. The one count
 * of label sets: validation's series limit and the default worker count read it.
 */
export function labelSetCount(options: LabelOptions): number {
  let subsets = new Map([[rotationPeriod(options.dynamic ?? []), 1]]);
  for (const spike of options.spikes ?? []) {
    const next = new Map(subsets);
    for (const [period, count] of subsets) {
      const present = leastCommonMultiple(period, spike.cardinality);
      next.set(present, (next.get(present) ?? 0) + count);
    }
    subsets = next;
  }
  let sum = 0;
  for (const [period, count] of subsets) sum += period * count;
  return Math.min(sum, COUNTED_LABEL_SETS);
}

/**
 * After how many ticks the rotating labels' values repeat: the lcm of their cardinalities (at most
 * {@link COUNTED_LABEL_SETS}).
 */
export function rotationPeriod(dynamic: readonly RotatingLabel[]): number {
  return dynamic.reduce(
    (period, label) => leastCommonMultiple(period, 'values' in label ? label.values.length : label.cardinality),
    1,
  );
}

/**
 * After how many ticks every label set `labels(options)` writes has come again, when the spikes' windows are open:
 * the lcm of the rotating labels' and the spikes' cardinalities (at most {@link COUNTED_LABEL_SETS}). A label set not
 * written for that many ticks is one the entry has moved on from.
 * @internal (svc-server's scrape; not part of the operators' API)
 */
export function labelSetPeriod(options: LabelOptions): number {
  return (options.spikes ?? []).reduce(
    (period, spike) => leastCommonMultiple(period, spike.cardinality),
    rotationPeriod(options.dynamic ?? []),
  );
}

/** The least common multiple, capped at {@link COUNTED_LABEL_SETS}. */
function leastCommonMultiple(a: number, b: number): number {
  let [x, y] = [a, b];
  while (y !== 0) [x, y] = [y, x % y];
  return Math.min((a / x) * b, COUNTED_LABEL_SETS);
}

/** The varying labels: rotating ones, then spikes (which win a shared name). */
function dimensionsOf(options: LabelOptions): Dimension[] {
  return [...(options.dynamic ?? []).map(rotating), ...(options.spikes ?? []).map(spike)];
}

/** How many codes the ticks' digits can spell: the product of the dimensions' radices. */
function codesOf(dimensions: readonly Dimension[]): number {
  return dimensions.reduce((product, d) => product * d.radix, 1);
}

/**
 * Most shapes an entry's label sets past interning may take (one per combination of its non-counting labels'
 * values).
 */
const SHAPES = 1 << 12;

/** An interned label set, and whether this shard emits it. */
interface Interned {
  readonly series: Series;
  readonly mine: boolean;
}

/** The shard of a label set past interning: FNV-1a of its key, modulo the shard count. */
function shardOf(series: Series, count: number): number {
  return (fnv1a(series.key) >>> 0) % count;
}

function rotating(label: RotatingLabel): Dimension {
  if ('values' in label) {
    const values = label.values;
    return {
      key: label.key,
      radix: values.length + 1,
      digit: (index) => (index % values.length) + 1,
      text: (digit) => values[digit - 1]!,
    };
  }
  const prefix = label.prefix ?? `${label.key}_`;
  return {
    key: label.key,
    radix: label.cardinality + 1,
    digit: (index) => (index % label.cardinality) + 1,
    text: (digit) => prefix + (digit - 1),
    counted: { prefix, fill: (digit) => digit - 1 },
  };
}

function spike(spike: CardinalitySpike): Dimension {
  const prefix = spike.prefix ?? `${spike.label}_`;
  const random = spike.strategy === 'random' ? new SplitMix64(spike.seed ?? 0) : undefined;
  const inSpike = inHeadOf(spike);
  const fill = (digit: number) => (random ? random.hex(digit - 1) : digit - 1);
  return {
    key: spike.label,
    radix: spike.cardinality + 1,
    digit: (index, offset) => (inSpike(offset) ? (index % spike.cardinality) + 1 : 0),
    text: (digit) => prefix + fill(digit),
    counted: { prefix, fill },
  };
}
