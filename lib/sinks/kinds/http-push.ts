import { nonEmptyString, oneOf, strict } from '../../config/combinators.js';
import { batchSize, headers, httpUrl, retry } from '../../config/codecs.js';
import { defaultContentType, httpPushSink } from '../http-push.js';
import { httpBatchOptions } from './http-batch.js';
import { defineSink } from './kind.js';

export const httpPushKind = defineSink({
  type: 'http_push',
  codec: strict('http_push sink', { type: oneOf(['http_push']), url: httpUrl }, { content_type: nonEmptyString, batch_size: batchSize, headers, retry }),
  create: (config, deps) =>
    httpPushSink({
      ...httpBatchOptions(config, deps),
      contentType: config.content_type ?? (hasContentType(config.headers) ? undefined : defaultContentType(deps.encoder)),
    }),
  carries: ['metrics', 'logs'],
  address: { field: 'url', network: true },
});

function hasContentType(headers: Readonly<Record<string, string>> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'content-type');
}
