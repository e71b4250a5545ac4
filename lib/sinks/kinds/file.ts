import { filePath, oneOf, strict } from '../../language/combinators.js';
import { fileSink } from '../file.js';
import { defineSink } from './kind.js';

export const fileKind = defineSink({
  type: 'file',
  codec: strict('file sink', {
    type: oneOf(['file']),
    path: filePath.describe(
      'The file written (truncated at start; a single event, and a scenario svc-server starts again from --state, append).',
    ),
  }),
  create: (config, deps) =>
    fileSink({
      path: config.path,
      append: deps.appendFiles,
      trailer: deps.trailer,
      appended: deps.appended,
      resized: deps.resized,
      realPath: deps.realPaths,
      wholeChunks: deps.wholeChunks,
      encoder: deps.encoder,
      scheduler: deps.scheduler,
    }),
  carries: ['metrics', 'logs', 'traces'],
  address: { field: 'path', network: false },
});
