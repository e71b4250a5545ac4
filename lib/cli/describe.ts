import type { Entry, EncoderConfig, SinkConfig } from '../config/types.js';
import { maxSpansPerTrace, spanServices, type TraceGeneratorConfig } from '../language/traces.js';
import type { GeneratorConfig } from '../language/types.js';
import {
  describeLinks,
  describePredictedStart,
  type ClockGroup,
  type EntryPlan,
  type ScenarioPlan,
} from '../compile/index.js';
import { formatStartTime } from '../compile/format.js';
import { redactConfig } from '../redact.js';
import { countOf, formatCondition, formatDuration, formatRate } from '../format.js';
import { seriesCount } from '../config/entry.js';
import { flushInterval } from './progress.js';

/**
 * The resolved settings of every entry (packs expanded), when each starts, and the clock groups, as
 * `--dry-run` and `--verbose` print them.
 */
export function describeScenario(plan: ScenarioPlan, origin: string): string {
  const lines = [`scenario: ${origin} (version ${plan.version}, kind ${plan.kind})`];
  const groups = new Map(plan.groups.map((group) => [group.name, group]));
  for (const [i, entryPlan] of plan.plans.entries()) lines.push(...describeEntry(entryPlan, i, groups));
  if (plan.groups.length) {
    lines.push('clock groups:');
    for (const group of plan.groups) {
      lines.push(
        `  ${group.name}${group.automatic ? ` (automatic: linked by ${describeLinks(group.linkedBy ?? ['after'])})` : ''}: ${group.members.join(', ')}; start_time ${formatStartTime(group.start_time)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The same plan as JSON (`svc run --dry-run --format json`): per entry its id, its place in the
 * file, the pack it came from, when it starts, and its resolved configuration (secrets redacted,
 * durations in milliseconds, its `clock_group` there), then the clock groups (`name`, `automatic`, `linked_by`,
 * `members`, `start_time`).
 */
export function planJson(plan: ScenarioPlan, origin: string): string {
  const entries = plan.plans.map(({ entry, label, pack, predictedStart }) => {
    const series = seriesOf(entry)?.series;
    return {
      id: entry.id,
      label,
      ...(pack && { pack }),
      starts: { ...predictedStart, description: describePredictedStart(entry, predictedStart) },
      ...(series !== undefined && { series }),
      config: redactConfig(entry),
    };
  });
  // Snake case, as the entries' configuration beside them.
  const clockGroups = plan.groups.map(({ linkedBy, ...group }) => ({
    ...group,
    ...(linkedBy && { linked_by: linkedBy }),
    start_time: formatStartTime(group.start_time),
  }));
  return `${JSON.stringify({ scenario: origin, version: plan.version, kind: plan.kind, entries, clock_groups: clockGroups }, null, 2)}\n`;
}

function describeEntry(
  { entry, pack, predictedStart }: EntryPlan,
  i: number,
  groups: ReadonlyMap<string, ClockGroup>,
): string[] {
  const group = entry.clock_group === undefined ? undefined : groups.get(entry.clock_group);
  const series = seriesOf(entry);
  const flushAt = flushInterval(entry);
  const rows: [string, string][] = [
    ['name', entry.name ?? `(pack ${entry.pack})`],
    ['signal', entry.signal_type],
    ['rate', flushAt ? `${flushAt} (span_metrics.interval)` : formatRate(entry.rate)],
    ['duration', entry.duration === undefined ? 'until stopped' : formatDuration(entry.duration)],
    ['generator', describeGenerator(entry)],
    ['encoder', describeEncoder(entry.encoder)],
    ['sink', describeSink(entry.sink)],
    ['labels', describeLabels(entry)],
    ...(series ? [['series', describeSeries(series)] as [string, string]] : []),
    ['phase offset', entry.phase_offset === undefined ? 'none' : formatDuration(entry.phase_offset)],
    ['clock group', group ? `${group.name}${group.automatic ? ' (automatic)' : ''}` : 'none'],
    ['starts', describePredictedStart(entry, predictedStart)],
  ];
  if (pack) rows.splice(1, 0, ['pack', `${pack.pack} (${pack.source}), metric ${pack.metric} of entry ${pack.entry}`]);
  const schedules = describeSchedules(entry);
  if (schedules) rows.push(['schedules', schedules]);
  if (entry.after) {
    const { delay } = entry.after;
    rows.push([
      'after',
      `${formatCondition(entry.after)}${delay === undefined ? '' : `, delay ${formatDuration(delay)}`}`,
    ]);
  }
  if (entry.while) {
    const { delay, snap_to } = entry.while;
    const delays = [
      delay?.open && `opens ${formatDuration(delay.open)} after it holds`,
      delay?.close && `closes ${formatDuration(delay.close)} after it stops`,
    ].filter(Boolean);
    rows.push([
      'while',
      `${formatCondition(entry.while)}${delays.length ? ` (${delays.join(', ')})` : ''}${snap_to === undefined ? '' : `, snap_to ${snap_to} on close`}`,
    ]);
  }
  return [`entry ${i + 1}: ${entry.id}`, ...rows.map(([key, value]) => `  ${`${key}:`.padEnd(14)}${value}`)];
}

/**
 * The series an entry may write, counted as its series limit counts them (seriesCount): its label sets
 * (rotating labels and spikes) × samples per event. None for spans, and for span metrics, whose labels come from
 * the spans.
 */
function seriesOf(entry: Entry): { sets: number; samples: number; series: number } | undefined {
  if (entry.trace_generator || entry.span_metrics_of) return undefined;
  return seriesCount(entry);
}

/** `up to 3`, `up to 140 (10 label sets × 14 samples per event)`, `up to 9 (1 label set × 9 samples per event)`. */
function describeSeries({ sets, samples, series }: { sets: number; samples: number; series: number }): string {
  return `up to ${series}${samples > 1 ? ` (${countOf(sets, 'label set')} × ${samples} samples per event)` : ''}`;
}

function describeGenerator(entry: Entry): string {
  if (entry.trace_generator) return describeTraces(entry.trace_generator);
  const spanMetrics = entry.span_metrics_of;
  if (spanMetrics)
    return `span metrics (${spanMetrics.family}) of ${spanMetrics.from}${spanMetrics.exemplars ? ', with exemplars' : ''}`;
  const generator: GeneratorConfig | undefined = entry.generator;
  const source = generator ?? entry.distribution;
  const log = entry.log_generator;
  const base = source
    ? `${source.type} ${params(source)}`.trim()
    : log
      ? log.type === 'template'
        ? 'log template'
        : `log ${log.type} ${params(log)}`
      : 'none';
  return entry.jitter ? `${base}, jitter ±${entry.jitter} (seed ${entry.jitter_seed})` : base;
}

/**
 * `trace from frontend GET /checkout (server), services frontend, payment; up to 12 spans a trace, seed 42`: every
 * service a span runs in, in tree order (those of calls too, not only the ones `services` describes).
 */
function describeTraces(config: TraceGeneratorConfig): string {
  const { service, operation, kind } = config.root;
  const services = [...spanServices(config)].join(', ');
  return `trace from ${service} ${operation} (${kind}), services ${services}; up to ${maxSpansPerTrace(config)} spans a trace, seed ${config.seed}`;
}

function describeEncoder(encoder: EncoderConfig): string {
  return `${encoder.type} ${params(encoder)}`.trim();
}

function describeSink(sink: SinkConfig): string {
  return `${sink.type} ${params(redactConfig(sink))}`.trim();
}

function describeLabels(entry: Entry): string {
  const parts = Object.entries(entry.labels).map(([k, v]) => `${k}=${v}`);
  for (const label of entry.dynamic_labels) {
    parts.push(
      label.form === 'list'
        ? `${label.key}=[${label.values.join('|')}]`
        : `${label.key}=${label.prefix}0..${label.cardinality - 1}`,
    );
  }
  return parts.length ? parts.join(', ') : 'none';
}

function describeSchedules(entry: Entry): string {
  const parts: string[] = [];
  if (entry.gaps) parts.push(`gap ${formatDuration(entry.gaps.for)} every ${formatDuration(entry.gaps.every)}`);
  for (const window of entry.gap_windows ?? []) {
    parts.push(`gap ${formatDuration(window.for)} once at ${formatDuration(window.at)}`);
  }
  if (entry.bursts) {
    parts.push(
      `burst ×${entry.bursts.multiplier} for ${formatDuration(entry.bursts.for)} every ${formatDuration(entry.bursts.every)}`,
    );
  }
  for (const spike of entry.cardinality_spikes) {
    parts.push(
      `spike ${spike.label}×${spike.cardinality} for ${formatDuration(spike.for)} every ${formatDuration(spike.every)}`,
    );
  }
  return parts.join('; ');
}

/** `key=value` pairs of a config object's fields other than its type. */
function params(config: object): string {
  return Object.entries(config)
    .filter(([key, value]) => key !== 'type' && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : value}`)
    .join(' ');
}
