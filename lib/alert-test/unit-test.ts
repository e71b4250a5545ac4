/**
 * The `promtool test rules` unit test of a sampled scenario: its series as input (promtool's
 * expanding notation), the rules files, and PromQL checks of the `ALERTS` series the rules write.
 */
import { stringify } from 'yaml';
import type { AlertExpectation } from '../language/fields.js';
import type { Sampling } from './sampling.js';
import { promDuration } from '../format.js';

/** One check of a unit test: `expr` evaluated at `atMs` gives the single sample `{} value`. */
export interface Check {
  readonly expr: string;
  readonly atMs: number;
  readonly value: 0 | 1;
}

/**
 * 1 at an evaluation where an alert matching `expectation` (its name, state firing, and every
 * label given) is firing, else 0. `ALERTS` is written by the rule evaluations of the test itself.
 */
export function firingExpr({ alert, labels = {} }: Pick<AlertExpectation, 'alert' | 'labels'>): string {
  const matchers = [
    `alertname=${quote(alert)}`,
    'alertstate="firing"',
    ...Object.entries(labels).map(([key, value]) => `${key}=${quote(value)}`),
  ];
  return `(count(ALERTS{${matchers.join(',')}}) > bool 0 or vector(0))`;
}

/**
 * Whether the alert fired at some evaluation from step `from` to step `to` (`value` 1), or stopped
 * firing at one of them (`value` 0, with `min_over_time`): a subquery over exactly those steps.
 * The range reaches half a step past the first one, so whether promtool's subquery range is
 * closed or left-open, its first point is step `from`.
 *
 * A subquery holds every matching `ALERTS` sample of its range at once, and promtool's engine refuses a query
 * that holds more than it allows (10,000 samples in promtool 2.42); so the steps are split into subqueries of
 * at most `window` steps each (counted from `from`), offset to their place, whose answers are combined: one
 * that fired makes the max 1, one that stopped firing makes the min 0. The engine frees each subquery's samples
 * once its answer is computed, so the query holds one window's at a time.
 */
export function overSteps(
  expectation: AlertExpectation,
  intervalMs: number,
  from: number,
  to: number,
  value: 0 | 1,
  window = Infinity,
): Check {
  const over = value === 1 ? 'max_over_time' : 'min_over_time';
  const step = promDuration(intervalMs);
  const parts: string[] = [];
  for (let first = from; first <= to; first += window) {
    const last = Math.min(to, first + window - 1);
    const range = (last - first) * intervalMs + intervalMs / 2;
    const offset = last < to ? ` offset ${promDuration((to - last) * intervalMs)}` : '';
    parts.push(`${over}(${firingExpr(expectation)}[${promDuration(range)}:${step}]${offset})`);
  }
  return {
    expr: parts.length === 1 ? parts[0]! : value === 1 ? `clamp_max(${parts.join(' + ')}, 1)` : parts.join(' * '),
    atMs: to * intervalMs,
    value,
  };
}

/**
 * The unit test as YAML: `rulesFiles` (absolute paths: promtool reads them relative to the test file; each written as
 * a glob that matches only it), the order promtool evaluates their groups in (`groupOrder`, their names) and the
 * checks.
 */
export function unitTest(
  sampling: Sampling,
  rulesFiles: readonly string[],
  checks: readonly Check[],
  groupOrder: readonly string[] = [],
): string {
  const interval = promDuration(sampling.intervalMs);
  return stringify(
    {
      rule_files: rulesFiles.map(literalGlob),
      evaluation_interval: interval,
      ...(groupOrder.length ? { group_eval_order: groupOrder } : {}),
      tests: [
        {
          interval,
          input_series: sampling.series.map(({ series, values }) => ({ series, values: expandingNotation(values) })),
          promql_expr_test: checks.map(({ expr, atMs, value }) => ({
            expr,
            eval_time: promDuration(atMs),
            exp_samples: [{ labels: '{}', value }],
          })),
        },
      ],
    },
    { lineWidth: 0 },
  );
}

/**
 * `values` (NaN: no sample) in promtool's notation: `_` for a missing sample (`_xn` for n), `v+0xn`
 * for a value repeated n more times, `a+dxn` for a run of whole numbers rising by a whole `d`
 * (exact in floating point, as promtool computes it), else the value itself.
 */
export function expandingNotation(values: ArrayLike<number>): string {
  const parts: string[] = [];
  for (let i = 0; i < values.length; ) {
    const v = values[i]!;
    if (Number.isNaN(v)) {
      let n = 1;
      while (i + n < values.length && Number.isNaN(values[i + n]!)) n++;
      parts.push(n === 1 ? '_' : `_x${n}`);
      i += n;
      continue;
    }
    const next = values[i + 1];
    const d = next === undefined ? NaN : next - v;
    const wholeSteps = Number.isSafeInteger(v) && Number.isSafeInteger(d);
    let n = 0;
    if (d === 0 || wholeSteps) while (i + n + 1 < values.length && values[i + n + 1] === v + (n + 1) * d) n++;
    if (n >= 2 || (n === 1 && d === 0)) {
      parts.push(`${number(v)}${d < 0 ? '-' : '+'}${number(Math.abs(d))}x${n}`);
      i += n + 1;
    } else {
      parts.push(number(v));
      i++;
    }
  }
  return parts.join(' ');
}

function number(v: number): string {
  return Number.isFinite(v) ? String(v) : v > 0 ? 'Inf' : '-Inf';
}

/**
 * `path` as a glob pattern that matches only itself: promtool expands each of `rule_files` with Go's
 * `filepath.Glob`, so a path holding `[`, `*`, `?` or `\` would match other files or none (a rules file under
 * `alerts[prod]/` was silently not loaded: every alert read as not firing).
 */
function literalGlob(path: string): string {
  return path.replace(/[*?[\\]/g, '\\$&');
}

/** A PromQL string literal (JSON's escapes are Go's). */
function quote(text: string): string {
  return JSON.stringify(text);
}
