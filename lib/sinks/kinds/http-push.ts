import { nonEmptyString, oneOf, strict } from '../../language/combinators.js';
import { batchSize, maxBufferAge, headers, httpUrl, retry } from '../../language/fields.js';
import { defaultContentType, headerValue, httpPushSink } from '../http-push.js';
import { httpBatchOptions } from './http-batch.js';
import { defineSink } from './kind.js';

export const httpPushKind = defineSink({
  type: 'http_push',
  codec: strict('http_push sink', { type: oneOf(['http_push']), url: httpUrl }, { content_type: nonEmptyString, batch_size: batchSize, headers, retry, max_buffer_age: maxBufferAge }),
  create: (config, deps) =>
    httpPushSink({
      ...httpBatchOptions(config, deps),
      contentType: config.content_type ?? (headerValue(config.headers ?? {}, 'content-type') === undefined ? defaultContentType(deps.encoder) : undefined),
    }),
  carries: ['metrics', 'logs'],
  address: { field: 'url', network: true },
});
