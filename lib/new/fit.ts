/**
 * Fitting one recorded series to the svc generator that reproduces its shape, for
 * `svc new --from FILE.csv` (docs/new.md). The shapes are tried simplest first, and the first that
 * fits wins: constant, trend (counter, leak or fall), two levels (step change, spikes, flapping),
 * sine, sawtooth. Each shape is judged against the rows by its normalised RMSE (the RMS of the
 * residual over the range of the values): it fits when that is at most {@link FIT_NRMSE}, or when
 * its residual is white noise, which then becomes the entry's `jitter`. Pure and deterministic;
 * O(n log n) in the rows.
 */
import { isRight } from 'fp-ts/lib/Either.js';
import { generator as generatorCodec } from '../language/fields.js';
import type { GeneratorConfig } from '../language/types.js';
import { MAX_PERIOD_SECS, MAX_RATE, MIN_RATE } from '../language/limits.js';
import { dominantPeriodMs } from './periodogram.js';

/** What a series was found to be. */
export type Shape =
  | 'constant'
  | 'counter'
  | 'leak'
  | 'trend'
  | 'step change'
  | 'spikes'
  | 'flapping'
  | 'sine'
  | 'sawtooth';

/** The fit of one series: the generator of its shape, or none (the entry replays the column). */
export type SeriesFit = ShapeFit | NoFit;

interface FitCommon {
  /** Events per second of the data: one over its median row spacing (1 for a single row). */
  readonly rate: number;
  /** Normalised RMSE of the chosen shape (without a fit: of the closest shape, NaN when none was tried): 0 is exact. */
  readonly quality: number;
  /** One line for a person: what was found, its parameters, how well it fits. */
  readonly note: string;
}

export interface ShapeFit extends FitCommon {
  readonly shape: Shape;
  readonly generator: GeneratorConfig;
  /** The entry's `jitter`: the residual was white noise of this amplitude (uniform noise of the same RMS). */
  readonly jitter?: number;
}

export interface NoFit extends FitCommon {
  readonly shape: 'none';
  readonly generator?: undefined;
  readonly jitter?: undefined;
}

/** A fit without noise: residual RMS at most 5 % of the range of the values. */
export const FIT_NRMSE = 0.05;
/** A residual smaller than this (NRMSE) is the fit's own error (rounding, sampling), never jitter. */
const NOISE_FLOOR_NRMSE = 0.002;
/** Noise has no value beyond this many RMS: Gaussian noise of 100,000 rows reaches about 4.4, uniform noise 1.8. */
const NOISE_PEAK_RATIO = 5;
/** Rows a series needs before any shape is tried: fewer say too little about a shape. */
export const MIN_ROWS = 8;
/** Rows a residual needs to be taken for noise: fewer cannot tell noise from a shape not found. */
export const MIN_NOISE_ROWS = 50;
/** A periodic shape (sine, sawtooth, spikes, flapping) repeats at least this often within the data. */
const MIN_CYCLES = 2;
/** Lags of the autocorrelation that the white-noise test looks at. */
const NOISE_LAGS = 20;
/**
 * Refining steps of the sine's period (golden section): the bracket, two frequency bins, shrinks to 0.618^24
 * ≈ 1e-5 of its width.
 */
const PERIOD_REFINEMENTS = 24;
/** Rounds of the two-level split (1-D k-means with k = 2): it settles in a few. */
const SPLIT_ROUNDS = 10;

/** A candidate shape: its generator, and the value it predicts at t ms after the first row. */
interface Candidate {
  readonly shape: Shape;
  readonly generator: GeneratorConfig;
  readonly model: (t: number) => number;
  /** The parameters in words, for the note. */
  readonly found: string;
}

/** The series as the shapes read it: times from the first row. */
interface Series {
  readonly t: readonly number[];
  readonly v: readonly number[];
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  /** Median spacing of the rows in ms. */
  readonly spacing: number;
  /** Ms the data covers: first row to last, plus one spacing (as csv_replay's span). */
  readonly span: number;
  /** Rounds a value to the precision the range of the data calls for. */
  readonly level: (x: number) => number;
}

/**
 * The generator that reproduces `values` (finite) sampled at `timesMs` (increasing, as many), with
 * the entry's rate and jitter, and a note; a {@link NoFit} when no shape fits.
 */
export function fitSeries(timesMs: readonly number[], values: readonly number[]): SeriesFit {
  if (timesMs.length !== values.length || values.length === 0)
    throw new Error(`fitSeries: ${timesMs.length} times for ${values.length} values`);
  const series = seriesOf(timesMs, values);
  const rate = clamp(significant(1000 / series.spacing), MIN_RATE, MAX_RATE);
  if (series.max === series.min) {
    return {
      shape: 'constant',
      generator: { type: 'constant', value: series.min },
      rate,
      quality: 0,
      note: `constant: value ${fmt(series.min)}; fits exactly`,
    };
  }
  if (values.length < MIN_ROWS)
    return {
      shape: 'none',
      rate,
      quality: NaN,
      note: `only ${values.length} rows (fewer than ${MIN_ROWS}): replayed as recorded`,
    };
  let best: { candidate: Candidate; nrmse: number } | undefined;
  for (const candidate of candidatesOf(series)) {
    if (!isRight(generatorCodec.decode(candidate.generator))) continue;
    const judged = judge(series, candidate);
    if (judged.fits) {
      const jitter = judged.noise === undefined ? undefined : series.level(judged.noise);
      const noise = jitter === undefined ? '' : ` plus noise ±${fmt(jitter)}`;
      return {
        shape: candidate.shape,
        generator: candidate.generator,
        ...(jitter !== undefined && { jitter }),
        rate,
        quality: judged.nrmse,
        note: `${candidate.shape}: ${candidate.found}${noise}; fits with NRMSE ${judged.nrmse.toFixed(3)}`,
      };
    }
    if (!best || judged.nrmse < best.nrmse) best = { candidate, nrmse: judged.nrmse };
  }
  const tried = best ? ` (closest: ${best.candidate.shape}, NRMSE ${best.nrmse.toFixed(3)}, residual not noise)` : '';
  return { shape: 'none', rate, quality: best?.nrmse ?? NaN, note: `no shape fits${tried}: replayed as recorded` };
}

function seriesOf(timesMs: readonly number[], values: readonly number[]): Series {
  const t = timesMs.map((ms) => ms - timesMs[0]!);
  let [min, max, sum] = [Infinity, -Infinity, 0];
  for (const v of values) [min, max, sum] = [Math.min(min, v), Math.max(max, v), sum + v];
  const gaps = t
    .slice(1)
    .map((ms, i) => ms - t[i]!)
    .sort((a, b) => a - b);
  const spacing = gaps.length ? gaps[Math.floor(gaps.length / 2)]! : 1000;
  // Six significant digits of the range: finer than any fit can tell apart.
  const decimals = max > min ? Math.min(15, Math.max(0, 5 - Math.floor(Math.log10(max - min)))) : 0;
  return {
    t,
    v: values,
    min,
    max,
    mean: sum / values.length,
    spacing,
    span: t[t.length - 1]! + spacing,
    // A tiny negative rounds to -0, which YAML writes as `-0`: 0 it is.
    level: (x) => Number(x.toFixed(decimals)) || 0,
  };
}

/** The shapes to try, simplest first; each is computed only when the ones before it did not fit. */
function* candidatesOf(series: Series): Generator<Candidate> {
  const value = series.level(series.mean);
  yield { shape: 'constant', generator: { type: 'constant', value }, model: () => value, found: `value ${fmt(value)}` };
  yield trend(series);
  const levels = twoLevels(series);
  if (levels) yield levels;
  const wave = sine(series);
  if (wave) yield wave;
  const saw = sawtooth(series);
  if (saw) yield saw;
}

/**
 * How well a candidate fits: its NRMSE, and whether it fits: at most {@link FIT_NRMSE}, or with a residual of
 * at least {@link MIN_NOISE_ROWS} rows that is noise. A noise residual above {@link NOISE_FLOOR_NRMSE}
 * (fitting or not without it) is returned as `noise`, the entry's jitter: √3 × its RMS, the amplitude of the
 * uniform noise (svc's jitter) of that RMS.
 */
function judge(series: Series, candidate: Candidate): { fits: boolean; nrmse: number; noise?: number } {
  const { t, v } = series;
  const residual = v.map((x, i) => x - candidate.model(t[i]!));
  const rms = Math.sqrt(residual.reduce((sum, r) => sum + r * r, 0) / residual.length);
  const nrmse = rms / (series.max - series.min);
  const noise = nrmse > NOISE_FLOOR_NRMSE && residual.length >= MIN_NOISE_ROWS && isNoise(residual, rms);
  return { fits: noise || nrmse <= FIT_NRMSE, nrmse, ...(noise && { noise: Math.sqrt(3) * rms }) };
}

/**
 * Whether a residual is noise, as svc's jitter makes: white (its autocorrelation at lags 1 to 20
 * under max(0.2, 3/√n): three standard errors of white noise's) and without outliers (no value beyond
 * {@link NOISE_PEAK_RATIO} × its RMS: a rare spike is not noise).
 */
function isNoise(residual: readonly number[], rms: number): boolean {
  const n = residual.length;
  if (residual.some((r) => Math.abs(r) > NOISE_PEAK_RATIO * rms)) return false;
  const mean = residual.reduce((sum, r) => sum + r, 0) / n;
  const centred = residual.map((r) => r - mean);
  const power = centred.reduce((sum, r) => sum + r * r, 0);
  if (power === 0) return true;
  const limit = Math.max(0.2, 3 / Math.sqrt(n));
  for (let lag = 1; lag <= Math.min(NOISE_LAGS, Math.floor(n / 4)); lag++) {
    let sum = 0;
    for (let i = lag; i < n; i++) sum += centred[i]! * centred[i - lag]!;
    if (Math.abs(sum / power) > limit) return false;
  }
  return true;
}

/**
 * A straight line (least squares). Never falling (a counter): `step` at the fitted increase per
 * tick. Rising otherwise (a gauge that leaks): the `leak` alias's sawtooth, from the start value
 * to the value at the end of the data over the data's span, so it restarts as a leaking process
 * does. Falling, or rising over a span longer than a sawtooth's period may be: `step` (a trend,
 * which from-csv.ts marks a gauge).
 */
function trend(series: Series): Candidate {
  const { t, v, spacing, span } = series;
  const [a, b] = lineThrough(t, v);
  const start = series.level(a);
  const model = (x: number) => a + b * x;
  const step: GeneratorConfig = { type: 'step', start, step_size: significant(b * spacing) };
  const found = `from ${fmt(start)} by ${fmt(b * 1000)}/s`;
  if (b > 0 && v.every((x, i) => i === 0 || x >= v[i - 1]!)) return { shape: 'counter', generator: step, model, found };
  if (b > 0 && span / 1000 <= MAX_PERIOD_SECS) {
    const max = series.level(a + b * span);
    const period_secs = significant(span / 1000);
    return {
      shape: 'leak',
      generator: { type: 'sawtooth', min: start, max, period_secs },
      model,
      found: `${found} to ${fmt(max)} over the data's ${fmt(period_secs)} s, restarting after that`,
    };
  }
  return { shape: 'trend', generator: step, model, found };
}

/** Intercept and slope of the least-squares line through (x, y). */
function lineThrough(x: readonly number[], y: readonly number[]): [number, number] {
  const n = x.length;
  const [mx, my] = [x.reduce((s, a) => s + a, 0) / n, y.reduce((s, a) => s + a, 0) / n];
  let [sxy, sxx] = [0, 0];
  for (let i = 0; i < n; i++) [sxy, sxx] = [sxy + (x[i]! - mx) * (y[i]! - my), sxx + (x[i]! - mx) ** 2];
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return [my - slope * mx, slope];
}

/**
 * Values at two levels (split by 1-D k-means). One change: a step change, written as a `spike`
 * whose excursion is the first level until the change and whose interval is the data's span (a
 * `sequence` would need one value per tick). Several: the excursions of the rarer level, or of
 * the higher one when each holds 25–75 % of the rows (flapping, up first as the `flap` alias),
 * at the interval between their starts, as a `spike`.
 */
function twoLevels(series: Series): Candidate | undefined {
  const { t, v } = series;
  let split = (series.min + series.max) / 2;
  let [low, high] = [series.min, series.max];
  for (let round = 0; round < SPLIT_ROUNDS; round++) {
    [low, high] = [meanWhere(v, (x) => x <= split), meanWhere(v, (x) => x > split)];
    split = (low + high) / 2;
  }
  const highRows = v.filter((x) => x > split).length;
  // A level held by a single row is an outlier, not a level.
  if (highRows < 2 || v.length - highRows < 2) return undefined;
  const runs = runsOf(v.map((x) => x > split));
  const [lowLevel, highLevel] = [series.level(low), series.level(high)];
  const levelOf = (isHigh: boolean) => (isHigh ? highLevel : lowLevel);
  if (runs.length === 2) {
    const [before, after] = [levelOf(runs[0]!.high), levelOf(runs[1]!.high)];
    const change = t[runs[1]!.start]!;
    return {
      shape: 'step change',
      generator: {
        type: 'spike',
        baseline: after,
        magnitude: series.level(before - after),
        duration_secs: significant(change / 1000),
        interval_secs: significant(series.span / 1000),
      },
      model: (x) => (x < change ? before : after),
      found: `${fmt(before)} until ${fmt(change / 1000)} s, then ${fmt(after)} (repeating every ${fmt(series.span / 1000)} s)`,
    };
  }
  const highShare = highRows / v.length;
  const flapping = highShare >= 0.25 && highShare <= 0.75;
  const excursionHigh = flapping || highShare < 0.5;
  // The first and last runs may be cut by the ends of the data: only whole ones are measured.
  const excursions = runs.filter((run) => run.high === excursionHigh && run.start > 0);
  const whole = excursions.filter((run) => run.end < v.length);
  if (excursions.length < MIN_CYCLES || whole.length === 0) return undefined;
  const interval = (t[excursions[excursions.length - 1]!.start]! - t[excursions[0]!.start]!) / (excursions.length - 1);
  const duration = median(whole.map((run) => t[run.end]! - t[run.start]!));
  const phase = signedPhase(t[excursions[0]!.start]!, interval);
  const [up, down] = [levelOf(excursionHigh), levelOf(!excursionHigh)];
  return {
    shape: flapping ? 'flapping' : 'spikes',
    generator: {
      type: 'spike',
      baseline: down,
      magnitude: series.level(up - down),
      duration_secs: significant(duration / 1000),
      interval_secs: significant(interval / 1000),
    },
    model: (x) => ((((x - phase) % interval) + interval) % interval < duration ? up : down),
    found: `${fmt(down)} with ${fmt(up)} for ${fmt(duration / 1000)} s every ${fmt(interval / 1000)} s${shifted(phase, 'a cycle starting')}`,
  };
}

/** Maximal runs of equal flags: [start, end) and the flag. */
function runsOf(flags: readonly boolean[]): { start: number; end: number; high: boolean }[] {
  const runs: { start: number; end: number; high: boolean }[] = [];
  flags.forEach((flag, i) => {
    const last = runs[runs.length - 1];
    if (last && last.high === flag) last.end = i + 1;
    else runs.push({ start: i, end: i + 1, high: flag });
  });
  return runs;
}

/**
 * A sine: the period of the strongest frequency (periodogram.ts) refined by golden section within
 * one frequency bin, then offset, amplitude and phase by least squares. svc's sine starts at phase
 * 0 at the entry start; the fit keeps the data's phase (the quality is the shape's), turns a phase
 * beyond ±90° into a negative amplitude, and the note states what is left.
 */
function sine(series: Series): Candidate | undefined {
  const { t, v, spacing, span } = series;
  const guess = dominantPeriodMs(t, v, spacing, MIN_CYCLES);
  if (guess === undefined) return undefined;
  // One bin of the spectrum is about guess / cycles in period; the bracket spans a bin each way.
  const width = (guess * guess) / span;
  const period = goldenMinimum(
    (p) => sineAt(t, v, p).residual,
    Math.max(guess - width, 2 * spacing),
    Math.min(guess + width, span / MIN_CYCLES),
  );
  const { offset, amplitude, phase } = sineAt(t, v, period);
  const [sign, shift] = Math.abs(phase) > Math.PI / 2 ? [-1, phase - Math.sign(phase) * Math.PI] : [1, phase];
  const omega = (2 * Math.PI) / period;
  const [a, o] = [series.level(sign * amplitude), series.level(offset)];
  const degrees = Math.round((shift * 180) / Math.PI);
  return {
    shape: 'sine',
    generator: { type: 'sine', amplitude: a, period_secs: significant(period / 1000), offset: o },
    model: (x) => offset + amplitude * Math.sin(omega * x + phase),
    found: `period ${fmt(period / 1000)} s, amplitude ${fmt(a)}, offset ${fmt(o)}${degrees === 0 ? '' : `, at phase ${degrees}° at the first row (svc's sine starts at 0°)`}`,
  };
}

/** Least-squares offset + A·sin(2πt/period + phase) through the rows, with its residual sum of squares. */
function sineAt(
  t: readonly number[],
  v: readonly number[],
  period: number,
): { offset: number; amplitude: number; phase: number; residual: number } {
  const omega = (2 * Math.PI) / period;
  // Normal equations of v ≈ c + s·sin + k·cos, solved by Cramer's rule.
  let [n, S, C, SS, CC, SC, V, VS, VC, VV] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (let i = 0; i < t.length; i++) {
    const [s, c, y] = [Math.sin(omega * t[i]!), Math.cos(omega * t[i]!), v[i]!];
    [n, S, C, SS, CC, SC] = [n + 1, S + s, C + c, SS + s * s, CC + c * c, SC + s * c];
    [V, VS, VC, VV] = [V + y, VS + y * s, VC + y * c, VV + y * y];
  }
  const det = (m: readonly number[]) =>
    m[0]! * (m[4]! * m[8]! - m[5]! * m[7]!) -
    m[1]! * (m[3]! * m[8]! - m[5]! * m[6]!) +
    m[2]! * (m[3]! * m[7]! - m[4]! * m[6]!);
  const d = det([n, S, C, S, SS, SC, C, SC, CC]);
  if (d === 0) return { offset: V / n, amplitude: 0, phase: 0, residual: VV - (V * V) / n };
  const c0 = det([V, S, C, VS, SS, SC, VC, SC, CC]) / d;
  const s0 = det([n, V, C, S, VS, SC, C, VC, CC]) / d;
  const k0 = det([n, S, V, S, SS, VS, C, SC, VC]) / d;
  // Residual sum of squares of a least-squares fit: Σy² − β·Xᵀy.
  const residual = VV - (c0 * V + s0 * VS + k0 * VC);
  return { offset: c0, amplitude: Math.hypot(s0, k0), phase: Math.atan2(k0, s0), residual };
}

/** Where `f` is least in [lo, hi], by golden-section search ({@link PERIOD_REFINEMENTS} steps). */
function goldenMinimum(f: (x: number) => number, lo: number, hi: number): number {
  const ratio = (Math.sqrt(5) - 1) / 2;
  let [a, b] = [lo, hi];
  let [x1, x2] = [b - ratio * (b - a), a + ratio * (b - a)];
  let [f1, f2] = [f(x1), f(x2)];
  for (let step = 0; step < PERIOD_REFINEMENTS; step++) {
    if (f1 <= f2) {
      [b, x2, f2] = [x2, x1, f1];
      x1 = b - ratio * (b - a);
      f1 = f(x1);
    } else {
      [a, x1, f1] = [x1, x2, f2];
      x2 = a + ratio * (b - a);
      f2 = f(x2);
    }
  }
  return (a + b) / 2;
}

/**
 * A sawtooth: ramps that drop by more than half the range. The period is the mean time between
 * the first and last drop, the phase the first drop's time; min and max by least squares of the
 * values against the fraction of the period.
 */
function sawtooth(series: Series): Candidate | undefined {
  const { t, v } = series;
  const half = (series.max - series.min) / 2;
  const drops = t.filter((_, i) => i > 0 && v[i]! - v[i - 1]! < -half);
  if (drops.length < MIN_CYCLES) return undefined;
  const period = (drops[drops.length - 1]! - drops[0]!) / (drops.length - 1);
  const phase = signedPhase(drops[0]!, period);
  const fraction = (x: number) => ((((x - phase) % period) + period) % period) / period;
  const [low, rise] = lineThrough(t.map(fraction), v);
  if (!(rise > 0)) return undefined;
  const [min, max] = [series.level(low), series.level(low + rise)];
  return {
    shape: 'sawtooth',
    generator: { type: 'sawtooth', min, max, period_secs: significant(period / 1000) },
    model: (x) => low + rise * fraction(x),
    found: `${fmt(min)} to ${fmt(max)} every ${fmt(period / 1000)} s${shifted(phase, 'a ramp starting')}`,
  };
}

/** When a cycle that starts at `at` ms starts relative to the first row: within half a period either way. */
function signedPhase(at: number, period: number): number {
  const phase = at % period;
  return phase > period / 2 ? phase - period : phase;
}

/**
 * The note's words for a periodic shape whose cycle starts `phase` ms from the first row (svc's starts at the
 * entry start).
 */
function shifted(phase: number, what: string): string {
  if (Math.round(phase) === 0) return '';
  return `, ${what} ${fmt(Math.abs(phase) / 1000)} s ${phase > 0 ? 'after' : 'before'} the first row (svc's at the entry start)`;
}

function meanWhere(values: readonly number[], test: (x: number) => boolean): number {
  let [sum, count] = [0, 0];
  for (const x of values) if (test(x)) [sum, count] = [sum + x, count + 1];
  return sum / count;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

/** Six significant digits: parameters read as written, not as a float's last bits. */
function significant(x: number): number {
  return Number(x.toPrecision(6));
}

/** Four significant digits, for notes. */
function fmt(x: number): string {
  return String(Number(x.toPrecision(4)));
}
