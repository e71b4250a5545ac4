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
  metrics: (config, meta) => influxLp({ name: meta.name, fieldKey: config.field_key, precision: config.precision }),
});
