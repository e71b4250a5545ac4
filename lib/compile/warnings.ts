/**
 * Advisory warnings about an entry that runs all the same: something it asks for that never happens, or more than
 * its destination takes by default. The CLI
 * prints them at `--dry-run` and at the start of a run, the server answers and logs them with the scenario; they
 * never block. (What is risky about a sink alone is the sink kind's: lib/sinks/kinds/kind.ts.)
 */
import type { Entry } from '../config/types.js';
import type { CallConfig, RootSpanConfig } from '../language/traces.js';
import { formatPath, type Segment } from '../language/problems.js';
import { formatMs } from '../format.js';
import { formatStartTime } from './format.js';
import { labelSetCount } from '../../operators/labels.js';
import { OWN_LABEL, rateScheduleOf } from '../config/entry.js';
import { replayRow, replayTime } from '../generators/replay.js';
import { drawnSeverities } from '../generators/log.js';
import type { ReplayTimes } from '../language/types.js';
import { MAX_CSV_ROWS, MAX_RATE } from '../language/limits.js';
import { microsecondCycle } from '../../operators/model/window.js';
import { SPAN_METRICS_DIMENSIONS } from '../../operators/span-metrics.js';
import { FAILING_SEVERITIES } from '../../operators/trace-context.js';
import { longestRecord, longestValues, PLACEHOLDER, SEVERITIES } from '../language/fields.js';
import { createLogEncoder } from '../encoders/index.js';
import { byteLength, recordOf } from '../../operators/model/batch.js';
import { seriesOf } from '../../operators/model/series.js';

/** Loki's default limit of active streams per tenant (`limits_config.max_global_streams_per_user`). */
export const LOKI_DEFAULT_MAX_STREAMS = 5000;

/** Loki's default limit of label names a stream (`limits_config.max_label_names_per_series`). */
const LOKI_DEFAULT_MAX_LABEL_NAMES = 15;
/** Loki's default limit of a label value, in UTF-8 bytes (`limits_config.max_label_value_length`). */
const LOKI_DEFAULT_MAX_LABEL_VALUE_BYTES = 2048;

/** Loki's default limit of a line, in UTF-8 bytes (`limits_config.max_line_size`, 256KB). */
const LOKI_DEFAULT_MAX_LINE_BYTES = 256 * 1024;

/** Loki's default limit of a record's age when it arrives (`limits_config.reject_old_samples_max_age`, 1 week). */
const LOKI_DEFAULT_MAX_AGE_MS = 7 * 86_400_000;
/** How far ahead of its arrival Loki takes a record's time by default (`limits_config.creation_grace_period`). */
const LOKI_DEFAULT_GRACE_MS = 10 * 60_000;

/** When and how the entries run: the time they start, and whether on a backfill's virtual clock. */
export interface RunStart {
  readonly now: number;
  readonly backfill: boolean;
}

/**
 * Each warning about `entry`, naming the field it is about (`trace_generator.root.incident.start: …`); those that
 * depend on the time of the run when `start` says it, and on the other entries of its file when `entries` gives them.
 */
export function entryWarnings(entry: Entry, start?: RunStart, entries: readonly Entry[] = []): string[] {
  return [
    ...incidentWarnings(entry),
    ...traceContextWarnings(entry),
    ...outlivedSpansWarnings(entry, entries),
    ...streamWarnings(entry),
    ...streamLabelWarnings(entry),
    ...lineSizeWarnings(entry),
    ...(start ? recordTimeWarnings(entry, start) : []),
    ...skippedRowWarnings(entry),
    ...shadowedLabelWarnings(entry),
    ...brokerKeyWarnings(entry),
  ];
}

/**
 * The names of the labels an entry's events carry: its static labels (not empty ones), dynamic labels and spikes, and
 * the label a histogram or summary writes on its own samples (le, quantile); a span metric's, the span's dimensions
 * (service_name, span_name…); a span's are its service's resource attributes, of which only the services' own
 * `attributes` can be named by a label key (the others, service.name and the like, have dots).
 */
function eventLabelNames(entry: Entry): Set<string> {
  const services = Object.values(entry.trace_generator?.services ?? {});
  return new Set([
    ...Object.keys(entry.labels).filter((name) => entry.labels[name] !== ''),
    ...entry.dynamic_labels.map((label) => label.key),
    ...entry.cardinality_spikes.map((spike) => spike.label),
    ...(OWN_LABEL[entry.signal_type]?.slice(0, 1) ?? []),
    ...(entry.span_metrics_of ? SPAN_METRICS_DIMENSIONS[entry.span_metrics_of.naming ?? 'prometheus'] : []),
    ...services.flatMap((service) => Object.keys(service.attributes)),
  ]);
}

/**
 * A broker sink keyed by a label that no event of the entry carries (a typo, or a traces entry whose services have
 * no resource attribute of that name): every message goes without a key, spread over the partitions in turn, so no
 * series (no service's spans) stays in one partition, and nothing else would say so. Or keyed by the label a
 * histogram or summary writes on its own samples (le, quantile): an event is a whole series set and a message takes
 * its key from the event's first row (lib/sinks/framing/broker-messages.ts), so every message has the same key and
 * they all go to one partition.
 */
function brokerKeyWarnings(entry: Entry): string[] {
  const { sink } = entry;
  if (sink.type !== 'broker' || sink.key === undefined || sink.key === 'none') return [];
  const names = eventLabelNames(entry);
  const own = OWN_LABEL[entry.signal_type];
  if (own) names.delete(own[0]);
  if (names.has(sink.key)) return [];
  const listed = names.size === 0 ? 'none' : [...names].join(', ');
  const carried =
    entry.signal_type === 'traces'
      ? `a span's labels are its service's resource attributes; those of trace_generator.services: ${listed}`
      : `its labels: ${listed}`;
  if (own?.[0] === sink.key)
    return [
      `sink.key: ${JSON.stringify(sink.key)} is the same on every message, so they all go to one partition: an event of this entry is a series set whose ${own[1]}, and a message takes its key from its event's first row; name one of its labels (${carried}), or key: none`,
    ];
  return [
    `sink.key: no event of this entry carries the label ${JSON.stringify(sink.key)} (${carried}), so every message goes without a key, spread over the partitions in turn: name one of its labels, or key: none`,
  ];
}

/**
 * A static label (the file's, a pack's or `--label`'s) of a key a dynamic label has too: the dynamic label sets that
 * key on every event and wins (docs/scenario-fields.md), so the static value is never written. (A spike's label
 * wins only in its windows: the static value shows between them.) An empty value is no label anyway.
 */
function shadowedLabelWarnings(entry: Entry): string[] {
  return entry.dynamic_labels.flatMap(({ key }, i) => {
    const value = Object.hasOwn(entry.labels, key) ? entry.labels[key] : '';
    if (!value) return [];
    return [
      `labels.${key}: ${JSON.stringify(value)} is never written: dynamic_labels[${i}] sets ${key} on every event, and a dynamic label wins over a static one; give one of them another name`,
    ];
  });
}

/**
 * An entry into a log store whose records are stamped further from the time they arrive than Loki takes by
 * default: more than a week before (a `start_time` far in the past, in real time or in a backfill) or more than
 * 10 minutes after (a `start_time` ahead, in real time; a backfill past now has its own warning). The store answers
 * 400 to every push of them; a warning, as its limits are its settings.
 */
function recordTimeWarnings(entry: Entry, { now, backfill }: RunStart): string[] {
  if (entry.sink.type !== 'logstore' || entry.start_time.kind === 'now') return [];
  const begins = now + (entry.phase_offset ?? 0);
  const anchor = entry.start_time.kind === 'absolute' ? entry.start_time.epochMs : begins + entry.start_time.offsetMs;
  // In real time each record is sent at its tick, stamped anchor − begins from it; a backfill sends them all now.
  const ahead = anchor - (backfill ? now : begins);
  const startTime = `start_time ${formatStartTime(entry.start_time)}`;
  const seconds = (ms: number) => formatMs(Math.round(ms / 1000) * 1000);
  if (ahead < -LOKI_DEFAULT_MAX_AGE_MS)
    return [
      `start_time: records stamped up to ${seconds(-ahead)} before they are sent (${startTime}); Loki refuses records older than ${formatMs(LOKI_DEFAULT_MAX_AGE_MS)} by default (limits_config.reject_old_samples_max_age) and answers 400 to every push of them: a later start_time, or raise that limit`,
    ];
  if (!backfill && ahead > LOKI_DEFAULT_GRACE_MS)
    return [
      `start_time: records stamped ${seconds(ahead)} after they are sent (${startTime}); Loki refuses records more than ${formatMs(LOKI_DEFAULT_GRACE_MS)} ahead by default (limits_config.creation_grace_period) and answers 400 to every push of them: start_time: now, or one in the past`,
    ];
  return [];
}

/**
 * Labels of an entry into a log store past Loki's default limits: more label names a stream than it takes, or a
 * value longer (in bytes, as Loki counts). The store answers 400 to every push that carries such a stream, so
 * the run delivers none of it; the limits are the store's settings, hence a warning and not a refusal.
 */
function streamLabelWarnings(entry: Entry): string[] {
  if (entry.sink.type !== 'logstore') return [];
  const warnings: string[] = [];
  // Loki drops labels with an empty value, and leaves service_name out of the count (it adds one itself).
  // The label a histogram or summary writes on its own samples (le, quantile) is one of their streams' too.
  const names = eventLabelNames(entry);
  names.delete('service_name');
  if (names.size > LOKI_DEFAULT_MAX_LABEL_NAMES)
    warnings.push(
      `labels: the entry's streams carry ${names.size} labels (${[...names].join(', ')}); Loki takes at most ${LOKI_DEFAULT_MAX_LABEL_NAMES} a stream by default (limits_config.max_label_names_per_series) and answers 400 to every push of more: raise that limit, or drop labels`,
    );
  for (const [path, , value] of longestLabelValues(entry)) {
    const bytes = Buffer.byteLength(value);
    if (bytes > LOKI_DEFAULT_MAX_LABEL_VALUE_BYTES)
      warnings.push(
        `${path}: a value of ${bytes} bytes (UTF-8); Loki takes label values of at most ${LOKI_DEFAULT_MAX_LABEL_VALUE_BYTES} bytes by default (limits_config.max_label_value_length) and answers 400 to every push that carries a longer one: shorten it, or raise that limit`,
      );
  }
  return warnings;
}

/**
 * Log records into a log store longer than Loki takes a line by default, measured as the entry's encoder writes them
 * (its timestamp, severity, labels, field names and escaping included: Loki measures the line it receives). Loki
 * answers 400 to each push carrying such a line (it writes the push's other lines), and svc counts the whole push
 * dropped; the limit is the store's setting, hence a warning. A template's longest record is encoded once (its
 * message is at most 1 MiB). One warning names the first record over the limit and counts the others.
 */
function lineSizeWarnings(entry: Entry): string[] {
  const generator = entry.log_generator;
  if (entry.signal_type !== 'logs' || entry.sink.type !== 'logstore' || !generator) return [];
  const lineBytes = encodedLineBytes(entry);
  const warn = (over: readonly { readonly bytes: number; readonly path: string }[], others: string) =>
    over.length === 0
      ? []
      : [
          `${over[0]!.path}${over.length > 1 ? ` (and ${over.length - 1} other ${others})` : ''}: records of ${over[0]!.bytes} bytes as the entry's encoder writes them (UTF-8); Loki takes lines of at most ${LOKI_DEFAULT_MAX_LINE_BYTES} bytes by default (limits_config.max_line_size) and answers 400 to each push that carries a longer one (svc counts the whole push dropped): shorten the messages, or raise that limit`,
        ];
  // A record is encoded only when its text alone does not settle it (the first one over aside, to be named with its
  // size): under the limit even at its worst escaping (a byte of text is at most 6 bytes escaped, \u0000; a field
  // adds at most 6 bytes around its name and value), or over it with its message and field values alone.
  const empty = lineBytes({ severity: LONGEST_SEVERITY, message: '', fields: { a: '' } });
  const over = (records: Iterable<TextRecord>) => {
    const found: { bytes: number; path: string }[] = [];
    for (const { path, values, text, record } of records) {
      if (empty + MAX_ESCAPED_BYTES * text <= LOKI_DEFAULT_MAX_LINE_BYTES) continue;
      if (found.length > 0 && values > LOKI_DEFAULT_MAX_LINE_BYTES) found.push({ bytes: values, path });
      else {
        const line = lineBytes(record());
        if (line > LOKI_DEFAULT_MAX_LINE_BYTES) found.push({ bytes: line, path });
      }
    }
    return found;
  };
  // Named by the file's line, as the reader's own errors are: blank lines (and a CSV's comments) hold no record.
  const replayed = (records: readonly LineRecord[], lineNumbers: readonly number[]) =>
    records.map(
      (record, i): TextRecord => ({
        path: `log_generator.file line ${lineNumbers[i]}`,
        ...Object.entries(record.fields).reduce(
          ({ values, text }, [name, value]) => {
            const bytes = Buffer.byteLength(value);
            return { values: values + bytes, text: text + 1 + Buffer.byteLength(name) + bytes };
          },
          { values: Buffer.byteLength(record.message), text: Buffer.byteLength(record.message) },
        ),
        record: () => record,
      }),
    );
  switch (generator.type) {
    case 'template': {
      const longestBytes = longestValues(Buffer.byteLength);
      // The value longest once escaped (as JSON: the most an encoder escapes) fills the record encoded.
      const longest = longestValues((value) => Buffer.byteLength(JSON.stringify(value)));
      const records = generator.templates.map((template, i) => {
        const pools = { ...generator.field_pools, ...template.field_pools };
        const { message, fields } = longestRecord(template.message, pools, Buffer.byteLength, longestBytes);
        const record = (): LineRecord => {
          const values: Record<string, string> = {};
          const filled = template.message.replace(PLACEHOLDER, (text, name: string) =>
            Object.hasOwn(pools, name) ? (values[name] = longest(pools[name]!)) : text,
          );
          return { severity: template.severity ?? LONGEST_SEVERITY, message: filled, fields: values };
        };
        // Each field's name is in the template's message, as its placeholder (`{name}`, a byte or more beyond the
        // name): that message's bytes bound the names, the filled one not (long names with short values).
        return {
          path: `log_generator.templates[${i}].message`,
          values: message + fields,
          text: Buffer.byteLength(template.message) + message + fields,
          record,
        };
      });
      return warn(over(records), 'templates');
    }
    case 'csv_replay':
      return warn(over(replayed(generator.table?.records ?? [], generator.table?.lineNumbers ?? [])), 'rows');
    case 'replay': {
      const lines = (generator.lines?.lines ?? []).map((message) => ({
        severity: LONGEST_SEVERITY,
        message,
        fields: {},
      }));
      return warn(over(replayed(lines, generator.lines?.lineNumbers ?? [])), 'lines');
    }
  }
}

/**
 * A record to measure: where it is written, the UTF-8 bytes of its message and field values (the least its line
 * holds), of its text (a bound of those and the field names, each escaped at most 6 times), and the record itself.
 */
interface TextRecord {
  readonly path: string;
  readonly values: number;
  readonly text: number;
  record(): LineRecord;
}

/** A log record as the line-size warning encodes it. */
interface LineRecord {
  readonly severity: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, string>>;
}

/** The most UTF-8 bytes a byte of text becomes when a text encoder escapes it (`\u0000`). */
const MAX_ESCAPED_BYTES = 6;
/** The longest severity name, for records whose severity is drawn at run time. */
const LONGEST_SEVERITY = SEVERITIES.reduce((a, b) => (b.length > a.length ? b : a));

/**
 * The bytes of each record's line as the entry's encoder writes it (its separator left out), with the longest value of
 * each of the entry's labels and, when it takes `trace_context`, span ids.
 */
function encodedLineBytes(entry: Entry): (record: LineRecord) => number {
  const labels: Record<string, string> = {};
  for (const [, name, value] of longestLabelValues(entry))
    if (Buffer.byteLength(value) >= Buffer.byteLength(labels[name] ?? '')) labels[name] = value;
  const series = seriesOf(labels);
  const encoder = createLogEncoder(entry.encoder);
  const one = Float64Array.of(0);
  return ({ severity, message, fields }) =>
    byteLength(
      recordOf(
        encoder.encode({
          size: 1,
          anchor: 0,
          index: one,
          offset: one,
          severity: [severity],
          message: [message],
          fields: [fields],
          ...(entry.trace_context && { context: [{ traceId: '0'.repeat(32), spanId: '0'.repeat(16), flags: 1 }] }),
          series: [series],
        }),
        0,
      ),
    );
}

/** Where an entry's label values are written, each with the label's name and the longest value it gives. */
function longestLabelValues(entry: Entry): LabelValue[] {
  const counted = (prefix: string, cardinality: number) => prefix + String(cardinality - 1);
  return [
    ...Object.entries(entry.labels).map(([name, value]): LabelValue => [formatPath(['labels', name]), name, value]),
    ...entry.dynamic_labels.flatMap((label, i): LabelValue[] =>
      label.form === 'list'
        ? label.values.map((value, j): LabelValue => [formatPath(['dynamic_labels', i, 'values', j]), label.key, value])
        : [[formatPath(['dynamic_labels', i, 'prefix']), label.key, counted(label.prefix, label.cardinality)]],
    ),
    ...entry.cardinality_spikes.map(
      (spike, i): LabelValue => [
        formatPath(['cardinality_spikes', i, 'prefix']),
        spike.label,
        // A random value is 16 hex digits.
        spike.strategy === 'random' ? `${spike.prefix}${'0'.repeat(16)}` : counted(spike.prefix, spike.cardinality),
      ],
    ),
  ];
}

type LabelValue = [path: string, name: string, value: string];

/**
 * A logs `csv_replay` sampled too slowly for its rows: each tick writes the row in force (docs/scenario-fields.md
 * csv_replay), so rows that fall between two ticks are not written, records lost (with `repeat`, in that pass through
 * the file: the ticks fall elsewhere in the next). The reference tool derives the
 * rate from the CSV's spacing, so its files often give a `rate` (ignored there) that is too low here.
 */
function skippedRowWarnings(entry: Entry): string[] {
  const replay = entry.log_generator;
  if (replay?.type !== 'csv_replay' || !replay.table) return [];
  const { at: rows, span } = replay.table.times;
  const skipped = rowsBetweenTicks(entry, { ...replay, times: replay.table.times });
  if (!skipped) return [];
  const closest = rows.reduce((least, at, i) => Math.min(least, (rows[i + 1] ?? span) - at), Number.POSITIVE_INFINITY);
  // Bursts that slow the rate down space the ticks wider in their windows: the rate must cover those too.
  const slowdown = Math.min(1, entry.bursts?.multiplier ?? 1);
  const needed = (1000 * replay.timescale) / closest / slowdown;
  const inBursts = slowdown < 1 ? `, every ${formatInterval(1000 / (entry.rate * slowdown))} in its bursts` : '';
  // Past the highest rate svc takes, only a slower replay of the CSV writes every row.
  const advice =
    needed <= MAX_RATE
      ? `give rate: ${Number(needed.toPrecision(6))} or more to write every row`
      : `no rate svc takes (at most ${MAX_RATE}) writes every row: give timescale: ${Number(((MAX_RATE * closest * slowdown) / 1000).toPrecision(6))} or less to replay the CSV slower`;
  return [
    `rate: ${skipped} of the ${rows.length} rows of ${replay.file} fall between two ticks ${replay.repeat ? 'in some passes through the file and are not written in those' : 'and are never written'} (rows ${formatInterval(closest)} apart on the CSV's time${replay.timescale === 1 ? '' : `, timescale ${replay.timescale}`}; a tick every ${formatInterval(1000 / entry.rate)}${inBursts}): each tick writes the row in force, so ${advice}`,
  ];
}

/** `ms` as {@link formatMs} writes it, or below a millisecond to six significant digits (its three decimals wrote 0ms). */
function formatInterval(ms: number): string {
  return ms < 1 ? `${Number(ms.toPrecision(6))}ms` : formatMs(ms);
}

/**
 * How many rows no tick writes, by the runtime's own reckoning: its schedule's tick times and the row each reads
 * (lib/generators/replay.ts). With `repeat` the ticks fall elsewhere in each pass through the CSV, so a row skipped in
 * one may be written in another: it counts the rows skipped in at least one of the passes it looks at (up to
 * {@link PASSES_LOOKED_AT}, and {@link TICKS_LOOKED_AT} ticks).
 * From each tick it jumps to the tick before the next row's start, so it looks at two ticks a row written at most.
 */
function rowsBetweenTicks(
  entry: Pick<Entry, 'rate' | 'bursts' | 'duration'>,
  replay: { times: ReplayTimes; repeat: boolean; timescale: number },
): number {
  const { times, repeat, timescale } = replay;
  const { at: rows, span } = times;
  const { rate, duration } = entry;
  const schedule = rateScheduleOf(entry);
  const rowOf = replayRow(times, repeat, timescale);
  const passOf = microsecondCycle(span);
  const last = rows.length - 1;
  const missed = new Uint8Array(rows.length);
  let skipped = 0;
  const miss = (from: number, to: number) => {
    for (let row = from; row < to; row++) {
      skipped += 1 - missed[row]!;
      missed[row] = 1;
    }
  };
  let pass = 0;
  let next = 0; // the first row of `pass` no tick has reached yet
  for (let k = 0, looked = 0; looked < TICKS_LOOKED_AT && skipped < rows.length; looked++) {
    const at = schedule.timeOf(k);
    if (duration !== undefined && at >= duration) break;
    const t = replayTime(at, timescale);
    // Without repeat the last row holds from the end of the span on: one pass. In microseconds, as replayRow finds
    // the place in the pass: in ms 123.3 % 41.1 put a tick where a 41.1 ms pass starts over in the pass before.
    const tickPass = repeat ? passOf.index(t) : 0;
    if (tickPass > pass) {
      // A pass with no tick at all misses every row.
      miss(tickPass > pass + 1 ? 0 : next, rows.length);
      if (tickPass >= PASSES_LOOKED_AT) break;
      [pass, next] = [tickPass, 0];
    }
    const row = rowOf(at);
    if (row >= next) {
      miss(next, row);
      next = row + 1;
    }
    if (row === last && !repeat) break;
    // The tick before the one due at the next row's start: rounding may put that one a slot early or late.
    const start = (pass * span + (rows[row + 1] ?? span)) / timescale;
    if (!((start * rate) / 1000 < MAX_SLOT)) break;
    k = Math.max(k + 1, schedule.slotsBefore(start) - 1);
  }
  return skipped;
}

/** Passes through a repeated CSV that {@link rowsBetweenTicks} looks at. */
const PASSES_LOOKED_AT = 100;
/** Ticks it looks at: a whole pass through the largest CSV (two ticks a row) and more. */
const TICKS_LOOKED_AT = 3 * MAX_CSV_ROWS;
/** Slot numbers the reckoning above goes to: exact integers, well within what the schedule counts. */
const MAX_SLOT = 2 ** 52;

/** Traces incidents that begin at or after the entry's end: its spans never behave otherwise. */
function incidentWarnings(entry: Entry): string[] {
  const end = entry.duration;
  const root = entry.trace_generator?.root;
  if (end === undefined || !root) return [];
  const found: string[] = [];
  // Calls nest at most MAX_SPANS_PER_TRACE deep: the recursion is bounded.
  const walk = (span: RootSpanConfig | CallConfig, path: readonly Segment[]): void => {
    if (span.incident && span.incident.start >= end)
      found.push(
        `${formatPath([...path, 'incident', 'start'])}: the incident starts at ${formatMs(span.incident.start)}, at or after the entry's end (duration ${formatMs(end)}): it never happens`,
      );
    for (const [i, call] of span.calls.entries()) walk(call, [...path, 'calls', i]);
  };
  walk(root, ['trace_generator', 'root']);
  return found;
}

/** The severities a log generator writes; undefined when not known before it runs (a csv_replay not read yet). */
function writtenSeverities(generator: NonNullable<Entry['log_generator']>): readonly string[] | undefined {
  if (generator.type === 'csv_replay') return generator.table?.records.map((record) => record.severity);
  if (generator.type !== 'template') return ['info'];
  const drawn = drawnSeverities(generator.severity_weights).map(([severity]) => severity);
  return generator.templates.flatMap((template) => template.severity ?? drawn);
}

/**
 * A logs entry whose `trace_context` names a span on no record: `on` (error by default) leaves out every severity its
 * generator writes. An SDK's info logs carry their span too, so `trace_context: {from}` over info records was a
 * likely mistake that gave no record an id without a word.
 */
function traceContextWarnings(entry: Entry): string[] {
  const context = entry.trace_context;
  const generator = entry.log_generator;
  if (!context || !generator) return [];
  const on = context.on ?? 'error';
  if (on === 'all' || (on === 'probability' && context.probability! > 0)) return [];
  const written = writtenSeverities(generator);
  if (written === undefined || written.some((severity) => FAILING_SEVERITIES.has(severity))) return [];
  const severities = SEVERITIES.filter((severity) => written.includes(severity));
  const asked = on === 'error' ? `error${context.on === undefined ? ' (the default)' : ''}` : 'probability 0';
  return [
    `trace_context.on: ${asked} gives the ids of a span of "${context.from}" to records of severity error or fatal only, and this entry writes ${severities.join(', ')} records: none carries them (on: all gives them to every record)`,
  ];
}

/**
 * An entry naming the spans of a traces entry (`exemplars.from`, `trace_context.from`) that runs on after that entry
 * ends: from then on it names the last spans made, ever older (docs/correlation.md), where an SDK would stamp none.
 * Told when both are timed from the file's start (no `after`) and the traces entry has an end.
 */
function outlivedSpansWarnings(entry: Entry, entries: readonly Entry[]): string[] {
  const [field, named] = entry.exemplars?.from
    ? (['exemplars', 'its exemplars'] as const)
    : entry.trace_context
      ? (['trace_context', 'its records'] as const)
      : [];
  const traces = field && entries.find((other) => other.id === entry[field]!.from);
  if (!traces || traces.duration === undefined || entry.after || traces.after) return [];
  // One clock group: both phase offsets count from its start.
  const tracesEnd = (traces.phase_offset ?? 0) + traces.duration;
  const start = entry.phase_offset ?? 0;
  const end = entry.duration === undefined ? Infinity : start + entry.duration;
  if (end <= tracesEnd) return [];
  const until = end === Infinity ? 'has no end' : `runs until ${formatMs(end)}`;
  return [
    `${field}.from: "${traces.id}" ends at ${formatMs(tracesEnd)} and this entry ${until}: ${start >= tracesEnd ? 'all' : `from ${formatMs(tracesEnd)} on,`} ${named} name the last spans "${traces.id}" made, ever older`,
  ];
}

/**
 * A logs entry into a log store with more label sets than Loki's default stream limit: past it the store refuses
 * the pushes of new streams (429), so the run loses most of its records.
 */
function streamWarnings(entry: Entry): string[] {
  if (entry.signal_type !== 'logs' || entry.sink.type !== 'logstore') return [];
  const streams = labelSetCount({ dynamic: entry.dynamic_labels, spikes: entry.cardinality_spikes });
  if (streams <= LOKI_DEFAULT_MAX_STREAMS) return [];
  const field = entry.dynamic_labels.length ? 'dynamic_labels' : 'cardinality_spikes';
  return [
    `${field}: the labels make up to ${streams} streams (label sets) in the log store; Loki keeps at most ${LOKI_DEFAULT_MAX_STREAMS} active streams per tenant by default (limits_config.max_global_streams_per_user) and refuses pushes to more: raise that limit, or lower the cardinalities`,
  ];
}
