import { nonEmptyString, oneOf, strict } from '../../language/combinators.js';
import { precision } from '../../language/fields.js';
import { influxLp } from '../influx-lp.js';
import { defineEncoder } from './kind.js';

export const influxLpKind = defineEncoder({
  type: 'influx_lp',
  codec: strict(
    'influx_lp encoder',
    { type: oneOf(['influx_lp']) },
    { field_key: nonEmptyString.describe('The name of the one field of each line; default value.'), precision },
  ),
  carries: ['metrics'],
  metrics: (config, meta) => influxLp({ name: meta.name, fieldKey: config.field_key, precision: config.precision }),
});
