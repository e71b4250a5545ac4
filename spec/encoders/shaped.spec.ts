import { expect } from 'chai';
import { of } from 'rxjs';
import { influxLp } from '../../lib/encoders/influx-lp.js';
import { jsonLines } from '../../lib/encoders/json-lines.js';
import { metricsText } from '../../lib/encoders/metrics-text.js';
import { openMetrics } from '../../lib/encoders/openmetrics.js';
import { sampleLines } from '../../lib/encoders/sample-lines.js';
import { textValueFormat } from '../../lib/encoders/number.js';
import type { TextMetricEncoder } from '../../lib/encoders/encoder.js';
import { labels, type LabelOptions } from '../../operators/labels.js';

import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { seriesOf, type Series } from '../../operators/model/series.js';
import { ticks } from '../../operators/ticks.js';
import { collect } from '../support/marbles.js';
import { sampleBatch, textOf } from '../support/batches.js';

/** Ticks 0..n-1 of a wide entry (past interning: shaped series), and the same label sets built whole. */
function wideSeries(options: LabelOptions, n: number): { shaped: Series[]; whole: Series[] } {
  const shaped = collect(
    of(RateSchedule.constant(1000)).pipe(ticks({ duration: n }), labels(options)),
    (b, i) => b.series[i]!,
  );
  return { shaped, whole: shaped.map((s) => seriesOf(s.labels)) };
}

const WIDE: LabelOptions = {
  static: { env: 'c"i, x=y', zone: 'é' },
  dynamic: [
    { key: 'pod', cardinality: 70_000 },
    { key: 'dc', values: ['east', 'we st'] },
  ],
  spikes: [
    { label: 'user', every: 6, for: 3, cardinality: 4, strategy: 'random', prefix: 'u', seed: 1 },
    // A spike beats the rotating label of its name while present.
    { label: 'pod', every: 5, for: 1, cardinality: 3, prefix: 'spiked-' },
  ],
};

const ENCODERS: Record<string, () => TextMetricEncoder> = {
  metrics_text: () => metricsText({ name: 'm' }),
  json_lines: () => jsonLines({ name: 'm' }),
  influx_lp: () => influxLp({ name: 'm' }),
  openmetrics: () => openMetrics({ name: 'm', metricType: 'gauge' }),
};

describe('text metric encoders on shaped label sets', () => {
  for (const [kind, encoder] of Object.entries(ENCODERS)) {
    it(`${kind}: writes a shaped series as it writes the label set built whole`, () => {
      const { shaped, whole } = wideSeries(WIDE, 12);
      expect(shaped.every((s) => s.shape)).to.equal(true);
      const values = shaped.map((_, i) => i / 3);
      const out = textOf(encoder().encode(sampleBatch({ values, series: shaped })));
      expect(out).to.equal(textOf(encoder().encode(sampleBatch({ values, series: whole }))));
      expect(out).to.include('pod_11').and.include('spiked-0');
    });
  }

  it('writes a shape whose format rewrites the counters from the label set built whole, not from the shape', () => {
    const rewriting = () =>
      sampleLines({
        lead: (s) => `${s.key.replace(/\d+/g, (d) => String(Number(d) + 1))} `,
        middle: () => '',
        stamp: () => '\n',
        value: textValueFormat(),
      });
    const { shaped, whole } = wideSeries({ dynamic: [{ key: 'pod', cardinality: 70_000 }] }, 3);
    const out = textOf(rewriting().encode(sampleBatch({ values: [0, 0, 0], series: shaped })));
    expect(out).to.equal('pod="pod_1" 0\npod="pod_2" 0\npod="pod_3" 0\n');
    expect(out).to.equal(textOf(rewriting().encode(sampleBatch({ values: [0, 0, 0], series: whole }))));
  });
});
