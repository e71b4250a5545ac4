import {
  timestampAt,
  type Labelled,
  type LogBatch,
  type LogTemplate,
  type SpanContext,
} from '../../operators/model/batch.js';
import type { Series } from '../../operators/model/series.js';
import { encodedLines, type Encoder } from './encoder.js';
import { grown } from './grow.js';
import { putBytes } from '../protocols/bytes.js';
import { perSeries } from '../per-object.js';

/** Encoder of log records (a `logs` entry). */
export type LogEncoder = Encoder<Labelled<LogBatch>>;

/** A log encoder that writes text lines, as UTF-8 bytes. */
export type TextLogEncoder = Encoder<Labelled<LogBatch>, Buffer>;

/**
 * How one log line is written: the text of its parts, each asked for once (per series, per
 * millisecond and severity, per distinct value, per template or set of field names) and kept
 * as bytes, and the order `line` writes them in.
 */
export interface LogLineFormat {
  /** The label part, once per series. */
  series(series: Series): string;
  /** The timestamp and severity part, once per millisecond and severity. */
  head(ms: number, severity: string): string;
  /**
   * A piece of a templated message (literal text, or a value put in a placeholder) as it is
   * written; undefined when the pieces written one by one could differ from the whole message
   * written at once (the piece may hold half of a character, or of a sequence escaped as one,
   * whose other half is in the next piece): records of that template, or with that value, are
   * then written by `message`.
   */
  messagePiece(text: string): string | undefined;
  /** A whole message as it is written. */
  message(text: string): string;
  /** A field value as it is written. */
  fieldValue(value: string): string;
  /** The text before each value of fields with these (sorted) names, and after the last one (or for no fields). */
  fields(names: readonly string[]): { readonly before: readonly string[]; readonly after: string };
  /** The ids of the span a record names (`trace_context`), as written; only asked of records that name one. */
  context(context: SpanContext): string;
  /** Writes one record's line, its line feed included, by the parts of `line`. */
  line(line: LogLine): void;
}

/** The parts of the line being written, in bytes: a format's `line` puts them in its order. */
export interface LogLine {
  head(): void;
  series(): void;
  message(): void;
  fields(): void;
  /** The span the record names, if it names one. */
  context(): void;
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

/** A template as one format writes it. */
interface PreparedTemplate {
  /**
   * Its message's pieces: bytes, or the index (in the template's `names`) of the field whose value goes
   * there; none when a literal piece is refused (`messagePiece`).
   */
  readonly message?: readonly (Uint8Array | number)[];
  readonly fields: FieldsLayout;
  /** For each name of `fields` (sorted), its index in the template's `names`. */
  readonly order: readonly number[];
  /** For each of the template's `names`, the bytes of the values it took (pools are mostly small). */
  readonly values: readonly FewKeys<string, ValueBytes>[];
}

/** A value as a message piece (null: refused) and as a field value. */
interface ValueBytes {
  readonly piece: Uint8Array | null;
  readonly field: Uint8Array;
}

/**
 * Distinct values (and recent field-name sets) kept per encoder; past that the cache starts over, so memory
 * stays bounded.
 */
const VALUES_KEPT = 4096;
const NAME_SETS_KEPT = 16;
/** Bytes per record assumed for a first batch; later batches size their buffer on the last one. */
const FIRST_GUESS = 256;

/**
 * A line-per-record encoder writing UTF-8 bytes into one buffer per batch. Everything a line is
 * made of is turned into bytes once and then copied: series, millisecond-and-severity parts,
 * each distinct field value, a template's literal text and field names (per template object,
 * weakly), field names of untemplated records (the last few sets). Per record only bytes are
 * copied; a message is escaped as a whole only when it has no template, or when its pieces
 * cannot be escaped one by one.
 */
export function logLines(format: LogLineFormat): TextLogEncoder {
  const writer = new LineWriter(format);
  return { encode: (batch) => writer.encode(batch) };
}

/**
 * The values of a handful of keys, found by a scan comparing identity (===), which beats a hash
 * lookup for the few severities, templates and pool values a log entry has. The first `size`
 * keys are kept; the others go to `lookup` every time.
 */
class FewKeys<K, V> {
  private readonly keys: K[] = [];
  private readonly values: V[] = [];

  constructor(
    private readonly lookup: (key: K) => V,
    private readonly size = 8,
  ) {}

  get(key: K): V {
    const { keys } = this;
    for (let k = 0; k < keys.length; k++) if (keys[k] === key) return this.values[k]!;
    const value = this.lookup(key);
    if (keys.length < this.size) {
      keys.push(key);
      this.values.push(value);
    }
    return value;
  }
}

/** The columns and buffer of a {@link LineWriter} between batches. */
const NONE: readonly never[] = [];
const NO_BYTES = Buffer.alloc(0);

class LineWriter implements LogLine {
  private out: Buffer = NO_BYTES;
  private pos = 0;
  private perRecord = FIRST_GUESS;

  // The record being written: its batch's columns and row, its template as prepared, and (templated) its values'
  // bytes by name index. The columns are read from the batch once: a load from the batch, whose shape differs with
  // the operators before, is megamorphic, and the parts below read them a record.
  private severities: readonly string[] = NONE;
  private messages: readonly string[] = NONE;
  private fieldValues: readonly Readonly<Record<string, string>>[] = NONE;
  private contexts: LogBatch['context'];
  private i = 0;
  private template: PreparedTemplate | undefined;
  private readonly valueBytes: ValueBytes[] = [];

  private readonly seriesBytes = perSeries((series: Series): Uint8Array => Buffer.from(this.format.series(series)));
  private lastSeries: Series | undefined;
  private seriesPart: Uint8Array = Buffer.alloc(0);
  private lastMs = NaN;
  private heads = this.headsOf(NaN);
  private readonly values = new Map<string, ValueBytes>();
  private readonly templates = new FewKeys<LogTemplate, PreparedTemplate>((t) => this.preparedOf(t), 16);
  private readonly allTemplates = new WeakMap<LogTemplate, PreparedTemplate>();
  private readonly nameSets: { readonly keys: readonly string[]; readonly layout: FieldsLayout }[] = [];

  constructor(private readonly format: LogLineFormat) {}

  encode(batch: Labelled<LogBatch>) {
    const { size, template: templates, series, anchor, offset, fields } = batch;
    this.severities = batch.severity;
    this.messages = batch.message;
    this.fieldValues = fields;
    this.contexts = batch.context;
    this.out = Buffer.allocUnsafe(Math.ceil(size * this.perRecord * 1.25) + 64);
    this.pos = 0;
    const ends = new Array<number>(size);
    try {
      for (let i = 0; i < size; i++) {
        this.i = i;
        const s = series[i]!;
        if (s !== this.lastSeries) {
          this.lastSeries = s;
          this.seriesPart = this.seriesBytes(s);
        }
        const ms = timestampAt(anchor, offset, i);
        if (ms !== this.lastMs) {
          this.lastMs = ms;
          this.heads = this.headsOf(ms);
        }
        const template = templates?.[i];
        this.template = template && this.prepared(template, fields[i]!);
        this.format.line(this);
        ends[i] = this.pos;
      }
      if (size > 0) this.perRecord = Math.ceil(this.pos / size);
      return encodedLines(batch, this.out.subarray(0, this.pos), ends);
    } finally {
      // Not held past the batch, nor when a format's text throws: the chunk holds what it shares of them.
      this.severities = this.messages = this.fieldValues = NONE;
      this.contexts = undefined;
      this.template = undefined;
      this.out = NO_BYTES;
    }
  }

  get written(): number {
    return this.pos;
  }

  head(): void {
    this.put(this.heads.get(this.severities[this.i]!));
  }

  series(): void {
    this.put(this.seriesPart);
  }

  message(): void {
    const pieces = this.template?.message;
    if (pieces && this.piecewise(pieces)) return;
    this.text(this.format.message(this.messages[this.i]!));
  }

  context(): void {
    const context = this.contexts?.[this.i];
    if (context) this.text(this.format.context(context));
  }

  fields(): void {
    const { template } = this;
    if (template) {
      const { fields, order } = template;
      for (let k = 0; k < order.length; k++) {
        this.put(fields.before[k]!);
        this.put(this.valueBytes[order[k]!]!.field);
      }
      this.put(fields.after);
      return;
    }
    const values = this.fieldValues[this.i]!;
    const { names, before, after } = this.layoutOf(values);
    for (let k = 0; k < names.length; k++) {
      this.put(before[k]!);
      this.put(this.bytesOf(values[names[k]!]!).field);
    }
    this.put(after);
  }

  put(bytes: Uint8Array): void {
    const n = bytes.length;
    if (this.pos + n > this.out.length) this.out = grown(this.out, this.pos, n);
    const out = this.out;
    let pos = this.pos;
    // A loop beats the call into `set` for the shortest pieces (values, severities); `set` wins from about 16 bytes.
    if (n < 16) for (let j = 0; j < n; j++) out[pos++] = bytes[j]!;
    else pos = putBytes(out, bytes, pos);
    this.pos = pos;
  }

  /** Writes a templated message piece by piece; false (and nothing written) when a value is refused. */
  private piecewise(pieces: readonly (Uint8Array | number)[]): boolean {
    const start = this.pos;
    for (let p = 0; p < pieces.length; p++) {
      const piece = pieces[p]!;
      if (typeof piece !== 'number') this.put(piece);
      else {
        const bytes = this.valueBytes[piece]!.piece;
        if (bytes === null) {
          this.pos = start;
          return false;
        }
        this.put(bytes);
      }
    }
    return true;
  }

  private text(text: string): void {
    const n = Buffer.byteLength(text);
    if (this.pos + n > this.out.length) this.out = grown(this.out, this.pos, n);
    this.pos += this.out.write(text, this.pos);
  }

  /** The bytes of a value, cached (the cache starts over when full). */
  private bytesOf(value: string): ValueBytes {
    let bytes = this.values.get(value);
    if (bytes === undefined) {
      if (this.values.size >= VALUES_KEPT) this.values.clear();
      const fieldText = this.format.fieldValue(value);
      const pieceText = this.format.messagePiece(value);
      const field = Buffer.from(fieldText);
      const piece = pieceText === undefined ? null : pieceText === fieldText ? field : Buffer.from(pieceText);
      this.values.set(value, (bytes = { piece, field }));
    }
    return bytes;
  }

  private headsOf(ms: number): FewKeys<string, Uint8Array> {
    return new FewKeys((severity) => Buffer.from(this.format.head(ms, severity)));
  }

  /** The template as prepared, with the bytes of this record's values put in `valueBytes`. */
  private prepared(template: LogTemplate, fields: Readonly<Record<string, string>>): PreparedTemplate {
    const prepared = this.templates.get(template);
    const { names } = template;
    for (let k = 0; k < names.length; k++) this.valueBytes[k] = prepared.values[k]!.get(fields[names[k]!]!);
    return prepared;
  }

  private preparedOf(template: LogTemplate): PreparedTemplate {
    let prepared = this.allTemplates.get(template);
    if (!prepared) this.allTemplates.set(template, (prepared = this.prepare(template)));
    return prepared;
  }

  private prepare({ parts, names }: LogTemplate): PreparedTemplate {
    const sorted = [...names].sort();
    const values = names.map(() => new FewKeys<string, ValueBytes>((value) => this.bytesOf(value)));
    const prepared = { fields: this.layout(sorted), order: sorted.map((name) => names.indexOf(name)), values };
    const message: (Uint8Array | number)[] = [];
    for (const part of parts) {
      if (typeof part === 'number') message.push(part);
      else {
        const piece = this.format.messagePiece(part);
        if (piece === undefined) return prepared;
        message.push(Buffer.from(piece));
      }
    }
    return { ...prepared, message };
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
