/**
 * The words of the scenario language, as svc holds them after validation: signal types,
 * generators, start times, rotating labels. The codecs in fields.ts produce them (shapes a codec
 * states on its own are exported beside it there, `t.TypeOf`); the sink and encoder kinds, the
 * generators and the operators read them. An entry as a whole is lib/config/types.ts.
 */
import type { RotatingLabel } from '../../operators/labels.js';

export type SignalType = 'metrics' | 'logs' | 'histogram' | 'summary' | 'traces';
/** What transports and encoders tell apart: histograms and summaries are metrics; traces carry spans. */
export type SignalFamily = 'metrics' | 'logs' | 'traces';
export type MetricType = 'gauge' | 'counter' | 'histogram' | 'summary' | 'untyped';
export type OnSinkError = 'warn' | 'fail';
export type Severity = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** `start_time`: `now`, an absolute RFC 3339 instant, or a signed offset from the entry start. */
export type StartTime =
  | { readonly kind: 'now' }
  | { readonly kind: 'absolute'; readonly epochMs: number }
  | { readonly kind: 'relative'; readonly offsetMs: number };

export type GeneratorConfig =
  | { readonly type: 'constant'; readonly value: number }
  | { readonly type: 'sine'; readonly amplitude: number; readonly period_secs: number; readonly offset: number }
  /** With `max`, the values climb from `start` to the last one below `max`, then wrap back to `start`. */
  | { readonly type: 'step'; readonly start: number; readonly step_size: number; readonly max?: number }
  | { readonly type: 'sequence'; readonly values: readonly number[]; readonly repeat: boolean }
  | { readonly type: 'uniform'; readonly min: number; readonly max: number; readonly seed: number }
  | { readonly type: 'sawtooth'; readonly min: number; readonly max: number; readonly period_secs: number }
  | {
      readonly type: 'spike';
      readonly baseline: number;
      readonly magnitude: number;
      readonly duration_secs: number;
      readonly interval_secs: number;
    }
  | CsvReplayGenerator;

/**
 * `csv_replay`: the numeric columns of a CSV file replayed on the CSV's own time, scaled by
 * `timescale`. `table` is the file as read (lib/config/csv-replay.ts, before compiling); `series`
 * the one column an entry replays once compiling has given every column its own entry.
 */
export interface CsvReplayGenerator {
  readonly type: 'csv_replay';
  readonly file: string;
  /** The columns to replay: header texts or metric names, or columns by position; absent: every column. */
  readonly columns?: readonly (string | CsvColumn)[];
  /**
   * The metric name of the replayed columns whose header has labels and no name (the reference
   * tool's): as it is for one such column, `<name>_<column index>` for several; absent: the entry's `name`.
   */
  readonly default_metric_name?: string;
  readonly repeat: boolean;
  readonly timescale: number;
  readonly table?: MetricTable;
  readonly series?: ReplaySeries;
}

/** A column of a replayed CSV by its position (the reference tool's form): 0 is the time, 1 the first series. */
export interface CsvColumn {
  readonly index: number;
  /** The metric name of the column; absent: the header's, else the entry's `name`. */
  readonly name?: string;
  /** Merged over the header's and the entry's labels. */
  readonly labels?: Readonly<Record<string, string>>;
}

/** When each row of a replayed CSV holds: ms after its first row, and the length of one pass. */
export interface ReplayTimes {
  /** Increasing; the first is 0. */
  readonly at: readonly number[];
  /** Ms from the first row to the end of the last one (which holds for the spacing before it). */
  readonly span: number;
}

/** A CSV of numeric columns (`Time` first): each column's header as written, its metric name and labels. */
export interface MetricTable {
  readonly times: ReplayTimes;
  readonly columns: readonly {
    readonly header: string;
    readonly name?: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly values: readonly number[];
    /** The first negative cell, where its value is (`line 3, column 2 (jobs_total)`): a counter refuses the column. */
    readonly negative?: { readonly place: string; readonly value: number };
  }[];
  /** A summary, not the rows: what dry-run shows. */
  toJSON(): object;
}

/** One column of a {@link MetricTable}, as one entry replays it. */
export interface ReplaySeries {
  readonly header: string;
  readonly times: ReplayTimes;
  readonly values: readonly number[];
  /** A summary, not the rows: what dry-run shows. */
  toJSON(): object;
}

export interface LogTemplate {
  readonly message: string;
  readonly field_pools?: Readonly<Record<string, readonly string[]>>;
  /** Every record of this template has it; without it, `severity_weights` decide. */
  readonly severity?: Severity;
}

export type LogGeneratorConfig = TemplateLogGenerator | CsvReplayLogGenerator | LineReplayLogGenerator;

/**
 * `csv_replay` logs: the rows of a CSV (timestamp, severity, message, other columns as fields), on the CSV's
 * time scaled by `timescale`.
 */
export interface CsvReplayLogGenerator {
  readonly type: 'csv_replay';
  readonly file: string;
  readonly repeat: boolean;
  readonly timescale: number;
  /** The severity of a row without one (no severity column, or an empty cell). */
  readonly default_severity: Severity;
  /** The file as read (lib/config/csv-replay.ts), before compiling. */
  readonly table?: LogTable;
}

export interface LogTable {
  readonly times: ReplayTimes;
  readonly records: readonly {
    readonly severity: Severity;
    readonly message: string;
    readonly fields: Readonly<Record<string, string>>;
  }[];
  /** The file's line of each record (comments and blank lines skipped are counted), for messages. */
  readonly lineNumbers: readonly number[];
  /** A summary, not the rows: what dry-run shows. */
  toJSON(): object;
}

/**
 * `replay` logs (the reference tool's): the lines of a text file, one a record, in order, starting over after
 * the last; every record `info`, without fields.
 */
export interface LineReplayLogGenerator {
  readonly type: 'replay';
  readonly file: string;
  /** The file as read (lib/config/csv-replay.ts), before compiling. */
  readonly lines?: LogLines;
}

/** The lines of a replayed log file that are not blank. */
export interface LogLines {
  readonly lines: readonly string[];
  /** The file's line of each of `lines` (blank ones skipped are counted), for messages. */
  readonly lineNumbers: readonly number[];
  /** A summary, not the lines: what dry-run shows. */
  toJSON(): object;
}

export interface TemplateLogGenerator {
  readonly type: 'template';
  readonly templates: readonly LogTemplate[];
  readonly field_pools: Readonly<Record<string, readonly string[]>>;
  readonly severity_weights?: Readonly<Partial<Record<Severity, number>>>;
  readonly seed: number;
}

/**
 * A rotating label as a scenario holds it: the labels operator's `RotatingLabel`, its form named:
 * counter form (`prefix` + n mod `cardinality`, the prefix given) or list form (`values` cycled).
 */
export type DynamicLabel =
  | (Required<Extract<RotatingLabel, { readonly cardinality: number }>> & { readonly form: 'counter' })
  | (Extract<RotatingLabel, { readonly values: readonly string[] }> & { readonly form: 'list' });
