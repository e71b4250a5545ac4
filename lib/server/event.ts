import type * as t from 'io-ts';
import { resolve } from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import { type SchedulerLike, asyncScheduler } from 'rxjs';
import type { EncodedBatch, Labelled, LogBatch, SampleBatch } from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';
import * as codecs from '../language/fields.js';
import { number, oneOf, record, strict, string, unknownTypeMessage } from '../language/combinators.js';
import { formatPath, issuesOf, show } from '../language/problems.js';
import { encoderLabelIssues, pairing, unbuiltRefusal, unlabelledStreamRefusal } from '../config/entry.js';
import type { EncoderConfig, SinkConfig } from '../config/types.js';
import { createLogEncoder, createMetricEncoder } from '../encoders/index.js';
import { ENCODER_ALIASES, ENCODER_KINDS, ENCODER_TYPES, encoderCodec, encoderKindOf } from '../encoders/kinds/index.js';
import { remoteWriteProtocolOf } from '../runtime/chain/encoder.js';
import { SINK_ALIASES, SINK_TYPES, sinkCodec, sinkKindOf } from '../sinks/kinds/index.js';
import { fileTail, lastLine, trailerAt } from '../sinks/core/file-tail.js';
import { endedBy, openFiles } from '../sinks/core/shared-files.js';
import { DEFAULT_FLUSH_TIMEOUT } from '../sinks/core/sink-core.js';
import { HttpError } from './http-error.js';

/** The body of `POST /events`, validated. */
export type SingleEvent =
  | {
      signal_type: 'logs';
      labels: Record<string, string>;
      log: { severity: string; message: string; fields: Record<string, string> };
      encoder: EncoderConfig;
      sink: SinkConfig;
    }
  | {
      signal_type: 'metrics';
      labels: Record<string, string>;
      metric: { name: string; value: number };
      encoder: EncoderConfig;
      sink: SinkConfig;
    };

const logCodec = strict(
  'log',
  { severity: oneOf(codecs.SEVERITIES), message: string },
  { fields: record(string, string) },
);
const metricCodec = strict('metric', { name: codecs.metricName, value: number });

/**
 * Validates a `POST /events` body with the spec's split of statuses: 400 for a body of the
 * wrong shape (unknown signal_type, missing field or branch, unknown encoder or sink type),
 * 422 for values that fail validation (metric name, sink settings, a feature not built in).
 */
export function decodeEvent(body: unknown): SingleEvent {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw shape('expected a JSON object');
  const raw = body as Record<string, unknown>;
  const known = ['signal_type', 'labels', 'log', 'metric', 'encoder', 'sink'];
  const unknown = Object.keys(raw).filter((key) => !known.includes(key));
  if (unknown.length) throw shape(`${unknown[0]}: unknown field (allowed: ${known.join(', ')})`);
  if (raw.signal_type !== 'logs' && raw.signal_type !== 'metrics') {
    throw new HttpError(
      400,
      'unknown_signal_type',
      `signal_type: expected logs or metrics, got ${show(raw.signal_type)}`,
    );
  }
  const branch = raw.signal_type === 'logs' ? 'log' : 'metric';
  for (const field of ['labels', branch, 'encoder', 'sink']) {
    if (raw[field] === undefined) throw shape(`${field}: missing required field`);
  }
  const other = branch === 'log' ? 'metric' : 'log';
  if (raw[other] !== undefined) throw shape(`${other}: not allowed with signal_type ${raw.signal_type}`);
  for (const [field, types, aliases, kindOf] of [
    ['encoder', ENCODER_TYPES, ENCODER_ALIASES, encoderKindOf],
    ['sink', SINK_TYPES, SINK_ALIASES, sinkKindOf],
  ] as const) {
    const type = (raw[field] as { type?: unknown })?.type;
    if (!kindOf(type)) {
      throw new HttpError(400, `unknown_${field}`, `${field}.type: ${unknownTypeMessage(type, types, aliases)}`);
    }
  }

  const labels = valid('labels', codecs.labels, raw.labels);
  const encoder = valid('encoder', encoderCodec, raw.encoder);
  const decodedSink = valid('sink', sinkCodec, raw.sink);
  for (const [field, type] of [
    ['encoder', encoder.type],
    ['sink', decodedSink.type],
  ] as const) {
    const refusal = unbuiltRefusal(field, type);
    if (refusal) throw new HttpError(422, 'feature_not_built', `${field}.type: ${refusal}`);
  }
  // The rules of an entry's encoder and sink, and the sink fitted to the signal (an OTLP sink's signal_type).
  const { problems: pairProblems, sink } = pairing(raw.signal_type, encoder.type, decodedSink);
  // A label the encoder cannot write (influx_lp: time), refused as a scenario entry's is.
  const problems = [...pairProblems, ...encoderLabelIssues({ labels }, encoder.type)];
  if (problems.length)
    throw new HttpError(
      422,
      'validation_failed',
      problems.map((p) => `${formatPath(p.path)}: ${p.message}`).join('; '),
    );
  const unlabelled = unlabelledStreamRefusal(sink.type, labels);
  if (unlabelled) throw new HttpError(422, 'validation_failed', `labels: ${unlabelled}`);
  if (branch === 'log') {
    const log = valid('log', logCodec, raw.log);
    return { signal_type: 'logs', labels, log: { ...log, fields: log.fields ?? {} }, encoder, sink };
  }
  return { signal_type: 'metrics', labels, metric: valid('metric', metricCodec, raw.metric), encoder, sink };
}

/** The event encoded as its sink receives it: one tick at `now`. */
export function encodeEvent(event: SingleEvent, now: number): EncodedBatch {
  const base = {
    size: 1,
    anchor: now,
    index: Float64Array.of(0),
    offset: Float64Array.of(0),
    series: [seriesOf(event.labels)],
  };
  if (event.signal_type === 'logs') {
    const batch: Labelled<LogBatch> = {
      ...base,
      severity: [event.log.severity],
      message: [event.log.message],
      fields: [event.log.fields],
    };
    return createLogEncoder(event.encoder).encode(batch);
  }
  const batch: Labelled<SampleBatch> = { ...base, value: Float64Array.of(event.metric.value) };
  const remoteWriteProtocol = remoteWriteProtocolOf(event.sink);
  return createMetricEncoder(event.encoder, { name: event.metric.name, remoteWriteProtocol }).encode(batch);
}

/**
 * The encoded event `chunk` of encoder `type` as it is appended to the file at `path` (a real path below the file
 * root; `given`: as the request names it), from the file's last line ({@link fileTail} reads only its end): as its
 * kind's `appended` says (openmetrics: without the metadata its family has there). Refused, 422 naming `sink.path`,
 * when the file ends with another encoder's trailer (`# EOF`) or the kind refuses its last line. As it is when a sink
 * of the server writes the file now (its last lines may not be there yet), or its end cannot be read.
 */
export function appendedEvent(chunk: EncodedBatch, type: string, path: string, given: string): EncodedBatch {
  const tail = openFiles.has(resolve(path)) ? undefined : fileTail(path);
  if (!tail) return chunk;
  const { trailer, appended } = encoderKindOf(type)!;
  const endedOtherwise = ENCODER_KINDS.find(
    (other) =>
      other.trailer !== undefined && other.trailer !== trailer && trailerAt(tail.bytes, Buffer.from(other.trailer)) > 0,
  );
  const last = lastLine(tail, trailer);
  const written = endedOtherwise
    ? `its last line is ${JSON.stringify(endedOtherwise.trailer!.trimEnd())}: ${endedBy({ trailer: endedOtherwise.trailer, encoder: endedOtherwise.type }, { trailer, encoder: type })}`
    : appended && last !== undefined
      ? appended(chunk, last.text, last.cut)
      : chunk;
  if (typeof written === 'string')
    throw new HttpError(
      422,
      'file_sink_cannot_open',
      `sink.path: cannot open ${given}: ${written}. Give this event another path`,
    );
  return written;
}

/** The events appended to a file now, by absolute path (as {@link openFiles}): the turn of the last one asked. */
const appending = new Map<string, Promise<void>>();

/**
 * Runs `append`, one event's read of the end of the file at `path` (a real path below the file root; `given`: as the
 * request names it) with {@link appendedEvent}, its write, flush and close, once the events to that file asked before
 * it are done, and returns what it returns: two at once read the same last line, and both wrote their family's
 * metadata. Events to other files go on meanwhile. Refused, 502 naming `sink.path`, unwritten, when its turn has not
 * come within {@link DEFAULT_FLUSH_TIMEOUT} (an earlier event's write held by a hung file system): the events after
 * it wait for that earlier one still, not for it.
 */
export function appendingInTurn<T>(
  path: string,
  given: string,
  append: () => Promise<T>,
  scheduler: SchedulerLike = asyncScheduler,
): Promise<T> {
  const key = resolve(path);
  const before = appending.get(key) ?? Promise.resolve();
  return new Promise<T>((answer, refuse) => {
    let expired = false;
    const deadline = scheduler.schedule(() => {
      expired = true;
      refuse(new HttpError(502, 'sink_failed', `sink.path: cannot write ${given}: ${TURN_NOT_COME}`));
    }, DEFAULT_FLUSH_TIMEOUT);
    // Settled however the event ends (a 422, a sink failure): the next one's turn comes.
    const turn = before.then(async () => {
      if (expired) return;
      deadline.unsubscribe();
      try {
        answer(await append());
      } catch (error) {
        refuse(error);
      }
    });
    appending.set(key, turn);
    void turn.then(() => {
      if (appending.get(key) === turn) appending.delete(key);
    });
  });
}

const TURN_NOT_COME = `the events sent to it before this one were not written within ${DEFAULT_FLUSH_TIMEOUT / 1000} s (a hung file system, such as a network mount that stopped answering?). Try again once they are`;

function valid<A>(field: string, codec: t.Type<A, unknown, unknown>, value: unknown): A {
  const decoded = codec.validate(value, [{ key: '', type: codec, actual: value }]);
  if (!isLeft(decoded)) return decoded.right;
  const detail = issuesOf(decoded.left)
    .map((issue) => [formatPath([field, ...issue.path]), issue.message].join(': '))
    .join('; ');
  throw new HttpError(422, 'validation_failed', detail);
}

function shape(detail: string): HttpError {
  return new HttpError(400, 'invalid_event', detail);
}
