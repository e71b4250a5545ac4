import { oneOf, stringWhere, strict } from '../../language/combinators.js';
import { precision } from '../../language/fields.js';
import { influxLp } from '../influx-lp.js';
import { defineEncoder } from './kind.js';

/** InfluxDB refuses a point with a tag or a field named `time` (400 "invalid tag key", measured with 1.6). */
const TIME_REFUSED = 'InfluxDB refuses a point with a tag or field named time';

export const influxLpKind = defineEncoder({
  type: 'influx_lp',
  codec: strict(
    'influx_lp encoder',
    { type: oneOf(['influx_lp']) },
    {
      field_key: stringWhere(
        (key) => key.length > 0 && key !== 'time',
        `a non-empty string other than time (${TIME_REFUSED})`,
        {
          minLength: 1,
          not: { const: 'time' },
        },
      ).describe('The name of the one field of each line; default value.'),
      precision,
    },
  ),
  carries: ['metrics'],
  reservedLabels: { time: TIME_REFUSED },
  sinkIssue: ({ url }) => {
    // InfluxDB and VictoriaMetrics read a write's timestamps in the unit its `precision` names, nanoseconds without
    // or empty (`?precision=`).
    const precision = typeof url === 'string' && URL.canParse(url) ? new URL(url).searchParams.get('precision') : null;
    if (precision === null || ['', 'n', 'ns'].includes(precision)) return undefined;
    return {
      path: ['url'],
      message: `precision=${precision}: influx_lp writes timestamps in nanoseconds, which InfluxDB would read in that unit and refuse (time outside range), and VictoriaMetrics drop; leave precision out or give precision=ns`,
    };
  },
  metrics: (config, meta) => influxLp({ name: meta.name, fieldKey: config.field_key, precision: config.precision }),
});
