import type { SchedulerLike } from 'rxjs';
import type { Codec } from '../../language/combinators.js';
import type { SignalFamily, SignalType } from '../../language/types.js';
import type { Feature } from '../../features.js';
import type { Sink } from '../../../operators/deliver.js';
import type { AppendedChunk } from '../../../operators/model/batch.js';

/** What a sink factory gets besides its configuration. */
export interface SinkDeps {
  /** Replaces process.stdout (tests, embedding). */
  readonly stdout?: NodeJS.WritableStream;
  /** Timers of buffer age and retry backoff; `asyncScheduler` by default. */
  readonly scheduler?: SchedulerLike;
  /** The entry's encoder type: the http_push body type follows it when `content_type` is absent. */
  readonly encoder?: string;
  /** Open `file` sinks for appending (an event adds to the file) instead of truncating it. */
  readonly appendFiles?: boolean;
  /**
   * The files the sink names (a `file` sink's path, a broker's `tls.ca_cert`) are real paths the server checked below
   * its file root: opened only if they still are (lib/real-file.ts).
   */
  readonly realPaths?: boolean;
  /** Text a `file` or `stdout` stream ends with, once: the encoder kind's `trailer` (openmetrics `# EOF`). */
  readonly trailer?: string;
  /** How a chunk follows a file's last line: the encoder kind's `appended`, which a `file` sink appending applies. */
  readonly appended?: AppendedChunk;
  /**
   * Told the bytes a chunk `appended` adapted was written with beyond those deliver counted it with (negative: the
   * metadata left out), so that `bytes_emitted` counts what was written.
   */
  readonly resized?: (bytes: number) => void;
  /** Each chunk is one document, read only whole: the encoder kind's `wholeChunks` (zipkin_json). */
  readonly wholeChunks?: boolean;
  /**
   * How runs of whole records (each from one chunk) join into one request body: the encoder kind's `join`
   * (zipkin_json); absent: whole chunks one after another.
   */
  readonly join?: (runs: readonly Uint8Array[]) => Uint8Array;
}

/** A field of the sink, at a path below `sink`, and what is wrong with it. */
export interface SinkIssue {
  readonly path: readonly string[];
  readonly message: string;
}

/**
 * Everything svc knows about one sink kind; the registry (./index.ts) lists them and every
 * reader (validation, CLI overrides, POST /events, server warnings, createSink) asks it.
 */
export interface SinkKind<Type extends string = string, Config extends { type: Type } = { type: Type }> {
  readonly type: Type;
  /** Other tools' names of this kind (`kafka`), accepted as `type` and shown as {@link type}. */
  readonly aliases?: readonly string[];
  /** Fields, defaults and validation of `sink: {type: <Type>, ...}`. */
  readonly codec: Codec<Config>;
  /** Builds the sink (after validation refused a `feature` whose packages are missing). */
  readonly create: (config: Config, deps: SinkDeps) => Sink;
  /**
   * The build feature its transport needs (spec: `remote-write`, `otlp`, `kafka`): its optional packages must
   * be installed.
   */
  readonly feature?: Feature;
  /** The signals it carries; entries of another signal are refused. */
  readonly carries: readonly SignalFamily[];
  /** The only encoders it takes, the first being its default; absent: any encoder not bound to another sink. */
  readonly encoders?: readonly string[];
  /**
   * The field holding its destination, which CLI `--endpoint` sets; the server's loopback warning
   * reads it when it is a network address (a host:port, URL or list of host:port).
   */
  readonly address?: { readonly field: keyof Config & string; readonly network: boolean };
  /**
   * Where it writes, when the {@link address} field alone does not say (a broker's topic): two entries whose
   * sinks give one destination write into one store (lib/compile/duplicate-series.ts).
   */
  readonly destination?: (config: Config) => string;
  /**
   * What is risky about a configuration that runs all the same (SASL credentials over plaintext):
   * the CLI and the server print it when an entry starts, and never block on it.
   */
  readonly warnings?: (config: Config) => readonly string[];
  /** Adapts a decoded sink to the entry's signal (a field the entry decides), or says why it cannot. */
  readonly fit?: (config: Config, signal: SignalType) => Config | SinkIssue;
}

/** Declares a sink kind, keeping its type and config precise for the registry's union. */
export function defineSink<const Type extends string, Config extends { type: Type }>(
  kind: SinkKind<Type, Config>,
): SinkKind<Type, Config> {
  return kind;
}
