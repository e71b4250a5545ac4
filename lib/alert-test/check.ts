/**
 * Checks a file's alert expectations with promtool: when each alert first fires (and resolves)
 * is found by bisection, each probe a promtool run of the unit test with one PromQL check; the
 * final unit test states the expectations themselves, and its promtool run gives the verdict.
 */
import { parseAllDocuments } from 'yaml';
import type { AlertExpectation } from '../language/fields.js';
import { closest } from '../language/problems.js';
import { promDuration } from '../format.js';
import { promtoolWords, type PromtoolResult } from './promtool.js';
import type { Sampling } from './sampling.js';
import { overSteps, type Check } from './unit-test.js';

/**
 * Prometheus's lookback: a series is read this long after its last sample, so an alert can still change after
 * the data ends.
 */
const LOOKBACK_MS = 5 * 60_000;

/**
 * promtool's words for a check's query over more samples than its engine allows at once (a rule's own query over
 * them is reported as `rule: <name>, …`: no window of the probe helps).
 */
const TOO_MANY_SAMPLES = /\bexpr: .*\berr: query processing would load too many samples into memory/;

/**
 * Most rule evaluations a promtool run of svc test is asked for: promtool evaluates every rule at every step up to
 * a check's time, about 5 s per 40 000 steps (a week at 15s) of a small rules file, far below its 60 s limit.
 */
export const MAX_EVALUATIONS = 100_000;

/** Runs promtool on the unit test of the sampling with these checks (and no other). */
export type RunChecks = (checks: readonly Check[]) => Promise<PromtoolResult>;

/** What was found of one expectation. */
export interface Finding {
  readonly expectation: AlertExpectation;
  /** When the alert first fired, from the file's start; undefined when it never did. */
  readonly firedAtMs?: number;
  /** How long after firing it first stopped (when `resolves_within` is given); undefined when it did not. */
  readonly resolvedAfterMs?: number;
  /** Whether the alert reached Alertmanager (`svc test --live --alertmanager`); undefined when not asked. */
  readonly inAlertmanager?: boolean;
  readonly passed: boolean;
}

export interface Outcome {
  readonly findings: readonly Finding[];
  /** The checks of the expectations, as the unit test left for inspection states them. */
  readonly checks: readonly Check[];
  /** promtool's verdict on them. */
  readonly result: PromtoolResult;
}

/**
 * Checks every expectation. Firing is searched over the steps from 0 to the last one that could
 * matter (the end of `firing_within`, or of the data and the lookback after it); "has fired by
 * step k" only turns from false to true as k grows, so bisection finds the first step in
 * log2(steps) runs, up to `firing_within` first and past it only when the alert did not fire by then. Resolving is
 * searched the same way from the step after the first firing, up to `resolves_within` after it first.
 * A probe over more samples than promtool's engine holds in one query is asked again in windows of steps.
 * Throws when promtool refuses the unit test itself (a bad rules file), or fails a check otherwise than by its
 * verdict (an evaluation error), with its output.
 */
export async function checkExpectations(
  sampling: Sampling,
  expectations: readonly AlertExpectation[],
  run: RunChecks,
): Promise<Outcome> {
  const refused = await run([]);
  if (!refused.passed) throw new Error(`promtool refused the unit test${promtoolWords(refused)}`);
  const { intervalMs } = sampling;
  const steps = (ms: number) => Math.floor(ms / intervalMs);
  const lastStep = lastDataStep(sampling);
  // Steps per subquery of a probe (unit-test.ts's overSteps): all at first, halved while promtool's query sample
  // limit is hit. A power of two below the span, so smaller windows nest in the larger ones a probe already ran.
  let window = Infinity;
  const probe = (expectation: AlertExpectation, from: number, to: number, value: 0 | 1) =>
    overSteps(expectation, intervalMs, from, to, value, window);
  const holds = async (expectation: AlertExpectation, from: number, to: number, value: 0 | 1) => {
    for (;;) {
      const result = await run([probe(expectation, from, to, value)]);
      const { passed, output } = result;
      // A check that does not hold says what it expected and got; any other failure is promtool's (a query over
      // too many samples even in windows of one step), which must not read as "not firing".
      if (passed || /\bexp:[\s\S]*\bgot:/.test(output)) return passed;
      const span = Math.min(window, to - from + 1);
      if (!TOO_MANY_SAMPLES.test(output) || span === 1)
        throw new Error(`promtool could not evaluate the rules over the scenario's samples${promtoolWords(result)}`);
      window = 2 ** Math.ceil(Math.log2(span) - 1);
    }
  };

  const findings: Finding[] = [];
  // The checks of the unit test left for inspection, written with the last window once the probes are done.
  const stated: Parameters<typeof probe>[] = [];
  for (const expectation of expectations) {
    const fired = await firstStepBy(0, steps(expectation.firing_within), lastStep, (k) => holds(expectation, 0, k, 1));
    stated.push([expectation, 0, steps(expectation.firing_within), 1]);
    const firedAtMs = fired === undefined ? undefined : fired * intervalMs;
    const firedInTime = firedAtMs !== undefined && firedAtMs <= expectation.firing_within;
    const within = expectation.resolves_within;
    if (within === undefined || fired === undefined) {
      findings.push({ expectation, firedAtMs, passed: firedInTime });
      continue;
    }
    const resolved = await firstStepBy(fired + 1, fired + steps(within), lastStep, (k) =>
      holds(expectation, fired + 1, k, 0),
    );
    const resolvedAfterMs = resolved === undefined ? undefined : (resolved - fired) * intervalMs;
    if (firedInTime) stated.push([expectation, fired + 1, fired + steps(within), 0]);
    findings.push({
      expectation,
      firedAtMs,
      resolvedAfterMs,
      passed: firedInTime && resolvedAfterMs !== undefined && resolvedAfterMs <= within,
    });
  }
  const checks = stated.map((args) => probe(...args));
  return { findings, checks, result: await run(checks) };
}

/** The last step at which the sampled data can still change an alert: its end and Prometheus's lookback after it. */
function lastDataStep({ steps, intervalMs }: Pick<Sampling, 'steps' | 'intervalMs'>): number {
  return steps - 1 + Math.ceil(LOOKBACK_MS / intervalMs);
}

/**
 * What would make promtool evaluate the rules at more than {@link MAX_EVALUATIONS} steps (a `firing_within` of
 * days at 1s), named by its field; undefined when nothing does. The probes evaluate up to the later of the data's
 * end (with the lookback) and `firing_within`, then `resolves_within` after the firing. `sampling` may be the
 * least steps known before sampling (leastSteps), so that a test refused is refused before its costly sampling.
 */
export function tooManyEvaluations(
  sampling: Pick<Sampling, 'steps' | 'intervalMs'>,
  expectations: readonly AlertExpectation[],
): string | undefined {
  const { intervalMs } = sampling;
  const at = `rule evaluations at ${promDuration(intervalMs)} (--interval): promtool evaluates every rule at each, and svc test asks for at most ${MAX_EVALUATIONS}`;
  const steps = (ms: number) => Math.floor(ms / intervalMs) + 1;
  const data = lastDataStep(sampling) + 1;
  if (data > MAX_EVALUATIONS)
    return `the scenario's samples and the 5m lookback after them are ${data} ${at}: give a shorter duration or a longer --interval`;
  for (const [i, { firing_within, resolves_within = 0 }] of expectations.entries()) {
    const firing = steps(firing_within);
    if (firing > MAX_EVALUATIONS)
      return `expect.alerts[${i}].firing_within: ${promDuration(firing_within)} is ${firing} ${at}: give a shorter firing_within or a longer --interval`;
    // A firing is searched up to the later of the two; its resolution, resolves_within after it.
    const resolving = Math.max(data, firing) + steps(resolves_within);
    if (resolves_within > 0 && resolving > MAX_EVALUATIONS)
      return `expect.alerts[${i}].resolves_within: ${promDuration(resolves_within)} after a firing found up to ${promDuration((Math.max(data, firing) - 1) * intervalMs)} is up to ${resolving} ${at}: give a shorter resolves_within or a longer --interval`;
  }
  return undefined;
}

/**
 * The first k from `from` on, up to the later of `deadline` and `last`, where `holds` (as {@link firstStep}), looked
 * for up to the deadline first: every probe makes promtool evaluate the rules at each step up to its k, so an alert
 * that keeps its deadline (the usual case) is found without evaluating the rest of a long scenario; one that does not
 * costs a single probe more.
 */
async function firstStepBy(
  from: number,
  deadline: number,
  last: number,
  holds: (k: number) => Promise<boolean>,
): Promise<number | undefined> {
  const inTime = await firstStep(from, deadline, holds);
  return inTime !== undefined || deadline >= last ? inTime : firstStep(deadline + 1, last, holds);
}

/** The first k of [from, to] where `holds` (false, then true from some k on), or undefined when it never does. */
async function firstStep(
  from: number,
  to: number,
  holds: (k: number) => Promise<boolean>,
): Promise<number | undefined> {
  if (!(await holds(to))) return undefined;
  let [low, high] = [from, to];
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (await holds(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Alert names a message lists at most. */
const LISTED_ALERTS = 10;

/**
 * A rules file given to svc test: its name as given, and its rule groups, parsed once ({@link rulesFile});
 * undefined when the text is not a rules file as Prometheus reads it (promtool then says what is wrong with it).
 */
export interface RulesFile {
  readonly file: string;
  readonly groups: readonly RuleGroup[] | undefined;
}

/** The rules file `file` of `text`: its groups parsed for every check that reads them. */
export function rulesFile(file: string, text: string): RulesFile {
  return { file, groups: ruleGroups(text) };
}

/**
 * A problem per expectation whose alert no alerting rule of the rules files defines: it could only fail as "not
 * firing", which hides a misspelt name. None when a text is not a rules file as Prometheus reads it (YAML with
 * `groups[].rules[]`): promtool then says what is wrong with it.
 */
export function alertsNotInRules(
  expectations: readonly AlertExpectation[],
  rulesFiles: readonly RulesFile[],
): string[] {
  const groups = rulesFiles.map((rules) => rules.groups);
  if (groups.some((of) => of === undefined)) return [];
  const alerts = [
    ...new Set(
      groups
        .flat()
        .flatMap((group) =>
          Array.isArray(group?.rules) ? group.rules.map((rule: { alert?: unknown } | null) => rule?.alert) : [],
        ),
    ),
  ].filter((alert): alert is string => typeof alert === 'string');
  const names = rulesFiles.map(({ file }) => file);
  return names.length === 1
    ? alertsNotDefined(expectations, alerts, `the rules file ${names[0]}`)
    : alertsNotDefined(expectations, alerts, `the rules files ${names.join(', ')}`, true);
}

/**
 * A problem per expectation whose alert is none of `alerts`, the alerting rules `holder` (`the rules file rules.yml`,
 * `Prometheus at <url>`; `the rules files a.yml, b.yml`, `plural`) defines, with the close name of a typo and the
 * alerts it has.
 */
export function alertsNotDefined(
  expectations: readonly AlertExpectation[],
  alerts: readonly string[],
  holder: string,
  plural = false,
): string[] {
  const [has, its] = plural ? ['have', 'their'] : ['has', 'its'];
  const listed =
    alerts.length === 0
      ? `${plural ? 'they have' : 'it has'} no alerting rules`
      : `${its} alerts: ${alerts.slice(0, LISTED_ALERTS).join(', ')}${alerts.length > LISTED_ALERTS ? `, and ${alerts.length - LISTED_ALERTS} more` : ''}`;
  return expectations.flatMap(({ alert }, i) => {
    if (alerts.includes(alert)) return [];
    const near = closest(alert, alerts);
    return [
      `expect.alerts[${i}].alert: ${holder} ${has} no alerting rule "${alert}"${near ? ` (did you mean ${near}?)` : ''} (${listed})`,
    ];
  });
}

/**
 * The names of the rule groups of the rules files, in the order written (each once): promtool evaluates the groups
 * of a unit test in its `group_eval_order`, and without one in an order that changes from run to run, so an alert on
 * another group's recorded series fired one evaluation earlier or later between the probes of one test.
 */
export function ruleGroupOrder(rulesFiles: readonly RulesFile[]): string[] {
  const names = rulesFiles.flatMap(({ groups }) => (groups ?? []).map((group) => group?.name));
  return [...new Set(names.filter((name): name is string => typeof name === 'string'))];
}

/**
 * A warning per rules file whose groups svc cannot read (promtool may still load them: they are left out of
 * {@link ruleGroupOrder}), and per rule group name in more than one of the rules files (promtool ranks the groups
 * of its `group_eval_order` by name alone): those groups are evaluated in an order that changes from run to run.
 */
export function groupOrderWarnings(rulesFiles: readonly RulesFile[]): string[] {
  const unread: string[] = [];
  const filesOf = new Map<string, string[]>();
  for (const { file, groups } of rulesFiles) {
    if (!groups)
      unread.push(
        `${file}: svc test cannot read its rule groups (YAML with a groups list), so the order promtool evaluates them in is not fixed: an alert on a series another group records can fire one evaluation (--interval) earlier or later between the probes of a test`,
      );
    for (const group of groups ?? []) {
      if (typeof group?.name !== 'string') continue;
      const files = filesOf.get(group.name) ?? [];
      // A name repeated in one file is promtool's to refuse.
      if (!files.includes(file)) filesOf.set(group.name, [...files, file]);
    }
  }
  const shared = [...filesOf]
    .filter(([, files]) => files.length > 1)
    .map(
      ([name, files]) =>
        `rule group "${name}" is in ${files.slice(0, -1).join(', ')} and ${files.at(-1)}: promtool orders a unit test's groups by name alone, so these run in an order that changes from run to run, and an alert on a series one of them records can fire one evaluation (--interval) earlier or later between the probes of a test; give the groups different names`,
    );
  return [...unread, ...shared];
}

/**
 * A warning per rule group whose own `interval:` is not `intervalMs`: promtool evaluates every group at the unit
 * test's one evaluation interval, where Prometheus evaluates that group at its own, so its alerts' times can be off
 * by up to the longer of the two. None when the text is not a rules file Prometheus reads.
 */
export function groupIntervalWarnings({ file, groups }: RulesFile, intervalMs: number): string[] {
  return (groups ?? []).flatMap((group) => {
    const interval = typeof group?.interval === 'string' ? promDurationMs(group.interval) : undefined;
    if (interval === undefined || interval === intervalMs) return [];
    return [
      `${file}: group "${String(group!.name)}" has interval: ${group!.interval}, but svc test evaluates every group every ${promDuration(intervalMs)} (--interval), as promtool does: the times of its alerts can differ from Prometheus's by up to ${promDuration(Math.max(interval, intervalMs))}; give --interval ${promDuration(interval)} to test it as Prometheus evaluates it`,
    ];
  });
}

/** A rule group of a rules file as parsed: any field may be missing or of another type (promtool says so). */
type RuleGroup = { name?: unknown; interval?: unknown; rules?: unknown } | null;

/**
 * The `groups` of a rules file as Prometheus reads it (YAML with a `groups` list, in its first document: Prometheus
 * reads no other); undefined otherwise. A file with no groups (empty, only comments, `{}`, `groups:` with nothing
 * under it) is one Prometheus loads with no rules.
 */
function ruleGroups(rulesText: string): RuleGroup[] | undefined {
  try {
    const [first] = parseAllDocuments(rulesText);
    if (first?.errors.length) return undefined;
    const rules = first?.toJS() as unknown;
    if (rules === null || rules === undefined) return [];
    const keys = typeof rules === 'object' && !Array.isArray(rules) ? Object.keys(rules) : undefined;
    const { groups } = rules as { groups?: unknown };
    // `{}` and `groups:` (null) are no groups; a list or a scalar is no rules file.
    if (keys?.length === 0 || (groups === null && keys?.length === 1)) return [];
    return Array.isArray(groups) ? groups : undefined;
  } catch {
    return undefined;
  }
}

/** Prometheus's units of a duration (`1h30m`, `2d`, `500ms`; a year is 365 days). */
const PROM_UNITS: [string, number][] = [
  ['y', 365 * 86_400_000],
  ['w', 7 * 86_400_000],
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
];
const PROM_DURATION = new RegExp(`^${PROM_UNITS.map(([unit]) => `(?:(\\d+)${unit})?`).join('')}$`);

/** A duration as Prometheus writes it in a rules file, in ms; undefined when it is not one (promtool says so). */
function promDurationMs(text: string): number | undefined {
  const match = text === '' ? null : PROM_DURATION.exec(text);
  return match ? PROM_UNITS.reduce((ms, [, size], i) => ms + Number(match[i + 1] ?? 0) * size, 0) : undefined;
}

/** `PASS <alert> firing after <t> (within <d>)`, or `FAIL …` saying what did not happen in time. */
export function findingLine({ expectation, firedAtMs, resolvedAfterMs, inAlertmanager, passed }: Finding): string {
  const within = promDuration(expectation.firing_within);
  let text =
    firedAtMs === undefined
      ? `${alertName(expectation)} not firing within ${within}`
      : `${alertName(expectation)} firing after ${promDuration(firedAtMs)} (${firedAtMs <= expectation.firing_within ? 'within' : 'not within'} ${within})`;
  if (firedAtMs !== undefined && inAlertmanager !== undefined)
    text += inAlertmanager ? ', in Alertmanager' : ', not seen in Alertmanager';
  const resolveWithin = expectation.resolves_within;
  if (firedAtMs !== undefined && resolveWithin !== undefined) {
    text +=
      resolvedAfterMs === undefined
        ? `, not resolved within ${promDuration(resolveWithin)}`
        : `, resolved ${promDuration(resolvedAfterMs)} later (${resolvedAfterMs <= resolveWithin ? 'within' : 'not within'} ${promDuration(resolveWithin)})`;
  }
  return `${passed ? 'PASS' : 'FAIL'} ${text}`;
}

/** `FAIL <alert> undecided: …`, for an expectation the test stopped before it could decide. */
export function undecidedLine(expectation: AlertExpectation, why: string): string {
  return `FAIL ${alertName(expectation)} undecided: ${why}`;
}

/** The alert as PASS and FAIL lines and messages name it: `HighErrorRate{severity="page"}`. */
export function alertName({ alert, labels = {} }: Pick<AlertExpectation, 'alert' | 'labels'>): string {
  const pairs = Object.entries(labels);
  return `${alert}${pairs.length ? `{${pairs.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(',')}}` : ''}`;
}
