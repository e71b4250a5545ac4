import { nonEmptyString, oneOf, strict } from '../../language/combinators.js';
import { batchSize, maxBufferAge, headers, httpUrl, retry } from '../../language/fields.js';
import { defaultContentType, headerValue, httpPushSink } from '../http-push.js';
import { httpSinkOptions } from './http-fields.js';
import { defineSink } from './kind.js';

export const httpPushKind = defineSink({
  type: 'http_push',
  codec: strict(
    'http_push sink',
    { type: oneOf(['http_push']), url: httpUrl.describe('Where the batches are POSTed.') },
    {
      content_type: nonEmptyString.describe("The Content-Type of the body; default the encoder's."),
      batch_size: batchSize.describe('Bytes buffered before a request is sent; default 4 KiB.'),
      headers,
      retry,
      max_buffer_age: maxBufferAge,
    },
  ),
  create: (config, deps) =>
    httpPushSink({
      ...httpSinkOptions(config, deps),
      contentType:
        config.content_type ??
        (headerValue(config.headers ?? {}, 'content-type') === undefined
          ? defaultContentType(deps.encoder)
          : undefined),
      join: deps.join,
    }),
  carries: ['metrics', 'logs', 'traces'],
  address: { field: 'url', network: true },
});
