import { timestampOf, type Labelled, type LogBatch, type LogTemplate, type Series } from '../../operators/model/batch.js';
import { encodedLines, type Encoder } from './encoder.js';
import { grown } from './grow.js';

/** Encoder of log records (a `logs` entry). */
export type LogEncoder = Encoder<Labelled<LogBatch>>;

/** A log encoder that writes text lines, as UTF-8 bytes. */
export type TextLogEncoder = Encoder<Labelled<LogBatch>, Uint8Array>;

/**
 * How one log line is written: the text of its parts, each asked for once (per series, per
 * millisecond, per severity, per distinct value, per template or set of field names) and kept
 * as bytes, and the order `line` writes them in.
 */
export interface LogLineFormat {
  /** The label part, once per series. */
  series(series: Series): string;
  /** The timestamp part, once per millisecond. */
  stamp(ms: number): string;
  /** The severity part, once per severity. */
  severity(severity: string): string;
  /**
   * A piece of a templated message (literal text, or a value put in a placeholder) as it is
   * written; undefined when the pieces written one by one could differ from the whole message
   * written at once (a piece that ends a character, or an escape, the next piece continues):
   * then records of that template, or with that value, are written by `message`.
   */
  messagePiece(text: string): string | undefined;
  /** A whole message as it is written. */
  message(text: string): string;
  /** A field value as it is written. */
  fieldValue(value: string): string;
  /** The text before each value of fields with these (sorted) names, and after the last one (or for no fields). */
  fields(names: readonly string[]): { readonly before: readonly string[]; readonly after: string };
  /** Writes one record's line, its line feed included, by the parts of `line`. */
  line(line: LogLine): void;
}

/** The parts of the line being written, in bytes: a format's `line` puts them in its order. */
export interface LogLine {
  stamp(): void;
  series(): void;
  severity(): void;
  message(): void;
  fields(): void;
  /** Constant bytes. */
  put(bytes: Uint8Array): void;
  /** Bytes written so far in the batch: a format compares it to tell whether parts wrote anything. */
  readonly written: number;
}

/** Field names in the order written, and the bytes around their values. */
interface FieldsLayout {
  readonly names: readonly string[];
  readonly before: readonly Uint8Array[];
  readonly after: Uint8Array;
}

/** A template as one format writes it: its message's pieces (bytes, or the field whose value goes there), and its fields. */
interface PreparedTemplate {
  /** Undefined when some literal piece is refused (`messagePiece`): the template's records are written whole. */
  readonly message?: readonly (Uint8Array | string)[];
  readonly fields: FieldsLayout;
}

/** Distinct values (and recent field-name sets) kept per encoder; past that the cache starts over, so memory stays bounded. */
const VALUES_KEPT = 4096;
const NAME_SETS_KEPT = 16;
/** Bytes per record assumed for a first batch; later batches size their buffer on the last one. */
const FIRST_GUESS = 256;

/**
 * A line-per-record encoder writing UTF-8 bytes into one buffer per batch. Everything a line is
 * made of is turned into bytes once and then copied: series, millisecond and severity parts,
 * each distinct field value, a template's literal text and field names (per template object,
 * weakly), field names of untemplated records (the last few sets). Per record only bytes are
 * copied; a message is escaped as a whole only when it has no template, or when its pieces
 * cannot be escaped one by one.
 */
export function logLines(format: LogLineFormat): TextLogEncoder {
  const writer = new LineWriter(format);
  return { encode: (batch) => writer.encode(batch) };
}

/** Bytes of `text`, cached in `cache` (cleared when full). */
function cachedBytes<T extends Uint8Array | null>(cache: Map<string, T>, text: string, make: (text: string) => T): T {
  let bytes = cache.get(text);
  if (bytes === undefined) {
    if (cache.size >= VALUES_KEPT) cache.clear();
    cache.set(text, (bytes = make(text)));
  }
  return bytes;
}

class LineWriter implements LogLine {
  private out: Buffer = Buffer.allocUnsafe(0);
  private pos = 0;
  private batch!: Labelled<LogBatch>;
  private i = 0;

  private readonly seriesBytes = new WeakMap<Series, Uint8Array>();
  private lastSeries: Series | undefined;
  private seriesPart: Uint8Array = Buffer.alloc(0);
  private lastMs = NaN;
  private stampPart: Uint8Array = Buffer.alloc(0);
  private readonly severities = new Map<string, Uint8Array>();
  private readonly valuePieces = new Map<string, Uint8Array | null>();
  private readonly values = new Map<string, Uint8Array>();
  private readonly templates = new WeakMap<LogTemplate, PreparedTemplate>();
  private readonly nameSets: { readonly keys: readonly string[]; readonly layout: FieldsLayout }[] = [];
  private perRecord = FIRST_GUESS;

  constructor(private readonly format: LogLineFormat) {}

  encode(batch: Labelled<LogBatch>) {
    const { size } = batch;
    this.batch = batch;
    this.out = Buffer.allocUnsafe(Math.ceil(size * this.perRecord * 1.25) + 64);
    this.pos = 0;
    const ends = new Array<number>(size);
    for (let i = 0; i < size; i++) {
      this.i = i;
      const s = batch.series[i]!;
      if (s !== this.lastSeries) {
        this.lastSeries = s;
        let bytes = this.seriesBytes.get(s);
        if (!bytes) this.seriesBytes.set(s, (bytes = Buffer.from(this.format.series(s))));
        this.seriesPart = bytes;
      }
      const ms = timestampOf(batch, i);
      if (ms !== this.lastMs) {
        this.lastMs = ms;
        this.stampPart = Buffer.from(this.format.stamp(ms));
      }
      this.format.line(this);
      ends[i] = this.pos;
    }
    if (size > 0) this.perRecord = Math.ceil(this.pos / size);
    return encodedLines(batch, this.out.subarray(0, this.pos), ends);
  }

  get written(): number {
    return this.pos;
  }

  stamp(): void {
    this.put(this.stampPart);
  }

  series(): void {
    this.put(this.seriesPart);
  }

  severity(): void {
    const severity = this.batch.severity[this.i]!;
    let bytes = this.severities.get(severity);
    if (!bytes) this.severities.set(severity, (bytes = Buffer.from(this.format.severity(severity))));
    this.put(bytes);
  }

  message(): void {
    const { batch, i } = this;
    const template = batch.template?.[i];
    const pieces = template && this.prepared(template).message;
    if (pieces && this.piecewise(pieces, batch.fields[i]!)) return;
    this.text(this.format.message(batch.message[i]!));
  }

  fields(): void {
    const { batch, i } = this;
    const fields = batch.fields[i]!;
    const template = batch.template?.[i];
    const { names, before, after } = template ? this.prepared(template).fields : this.layoutOf(fields);
    for (let k = 0; k < names.length; k++) {
      this.put(before[k]!);
      this.put(cachedBytes(this.values, fields[names[k]!]!, (v) => Buffer.from(this.format.fieldValue(v))));
    }
    this.put(after);
  }

  put(bytes: Uint8Array): void {
    const n = bytes.length;
    if (this.pos + n > this.out.length) this.out = grown(this.out, this.pos, n);
    const out = this.out;
    let pos = this.pos;
    // A loop beats the call into `set` for the short pieces a line is made of.
    if (n < 48) for (let j = 0; j < n; j++) out[pos++] = bytes[j]!;
    else {
      out.set(bytes, pos);
      pos += n;
    }
    this.pos = pos;
  }

  /** Writes a templated message piece by piece; false (and nothing written) when a value is refused. */
  private piecewise(pieces: readonly (Uint8Array | string)[], fields: Readonly<Record<string, string>>): boolean {
    const start = this.pos;
    for (let p = 0; p < pieces.length; p++) {
      const piece = pieces[p]!;
      if (typeof piece !== 'string') {
        this.put(piece);
        continue;
      }
      const bytes = cachedBytes(this.valuePieces, fields[piece]!, (v) => this.pieceBytes(v));
      if (bytes === null) {
        this.pos = start;
        return false;
      }
      this.put(bytes);
    }
    return true;
  }

  private pieceBytes(text: string): Uint8Array | null {
    const piece = this.format.messagePiece(text);
    return piece === undefined ? null : Buffer.from(piece);
  }

  private text(text: string): void {
    const n = Buffer.byteLength(text);
    if (this.pos + n > this.out.length) this.out = grown(this.out, this.pos, n);
    this.pos += this.out.write(text, this.pos);
  }

  private prepared(template: LogTemplate): PreparedTemplate {
    let prepared = this.templates.get(template);
    if (!prepared) this.templates.set(template, (prepared = this.prepare(template)));
    return prepared;
  }

  private prepare({ parts, names }: LogTemplate): PreparedTemplate {
    const fields = this.layout([...names].sort());
    const message: (Uint8Array | string)[] = [];
    for (const part of parts) {
      if (typeof part === 'number') message.push(names[part]!);
      else {
        const bytes = this.pieceBytes(part);
        if (!bytes) return { fields };
        message.push(bytes);
      }
    }
    return { message, fields };
  }

  /** The layout of untemplated fields: records of one kind share their names, so the last few name sets are kept. */
  private layoutOf(fields: Readonly<Record<string, string>>): FieldsLayout {
    const keys = Object.keys(fields);
    sets: for (const set of this.nameSets) {
      if (set.keys.length !== keys.length) continue;
      for (let k = 0; k < keys.length; k++) if (set.keys[k] !== keys[k]) continue sets;
      return set.layout;
    }
    const layout = this.layout([...keys].sort());
    if (this.nameSets.length >= NAME_SETS_KEPT) this.nameSets.shift();
    this.nameSets.push({ keys, layout });
    return layout;
  }

  private layout(names: readonly string[]): FieldsLayout {
    const { before, after } = this.format.fields(names);
    return { names, before: before.map((b) => Buffer.from(b)), after: Buffer.from(after) };
  }
}
