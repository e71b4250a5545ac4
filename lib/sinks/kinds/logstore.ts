import { oneOf, strict } from '../../language/combinators.js';
import { batchSize, maxBufferAge, countUpTo, headers, httpUrl, retry } from '../../language/fields.js';
import { MAX_STREAMS_PER_PUSH } from '../../language/limits.js';
import { logstoreSink } from '../logstore.js';
import { httpSinkOptions } from './http-fields.js';
import { defineSink } from './kind.js';

export const logstoreKind = defineSink({
  type: 'logstore',
  aliases: ['loki'],
  codec: strict(
    'logstore sink',
    {
      type: oneOf(['logstore']),
      url: httpUrl.describe('The base address of the log store (Loki); the push path is appended.'),
    },
    {
      max_streams_per_push: countUpTo(MAX_STREAMS_PER_PUSH).describe(
        'Distinct streams (label sets) in one push; default 128.',
      ),
      batch_size: batchSize.describe('Bytes buffered before a push; default 4 KiB.'),
      headers,
      compression: oneOf(['none', 'gzip']).describe(
        'Compression of the pushes: gzip sends each body gzip-compressed (Content-Encoding: gzip); default none.',
      ),
      retry,
      max_buffer_age: maxBufferAge,
    },
  ),
  create: (config, deps) =>
    logstoreSink({
      ...httpSinkOptions(config, deps),
      maxStreamsPerPush: config.max_streams_per_push,
      compression: config.compression,
    }),
  carries: ['metrics', 'logs'],
  address: { field: 'url', network: true },
});
