import { oneOf, strict } from '../../language/combinators.js';
import { batchSize, headers, httpUrl, retry } from '../../language/fields.js';
import { defineSink } from './kind.js';

export const remoteWriteKind = defineSink({
  type: 'remote_write',
  codec: strict('remote_write sink', { type: oneOf(['remote_write']), url: httpUrl }, { batch_size: batchSize, headers, retry }),
  feature: 'remote-write',
  carries: ['metrics'],
  encoders: ['remote_write'],
  address: { field: 'url', network: true },
});
