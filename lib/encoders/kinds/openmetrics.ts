import { oneOf, strict } from '../../language/combinators.js';
import { precision } from '../../language/fields.js';
import { OPENMETRICS_EOF, appendedAfter, openMetrics } from '../openmetrics.js';
import { defineEncoder } from './kind.js';

export const openMetricsKind = defineEncoder({
  type: 'openmetrics',
  codec: strict('openmetrics encoder', { type: oneOf(['openmetrics']) }, { precision }),
  carries: ['metrics'],
  metrics: (config, meta) => openMetrics({ ...meta, precision: config.precision }),
  trailer: OPENMETRICS_EOF,
  appended: appendedAfter,
});
