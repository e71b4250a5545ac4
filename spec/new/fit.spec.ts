import { expect } from 'chai';
import { FIT_NRMSE, MIN_NOISE_ROWS, MIN_ROWS, fitSeries, type SeriesFit } from '../../lib/new/fit.js';
import { MAX_GRID_POINTS, dominantPeriodMs, evenGrid } from '../../lib/new/periodogram.js';
import type { GeneratorConfig } from '../../lib/language/types.js';
import { randomWalk, sampled, type Recorded, type SampleOptions } from '../support/recorded-series.js';

/** The generator of a fit, checked to be of `type`. */
function generatorOf<T extends GeneratorConfig['type']>(
  fit: SeriesFit,
  type: T,
): Extract<GeneratorConfig, { type: T }> {
  expect(fit.generator?.type, fit.note).to.equal(type);
  return fit.generator as Extract<GeneratorConfig, { type: T }>;
}

const fitOf = ({ times, values }: Recorded) => fitSeries(times, values);
const fitSampled = (generator: GeneratorConfig, count: number, spacingMs: number, options?: SampleOptions) =>
  fitOf(sampled(generator, count, spacingMs, options));

/** `actual` within `fraction` of `expected` (relative). */
const near = (actual: number, expected: number, fraction: number, what: string) =>
  expect(actual, what).to.be.closeTo(expected, Math.abs(expected) * fraction);

describe('new: fitSeries', () => {
  describe('constant', () => {
    it('a flat series is a constant that fits exactly, without jitter', () => {
      const fit = fitSampled({ type: 'constant', value: 7 }, 50, 1000);
      expect(fit).to.include({ shape: 'constant', quality: 0 });
      expect(fit.generator).to.deep.equal({ type: 'constant', value: 7 });
      expect(fit.jitter).to.equal(undefined);
    });

    it('a noisy constant is a constant with the noise as jitter (value within 5 % of the noise, jitter within 10 %)', () => {
      const fit = fitSampled({ type: 'constant', value: 42 }, 500, 1000, { jitter: 2 });
      expect(generatorOf(fit, 'constant').value).to.be.closeTo(42, 0.1);
      near(fit.jitter!, 2, 0.1, 'jitter');
      expect(fit.note).to.match(/^constant: value 4\d.*plus noise ±[\d.]+; fits with NRMSE 0\.\d{3}$/);
    });

    it('a single outlier is not noise: the series is not taken for a noisy constant', () => {
      const { times, values } = sampled({ type: 'constant', value: 10 }, 200, 1000);
      values[120] = 50;
      expect(fitSeries(times, values).shape).to.not.equal('constant');
    });
  });

  describe('trend', () => {
    it('a counter (never falling) is a step at the fitted increase per tick (start and step_size within 1e-6)', () => {
      const fit = fitSampled({ type: 'step', start: 100, step_size: 3 }, 300, 15_000);
      expect(fit.shape).to.equal('counter');
      const step = generatorOf(fit, 'step');
      expect(step.start).to.be.closeTo(100, 1e-6);
      expect(step.step_size).to.be.closeTo(3, 1e-6);
      expect(fit.rate).to.be.closeTo(1 / 15, 1e-6);
    });

    it('a falling line is a step with a negative step_size', () => {
      const fit = fitSampled({ type: 'step', start: 1000, step_size: -2.5 }, 300, 1000);
      expect(fit.shape).to.equal('trend');
      expect(generatorOf(fit, 'step').step_size).to.be.closeTo(-2.5, 1e-6);
    });

    it('a noisy rise (a leak) is the leak sawtooth over the data span: its slope within 5 %, the noise as jitter within 10 %', () => {
      // 1000 rows 10 s apart of a leak that would take 100,000 s to reach its ceiling.
      const fit = fitSampled({ type: 'sawtooth', min: 100, max: 1000, period_secs: 100_000 }, 1000, 10_000, {
        jitter: 5,
      });
      expect(fit.shape).to.equal('leak');
      const saw = generatorOf(fit, 'sawtooth');
      expect(saw.period_secs).to.equal(10_000);
      near((saw.max - saw.min) / saw.period_secs, 900 / 100_000, 0.05, 'slope');
      expect(saw.min).to.be.closeTo(100, 2);
      near(fit.jitter!, 5, 0.1, 'jitter');
    });

    it('a noisy rise over more than 365 days (longer than a sawtooth period may be) is a step, not a leak', () => {
      const fit = fitSampled({ type: 'step', start: 0, step_size: 10 }, 1000, 12 * 3_600_000, { jitter: 50 });
      expect(fit.shape).to.equal('trend');
      near(generatorOf(fit, 'step').step_size, 10, 0.05, 'step_size');
    });
  });

  describe('sine', () => {
    const wave = { type: 'sine', amplitude: 20, period_secs: 300, offset: 50 } as const;

    it('finds period (within 2 %), amplitude (5 %) and offset (5 % of the amplitude) from the data', () => {
      const fit = fitSampled(wave, 2000, 1000);
      const sine = generatorOf(fit, 'sine');
      near(sine.period_secs, 300, 0.02, 'period');
      near(sine.amplitude, 20, 0.05, 'amplitude');
      expect(sine.offset).to.be.closeTo(50, 1);
      expect(fit.quality).to.be.below(FIT_NRMSE);
      expect(fit.note).to.equal('sine: period 300 s, amplitude 20, offset 50; fits with NRMSE 0.000');
    });

    it('finds a period that is no multiple of the spacing (1373 s sampled every 15 s)', () => {
      const sine = generatorOf(
        fitSampled({ type: 'sine', amplitude: 5, period_secs: 1373, offset: 1 }, 500, 15_000),
        'sine',
      );
      near(sine.period_secs, 1373, 0.02, 'period');
      near(sine.amplitude, 5, 0.05, 'amplitude');
    });

    it('a noisy sine keeps its parameters within tolerance, and the noise becomes jitter (within 10 %)', () => {
      const fit = fitSampled(wave, 2000, 1000, { jitter: 3 });
      const sine = generatorOf(fit, 'sine');
      near(sine.period_secs, 300, 0.02, 'period');
      near(sine.amplitude, 20, 0.05, 'amplitude');
      near(fit.jitter!, 3, 0.1, 'jitter');
    });

    it('a sine starting mid-cycle keeps its shape and says its phase (svc starts at 0°)', () => {
      // 70 s into a 300 s period: 84°.
      const fit = fitSampled(wave, 2000, 1000, { shiftMs: 70_000 });
      near(generatorOf(fit, 'sine').amplitude, 20, 0.05, 'amplitude');
      expect(fit.note).to.contain("at phase 84° at the first row (svc's sine starts at 0°)");
    });

    it('a sine half a period in becomes a negative amplitude, with no phase left to state', () => {
      const fit = fitSampled(wave, 2000, 1000, { shiftMs: 150_000 });
      near(generatorOf(fit, 'sine').amplitude, -20, 0.05, 'amplitude');
      expect(fit.note).to.not.contain('phase');
    });
  });

  describe('sawtooth', () => {
    const saw = { type: 'sawtooth', min: 10, max: 90, period_secs: 120 } as const;

    it('finds min and max (within 2 % of the range) and the period (within 2 %)', () => {
      const found = generatorOf(fitSampled(saw, 1200, 1000), 'sawtooth');
      expect(found.min).to.be.closeTo(10, 1.6);
      expect(found.max).to.be.closeTo(90, 1.6);
      near(found.period_secs, 120, 0.02, 'period');
    });

    it('a counter that wraps (a step with max) is a sawtooth through the same values', () => {
      const fit = fitSampled({ type: 'step', start: 0, step_size: 5, max: 100 }, 420, 1000);
      // 20 values a cycle, 0 to 95: a sawtooth from 0 to 100 over 20 s takes them at whole seconds.
      expect(fit.generator).to.include({ type: 'sawtooth', min: 0, max: 100, period_secs: 20 });
    });

    it('a sawtooth that starts mid-ramp says where its ramp starts; with noise, the noise is jitter', () => {
      const fit = fitSampled({ type: 'sawtooth', min: 0, max: 50, period_secs: 600 }, 3000, 1000, {
        jitter: 2,
        shiftMs: 250_000,
      });
      near(generatorOf(fit, 'sawtooth').period_secs, 600, 0.02, 'period');
      near(fit.jitter!, 2, 0.1, 'jitter');
      expect(fit.note).to.contain('a ramp starting 250 s before the first row');
    });
  });

  describe('two levels', () => {
    it('spikes: baseline and magnitude exact, duration within one row spacing, interval within 2 %', () => {
      const fit = fitSampled(
        { type: 'spike', baseline: 5, magnitude: 40, duration_secs: 10, interval_secs: 60 },
        1200,
        1000,
        { shiftMs: 25_000 },
      );
      expect(fit.shape).to.equal('spikes');
      const spike = generatorOf(fit, 'spike');
      expect([spike.baseline, spike.magnitude]).to.deep.equal([5, 40]);
      expect(spike.duration_secs).to.be.closeTo(10, 1);
      near(spike.interval_secs, 60, 0.02, 'interval');
      expect(fit.quality).to.equal(0);
    });

    it('flapping between two levels is a spike as the flap alias writes it: up first for up_duration, every up + down', () => {
      // flap {up_duration: 30s, down_duration: 40s}
      const fit = fitSampled(
        { type: 'spike', baseline: 0, magnitude: 1, duration_secs: 30, interval_secs: 70 },
        1400,
        1000,
      );
      expect(fit.shape).to.equal('flapping');
      expect(fit.generator).to.deep.equal({
        type: 'spike',
        baseline: 0,
        magnitude: 1,
        duration_secs: 30,
        interval_secs: 70,
      });
    });

    it('one change of level is a spike of the first level until the change, repeating every data span', () => {
      const { times, values } = sampled({ type: 'constant', value: 40 }, 1000, 1000);
      const changed = values.map((v, i) => (i < 400 ? v : 10));
      const fit = fitSeries(times, changed);
      expect(fit.shape).to.equal('step change');
      expect(fit.generator).to.deep.equal({
        type: 'spike',
        baseline: 10,
        magnitude: 30,
        duration_secs: 400,
        interval_secs: 1000,
      });
    });
  });

  describe('no fit', () => {
    it('a random walk has no shape: quality above the threshold, replayed', () => {
      const fit = fitOf(randomWalk(2000, 1000));
      expect(fit.shape).to.equal('none');
      expect(fit.generator).to.equal(undefined);
      expect(fit.quality).to.be.above(FIT_NRMSE);
      expect(fit.note).to.match(
        /^no shape fits \(closest: [a-z ]+, NRMSE 0\.\d{3}, residual not noise\): replayed as recorded$/,
      );
    });

    it(`noise is not told from a shape not found in fewer than ${MIN_NOISE_ROWS} rows: a noisy constant of ${MIN_NOISE_ROWS - 1} is replayed`, () => {
      expect(fitSampled({ type: 'constant', value: 42 }, MIN_NOISE_ROWS - 1, 1000, { jitter: 2 }).shape).to.equal(
        'none',
      );
      expect(fitSampled({ type: 'constant', value: 42 }, MIN_NOISE_ROWS, 1000, { jitter: 2 }).shape).to.equal(
        'constant',
      );
    });

    it(`fewer than ${MIN_ROWS} rows that are not flat are replayed`, () => {
      const fit = fitSeries([0, 1000, 2000], [1, 2, 3]);
      expect(fit.shape).to.equal('none');
      expect(fit.note).to.contain(`only 3 rows`);
    });
  });

  describe('rate, determinism and bounds', () => {
    it('the rate is one over the median spacing, whatever the gaps', () => {
      const times = [0, 10_000, 20_000, 30_000, 100_000, 110_000, 120_000, 500_000, 510_000];
      expect(
        fitSeries(
          times,
          times.map(() => 1),
        ).rate,
      ).to.equal(0.1);
    });

    it('the same rows give the same fit', () => {
      const rows = sampled({ type: 'sine', amplitude: 3, period_secs: 77, offset: 0 }, 800, 1000, { jitter: 1 });
      expect(fitOf(rows)).to.deep.equal(fitOf(rows));
    });

    it(`resamples onto at most ${MAX_GRID_POINTS} grid points, however long the data`, () => {
      const times = [0, 1, 2, 3_000_000_000];
      expect(evenGrid(times, [1, 2, 3, 4], 1).values.length).to.equal(MAX_GRID_POINTS);
      // The grid holds each row until the next, as csv_replay does.
      expect([...evenGrid([0, 1000, 2500], [1, 2, 3], 500).values]).to.deep.equal([1, 1, 2, 2, 2, 3]);
    });

    it('the periodogram finds the strongest period repeating at least twice, and none in a flat series', () => {
      const { times, values } = sampled({ type: 'sine', amplitude: 1, period_secs: 50, offset: 0 }, 1000, 1000);
      expect(dominantPeriodMs(times, values, 1000, 2)).to.be.closeTo(50_000, 1000);
      expect(
        dominantPeriodMs(
          times,
          times.map(() => 3),
          1000,
          2,
        ),
      ).to.equal(undefined);
    });

    it('fits 100,000 rows (the CSV row limit) in well under the spec timeout', () => {
      const rows = sampled({ type: 'sine', amplitude: 20, period_secs: 3600, offset: 50 }, 100_000, 1000, {
        jitter: 1,
      });
      const started = performance.now();
      const fit = fitOf(rows);
      expect(performance.now() - started).to.be.below(5000);
      near(generatorOf(fit, 'sine').period_secs, 3600, 0.02, 'period');
    });
  });
});
