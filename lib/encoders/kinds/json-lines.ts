import { oneOf, strict } from '../../language/combinators.js';
import { precision } from '../../language/fields.js';
import { jsonLines } from '../json-lines.js';
import { jsonLinesLogs } from '../json-lines-logs.js';
import { jsonLinesTraces } from '../json-lines-traces.js';
import { defineEncoder } from './kind.js';

export const jsonLinesKind = defineEncoder({
  type: 'json_lines',
  codec: strict('json_lines encoder', { type: oneOf(['json_lines']) }, { precision }),
  carries: ['metrics', 'logs', 'traces'],
  metrics: (config, meta) => jsonLines({ name: meta.name, precision: config.precision }),
  logs: () => jsonLinesLogs(),
  traces: () => jsonLinesTraces(),
});
