/**
 * The files the file sinks of this process write now, by absolute path, and which encodings can share one: apart
 * from the sink itself (lib/sinks/file.ts), so that svc-server's checks at a POST ask {@link sharedFileRefusal}, and
 * `svc run` and svc-server ask {@link mixedEncodingRefusal} before a run starts, without loading the stream machinery.
 */
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { EncodedBatch } from '../../../operators/model/batch.js';

/** What the lines of a file are: the trailer it ends with, and the encoder writing them (as messages name it). */
export interface Encoding {
  readonly trailer?: string;
  readonly encoder?: string;
}

/** A file the file sinks open on it share (lib/sinks/file.ts). */
export interface SharedFile {
  readonly stream: Writable;
  /** What its first sink writes: every other sink on it writes the same ({@link sharedFileRefusal}). */
  readonly encoding: Encoding;
  users: number;
  /**
   * What the first chunk written to it becomes after the line the file ended with (appended to, lib/sinks/file.ts),
   * or why it is written as it is; gone once a chunk is written.
   */
  following?: (chunk: EncodedBatch) => EncodedBatch | string;
  /** Set once its last sink left: done when its stream has ended (the trailer written) and its file is closed. */
  closed?: Promise<void>;
}

/** Open (or closing) write streams by absolute path. */
export const openFiles = new Map<string, SharedFile>();

/**
 * Why a file sink writing `encoding` cannot write `path` now, if it cannot: another sink of this process writes it
 * (or is closing it) with an encoding that ends otherwise. An `openmetrics` exposition holds nothing but its own
 * lines up to its `# EOF`: another encoder's lines in it, or a `# EOF` ending a `json_lines` file, would leave the
 * file readable by neither reader. Asked by every file sink as it opens, and by svc-server at a POST, to refuse the
 * request naming its field.
 */
export function sharedFileRefusal(path: string, encoding: Encoding): string | undefined {
  const file = openFiles.get(resolve(path));
  // A stream destroyed by an error writes nothing more: the next sink opens the file afresh (lib/sinks/file.ts).
  if (!file || file.stream.destroyed || file.encoding.trailer === encoding.trailer) return undefined;
  return `another sink of this process writes it now as ${encoderName(file.encoding)}, and ${encoderName(encoding)} cannot share a file with it: ${endedBy(file.encoding, encoding)}. Give this sink another path, or write into it once the other is done`;
}

/** Why encodings `a` and `b`, one of them with a trailer, cannot share a file: the one that ends it holds only its lines. */
export function endedBy(a: Encoding, b: Encoding): string {
  const ended = a.trailer === undefined ? b : a;
  return `a file of ${encoderName(ended)} holds nothing but its lines up to its ${JSON.stringify(ended.trailer!.trimEnd())}`;
}

const encoderName = ({ encoder }: Encoding): string => encoder ?? 'another encoder';

/**
 * An entry's `file` sink: the `path` it names, the absolute `file` that is (default: `path` resolved), what the entry
 * writes into it.
 */
export interface FileWriter {
  readonly id: string;
  readonly path: string;
  readonly file?: string;
  readonly encoding: Encoding;
}

/**
 * The files the entries of one run write, each once (`x.om` and `./x.om` are one file): named by the path its first
 * writer gives, with what each of its writers writes (by entry id), for {@link mixedEncodingRefusal}.
 */
export function writtenFiles(
  writers: readonly FileWriter[],
): { readonly path: string; readonly writers: ReadonlyMap<string, Encoding> }[] {
  const files = new Map<string, { path: string; writers: Map<string, Encoding> }>();
  for (const { id, path, file = resolve(path), encoding } of writers) {
    const written = files.get(file) ?? { path, writers: new Map<string, Encoding>() };
    files.set(file, written);
    written.writers.set(id, encoding);
  }
  return [...files.values()];
}

/**
 * Why the entries of one run, writing one file with these encodings (by entry id), cannot, if they cannot: as
 * {@link sharedFileRefusal}, they end it otherwise. Asked before the run starts (`svc run`, svc-server at the POST),
 * so that the run is refused naming its entries rather than one of them failing as its sink opens.
 */
export function mixedEncodingRefusal(
  writers: ReadonlyMap<string, Encoding>,
  advice = 'Give them different paths',
): string | undefined {
  const [[, first], ...rest] = [...writers];
  const other = rest.find(([, encoding]) => encoding.trailer !== first!.trailer);
  if (!other) return undefined;
  const each = [...writers].map(([id, encoding]) => `${id} as ${encoderName(encoding)}`).join(', ');
  return `the entries write it with encodings that cannot share a file (${each}): ${endedBy(first!, other[1])}. ${advice}`;
}
