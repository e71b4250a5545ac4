import { oneOf, strict } from '../../language/combinators.js';
import { countUpTo, headers, httpUrl, maxBufferAge, retry } from '../../language/fields.js';
import { MAX_RECORDS_PER_REQUEST } from '../../language/limits.js';
import { remoteWriteSink } from '../remote-write.js';
import { httpSinkOptions } from './http-fields.js';
import { defineSink } from './kind.js';

export const remoteWriteKind = defineSink({
  type: 'remote_write',
  codec: strict(
    'remote_write sink',
    { type: oneOf(['remote_write']), url: httpUrl.describe('The remote write receiver (Prometheus: /api/v1/write).') },
    {
      batch_size: countUpTo(MAX_RECORDS_PER_REQUEST).describe('Series per request; default 500.'),
      headers,
      retry,
      max_buffer_age: maxBufferAge,
      protocol: oneOf(['1.0', '2.0']).describe(
        'Remote write version, quoted: "1.0" (default) or "2.0" (Prometheus 2.54 and later, with the 2.0 message accepted); a receiver that refuses 2.0 with 415 gets 1.0 for the rest of the run.',
      ),
    },
  ),
  create: (config, deps) => remoteWriteSink({ ...httpSinkOptions(config, deps), protocol: config.protocol }),
  feature: 'remote-write',
  carries: ['metrics'],
  encoders: ['remote_write'],
  address: { field: 'url', network: true },
});
