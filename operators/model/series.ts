import type { SpanResource } from './resource.js';

/**
 * A label set. Ticks that carry the same labels share one object (the label operator interns
 * them), so encoders can build and cache a series' text prefix once, weakly — unless the set is
 * `transient`: at high cardinality each tick gets its own object. State kept per label set (a
 * histogram's buckets) is therefore keyed by `key`, never by the object.
 */
export interface Series {
  /** Labels sorted by key. */
  readonly labels: Readonly<Record<string, string>>;
  /** Canonical form `k1="v1",k2="v2"` (sorted, values escaped as in the text exposition format). */
  readonly key: string;
  /** Appended to the metric name for this series (`_bucket`, `_sum`, `_count`). */
  readonly suffix?: string;
  /** Built for one tick (too many label sets to intern): caching anything by this object is waste. */
  readonly transient?: boolean;
  /**
   * Of a transient set, when the label operator made it from a shape: the set is `shape` with
   * hole `h` filled by the text of `fills[h]` (a number's digits, or a string of `[0-9a-f]`).
   * Encoders prepare a shape's bytes once and write only the fills, line after line.
   */
  readonly shape?: SeriesShape;
  readonly fills?: readonly (number | string)[];
  /**
   * What an OTLP request puts these points under, when not the sink's resource: a span metric's service (its
   * labels name the service too, so `key` still tells series apart).
   */
  readonly resource?: SpanResource;
}

/**
 * What the label sets of an entry past interning have in common: the same labels, whose
 * rotating values differ only in the counter (or hex digits) after their prefix. `marked` is
 * that label set with each hole written as its marker ({@link holeMarker}): any text made from
 * it (an encoder's line head) is cut at the markers into parts prepared once.
 */
export interface SeriesShape {
  readonly marked: Series;
}

/**
 * Builds the {@link Series} of a label set: labels sorted by key, and the canonical `key`
 * `k1="v1",k2="v2"` with values escaped as the text exposition format requires (`\`, `"`
 * and line feed). A label whose value is empty is left out: Prometheus, VictoriaMetrics and Loki
 * read `k=""` as no label `k`, so `{k=""}` and `{}` are one series there and must be one here.
 * The result is a fresh object: interning (one object per label set) is the caller's job.
 * `suffix` is appended to the metric name of this series (`_bucket`, `_sum`).
 */
export function seriesOf(labels: Readonly<Record<string, string>>, suffix?: string): Series {
  const names = Object.keys(labels).sort();
  const series = seriesOfSorted(
    names,
    names.map((name) => labels[name]),
  );
  return suffix ? Object.freeze({ ...series, suffix }) : series;
}

/**
 * {@link seriesOf} of a label set whose names are already sorted: `values[i]` is the value of
 * `names[i]`, or `undefined` where the set lacks that name. For building many sets over one
 * list of names (an entry's static and rotating labels) without sorting it again each time.
 * `transient`: the set is built for one tick (see {@link Series.transient}).
 */
export function seriesOfSorted(
  names: readonly string[],
  values: readonly (string | undefined)[],
  transient = false,
): Series {
  const labels: Record<string, string> = {};
  let key = '';
  for (let i = 0; i < names.length; i++) {
    const value = values[i];
    // An empty value is absence, as the stores read it (see seriesOf).
    if (value === undefined || value === '') continue;
    labels[names[i]!] = value;
    key += `${key === '' ? '' : ','}${names[i]}="${escapeLabelValue(value)}"`;
  }
  return Object.freeze(
    transient ? { labels: Object.freeze(labels), key, transient } : { labels: Object.freeze(labels), key },
  );
}

const NEEDS_ESCAPE = /[\\"\n]/;

/** Escapes a label value for the text exposition format. */
export function escapeLabelValue(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/[\\"\n]/g, escapeChar) : value;
}

function escapeChar(c: string): string {
  return c === '\n' ? '\\n' : `\\${c}`;
}

/**
 * Code unit of hole 0's marker: Unicode's private use area, which the label operator makes sure no templated
 * label text contains.
 */
const HOLE = 0xe000;

/** Most holes a shape has (a marker each). */
export const MAX_HOLES = 256;

/** The marker standing for hole `hole` of a shape in any text made from its label set. */
export function holeMarker(hole: number): string {
  return String.fromCharCode(HOLE + hole);
}

/** Whether `text` holds a character a marker is made of: such text cannot be part of a shape. */
export function hasHoleMarker(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= HOLE && unit < HOLE + MAX_HOLES) return true;
  }
  return false;
}

/** `text` cut at its markers: literal strings and hole numbers, in order (as a log template's parts). */
export function partsAtHoles(text: string): (string | number)[] {
  const parts: (string | number)[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < HOLE || unit >= HOLE + MAX_HOLES) continue;
    if (i > from) parts.push(text.slice(from, i));
    parts.push(unit - HOLE);
    from = i + 1;
  }
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}

/** The text of `parts` with each hole `h` replaced by `fills[h]`. */
export function filledParts(parts: readonly (string | number)[], fills: readonly (number | string)[]): string {
  let text = '';
  for (const part of parts) text += typeof part === 'number' ? String(fills[part]) : part;
  return text;
}

/** A shape whose label set `marked` carries hole markers in some values (see {@link SeriesShape}). */
export function seriesShape(marked: Series): SeriesShape & { readonly keyParts: readonly (string | number)[] } {
  return { marked, keyParts: partsAtHoles(marked.key) };
}

/**
 * A transient label set given by its shape and the fills of its holes: nothing is built for it
 * unless something reads its `key` or `labels` (an encoder writing from the shape reads neither).
 */
export class ShapedSeries implements Series {
  readonly transient = true;
  #key: string | undefined;
  #labels: Readonly<Record<string, string>> | undefined;

  constructor(
    readonly shape: ReturnType<typeof seriesShape>,
    readonly fills: readonly (number | string)[],
  ) {}

  get key(): string {
    return (this.#key ??= filledParts(this.shape.keyParts, this.fills));
  }

  get labels(): Readonly<Record<string, string>> {
    if (!this.#labels) {
      const labels: Record<string, string> = {};
      for (const [name, value] of Object.entries(this.shape.marked.labels))
        labels[name] = filledParts(partsAtHoles(value), this.fills);
      this.#labels = Object.freeze(labels);
    }
    return this.#labels;
  }
}
