import { oneOf, strict } from '../../language/combinators.js';
import { remoteWrite } from '../remote-write.js';
import { defineEncoder } from './kind.js';

export const remoteWriteKind = defineEncoder({
  type: 'remote_write',
  codec: strict('remote_write encoder', { type: oneOf(['remote_write']) }),
  feature: 'remote-write',
  carries: ['metrics'],
  nativeHistograms: true,
  sinks: ['remote_write'],
  metrics: (_config, meta) => remoteWrite(meta),
});
