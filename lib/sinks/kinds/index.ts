/**
 * The sink registry: every sink kind svc knows, in the order messages list them. A new kind is
 * one module beside this one and one line here.
 */
import type * as t from 'io-ts';
import { tagged, type Codec } from '../../language/combinators.js';
import { brokerKind } from './broker.js';
import { fileKind } from './file.js';
import { httpPushKind } from './http-push.js';
import type { SinkKind } from './kind.js';
import { logstoreKind } from './logstore.js';
import { otlpGrpcKind } from './otlp-grpc.js';
import { otlpHttpKind } from './otlp-http.js';
import { remoteWriteKind } from './remote-write.js';
import { stdoutKind } from './stdout.js';
import { tcpKind } from './tcp.js';
import { udpKind } from './udp.js';

export type { SinkDeps, SinkIssue, SinkKind } from './kind.js';

export const SINK_KINDS = [
  stdoutKind,
  fileKind,
  tcpKind,
  udpKind,
  httpPushKind,
  logstoreKind,
  remoteWriteKind,
  otlpGrpcKind,
  otlpHttpKind,
  brokerKind,
] as const;

/** A decoded `sink`: the union of every kind's configuration. */
export type SinkConfig = t.TypeOf<(typeof SINK_KINDS)[number]['codec']>;
export type SinkType = SinkConfig['type'];

export const SINK_TYPES: readonly SinkType[] = SINK_KINDS.map((kind) => kind.type);

/** Other tools' names of the kinds (`kafka`), each to the kind's own. */
export const SINK_ALIASES: Readonly<Record<string, SinkType>> = Object.fromEntries(
  SINK_KINDS.flatMap((kind) => (kind.aliases ?? []).map((alias) => [alias, kind.type])),
);

/** `sink:`, decoded by its `type` (an alias decodes as its kind). */
export const sinkCodec = tagged(
  'sink',
  Object.fromEntries(SINK_KINDS.map((kind) => [kind.type, kind.codec])),
  SINK_ALIASES,
)
  .describe('Where the events go: type and its fields; default stdout.')
  .define('sink') as Codec<SinkConfig>;

const byType = new Map<string, SinkKind<string, SinkConfig>>(
  SINK_KINDS.map((kind) => [kind.type, kind as unknown as SinkKind<string, SinkConfig>]),
);

/** The kind named `type` (or one of its aliases), or undefined for a type svc does not know. */
export function sinkKindOf(type: unknown): SinkKind<string, SinkConfig> | undefined {
  return typeof type === 'string' ? (byType.get(type) ?? byType.get(SINK_ALIASES[type] ?? '')) : undefined;
}
