/**
 * The encoder registry: every encoder kind svc knows, in the order messages list them. A new
 * kind is one module beside this one and one line here.
 */
import type * as t from 'io-ts';
import { tagged, type Codec } from '../../language/combinators.js';
import { anchorOf } from '../../language/start-time.js';
import type { SignalFamily, StartTime } from '../../language/types.js';
import { influxLpKind } from './influx-lp.js';
import { jsonLinesKind } from './json-lines.js';
import type { EncoderKind } from './kind.js';
import { metricsTextKind } from './metrics-text.js';
import { openMetricsKind } from './openmetrics.js';
import { otlpKind } from './otlp.js';
import { remoteWriteKind } from './remote-write.js';
import { syslogKind } from './syslog.js';
import { zipkinJsonKind } from './zipkin-json.js';

export type { EncoderKind } from './kind.js';

export const ENCODER_KINDS = [
  metricsTextKind,
  jsonLinesKind,
  syslogKind,
  remoteWriteKind,
  otlpKind,
  influxLpKind,
  openMetricsKind,
  zipkinJsonKind,
] as const;

/** A decoded `encoder`: the union of every kind's configuration. */
export type EncoderConfig = t.TypeOf<(typeof ENCODER_KINDS)[number]['codec']>;
export type EncoderType = EncoderConfig['type'];

export const ENCODER_TYPES: readonly EncoderType[] = ENCODER_KINDS.map((kind) => kind.type);

/** Other tools' names of the kinds (`prometheus_text`), each to the kind's own. */
export const ENCODER_ALIASES: Readonly<Record<string, EncoderType>> = Object.fromEntries(
  ENCODER_KINDS.flatMap((kind) => (kind.aliases ?? []).map((alias) => [alias, kind.type])),
);

/** `encoder:`, decoded by its `type` (an alias decodes as its kind). */
export const encoderCodec = tagged(
  'encoder',
  Object.fromEntries(ENCODER_KINDS.map((kind) => [kind.type, kind.codec])),
  ENCODER_ALIASES,
)
  .describe(
    'The output format: type and its fields; default metrics_text (json_lines for logs), or the one the sink takes.',
  )
  .define('encoder') as Codec<EncoderConfig>;

const byType = new Map<string, EncoderKind<string, EncoderConfig>>(
  ENCODER_KINDS.map((kind) => [kind.type, kind as unknown as EncoderKind<string, EncoderConfig>]),
);

/** The kind named `type` (or one of its aliases), or undefined for a type svc does not know. */
export function encoderKindOf(type: unknown): EncoderKind<string, EncoderConfig> | undefined {
  return typeof type === 'string' ? (byType.get(type) ?? byType.get(ENCODER_ALIASES[type] ?? '')) : undefined;
}

/** What a sink is told of the encoder whose chunks it takes ({@link encoderSinkDeps}). */
export interface EncoderSinkDeps extends Pick<EncoderKind, 'trailer' | 'appended' | 'join' | 'wholeChunks'> {
  readonly encoder: string;
}

/**
 * What a sink is told of encoder `type`, whose chunks it takes: its type (the http_push body type), how its chunks
 * join, the trailer a stream of it ends with (openmetrics `# EOF`) and how a chunk of it follows a file's last line
 * (openmetrics: its metadata left out after its family's line), whether each chunk is one document (zipkin_json).
 * Its type and trailer are also what a file's lines are, which the file sinks sharing it compare
 * (lib/sinks/core/shared-files.ts).
 */
export function encoderSinkDeps(type: string): EncoderSinkDeps {
  const kind = encoderKindOf(type);
  return {
    encoder: type,
    trailer: kind?.trailer,
    appended: kind?.appended,
    join: kind?.join,
    wholeChunks: kind?.wholeChunks,
  };
}

/** Why encoder `type` cannot write a native-only histogram, or undefined when it writes native histograms. */
export function nativeRefusal(type: EncoderType): string | undefined {
  if (encoderKindOf(type)!.nativeHistograms) return undefined;
  const able = ENCODER_KINDS.filter((kind) => kind.nativeHistograms).map((kind) => kind.type);
  return (
    `the ${type} encoder does not write native histograms (${able.join(' and ')} do${able.length === 1 ? 'es' : ''});` +
    ' give buckets too, and it writes the classic ones'
  );
}

/**
 * Why encoder `type` cannot encode `family`, or undefined when it can: the one rule of which
 * signals an encoder carries. `what` names the refused thing ("a logs entry", "log records");
 * the advice lists the encoders that can, leaving out those bound to one sink. An encoder bound
 * to one sink is refused through that sink's `carries`, once for the pair.
 */
export function encodingRefusal(type: EncoderType, family: SignalFamily, what: string): string | undefined {
  const kind = encoderKindOf(type)!;
  if (kind.sinks || kind.carries.includes(family)) return undefined;
  const able = ENCODER_KINDS.filter((k) => !k.sinks && k.carries.includes(family)).map((k) => k.type);
  const refusal =
    family === 'logs' ? `cannot encode ${what}` : `encodes ${kind.carries.join(' and ')} only, not ${what}`;
  return `${refusal} (use ${able.join(' or ')})`;
}

/**
 * Why encoder `type` cannot write the times of an entry starting at `start`, or undefined when it can: the one rule of
 * times before 1970, which some wire formats cannot carry (`timesFrom1970`); the advice lists the encoders that can
 * and that `pairs` with the entry's sink and signal, or only the start_time when none does. A relative `start_time` is
 * reckoned from `now`, the instant the entry is loaded: it starts then or later, so its times are never earlier.
 * `whose` encoder it is: the entry's ("the"), or another's ("span metrics'").
 */
export function startTimeRefusal(
  type: EncoderType,
  start: StartTime,
  now: number,
  pairs: (other: EncoderType) => boolean,
  whose = 'the',
): string | undefined {
  const why = encoderKindOf(type)!.timesFrom1970;
  const first = anchorOf(start)(now);
  if (!why || first >= 0) return undefined;
  const able = ENCODER_KINDS.filter((kind) => !kind.timesFrom1970 && pairs(kind.type)).map((kind) => kind.type);
  const another = able.length > 0 ? `, or another encoder (${able.join(' or ')})` : '';
  return (
    `${whose} ${type} encoder cannot write times before 1970 (${why}), and this start_time stamps ` +
    `${new Date(first).toISOString()}: give a start_time from 1970-01-01T00:00:00Z on${another}`
  );
}
