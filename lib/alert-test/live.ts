/**
 * `svc test --live`: the file's alert expectations decided against a running Prometheus (and
 * Alertmanager) while the scenario runs. Every poll asks whether each undecided alert is firing;
 * a range query over the time since the start then says exactly when it first fired (or, after
 * firing, first stopped), to the step of that query. A deadline is judged at the first poll at or
 * after it, with one range query over the whole time, which also finds an alert that fired
 * between two polls.
 */
import {
  EMPTY,
  concat,
  concatMap,
  defer,
  exhaustMap,
  from,
  ignoreElements,
  lastValueFrom,
  mergeMap,
  of,
  take,
  tap,
  timer,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import type { AlertExpectation } from '../language/fields.js';
import { alertName, alertsNotDefined, type Finding } from './check.js';
import type { AlertInbox, AlertState, AlertStates } from './live-backends.js';

/** Most points a range query asks for: Prometheus answers at most 11 000 per series. */
const MAX_POINTS = 10_000;
/** The finest step of a range query: Prometheus's rule evaluations are rarely closer than a second apart. */
const MIN_STEP_MS = 1000;

export interface WatchOptions {
  /** Scheduler time (epoch milliseconds on the live scheduler) of the scenario's start: times are counted from it. */
  readonly start: number;
  /** Time between two polls. */
  readonly pollMs: number;
  readonly scheduler: SchedulerLike;
  readonly prometheus: AlertStates;
  readonly alertmanager?: AlertInbox;
}

/** What is known of one expectation so far. */
interface Watch {
  readonly expectation: AlertExpectation;
  /** When it first fired, from the start. */
  firedAtMs?: number;
  /** True once its `firing_within` passed without it firing. */
  missed?: boolean;
  resolvedAfterMs?: number;
  /** True once resolution is decided: found, past its deadline, or not asked for. */
  resolutionKnown: boolean;
  /** Whether Alertmanager held it by its deadline: undefined until seen or past the deadline, then final. */
  inAlertmanager?: boolean;
}

/**
 * A {@link Finding} per expectation, each as soon as it is decided; completes when every one is.
 * Polls every `pollMs` of `scheduler` from subscription on; a poll still waiting for its answers
 * when the next is due skips it. Errors when a backend cannot be asked.
 *
 * Deadlines: firing, `firing_within` after the start; resolution, `resolves_within` after the
 * firing; Alertmanager, `firing_within` too, but at least one poll after the firing (Prometheus
 * hands an alert on right after the evaluation that fired it).
 */
export function watchAlerts(expectations: readonly AlertExpectation[], options: WatchOptions): Observable<Finding> {
  const { start, pollMs, scheduler, prometheus, alertmanager } = options;
  const elapsed = () => scheduler.now() - start;
  const history = (expectation: AlertExpectation, fromMs: number): Observable<readonly AlertState[]> =>
    defer(() => {
      const toMs = scheduler.now();
      const stepMs = Math.max(MIN_STEP_MS, Math.ceil((toMs - fromMs) / MAX_POINTS / MIN_STEP_MS) * MIN_STEP_MS);
      return prometheus.states(expectation, fromMs, toMs, stepMs);
    });

  const findFiring = (watch: Watch): Observable<never> =>
    defer(() => {
      if (watch.firedAtMs !== undefined) return EMPTY;
      const due = elapsed() >= watch.expectation.firing_within;
      return from(prometheus.firing(watch.expectation)).pipe(
        mergeMap((firing) => (firing || due ? history(watch.expectation, start) : EMPTY)),
        tap((states) => {
          const first = states.find(([, firing]) => firing);
          if (first) watch.firedAtMs = first[0] - start;
          else if (due) watch.missed = true;
        }),
        ignoreElements(),
      );
    });

  const askAlertmanager = (watch: Watch): Observable<never> =>
    defer(() => {
      if (!alertmanager || watch.firedAtMs === undefined || watch.inAlertmanager !== undefined) return EMPTY;
      const due = elapsed() >= Math.max(watch.expectation.firing_within, watch.firedAtMs + pollMs);
      return from(alertmanager.received(watch.expectation)).pipe(
        tap((received) => {
          if (received || due) watch.inAlertmanager = received;
        }),
        ignoreElements(),
      );
    });

  const findResolution = (watch: Watch): Observable<never> =>
    defer(() => {
      if (watch.firedAtMs === undefined || watch.resolutionKnown) return EMPTY;
      const firedAt = start + watch.firedAtMs;
      const due = elapsed() >= watch.firedAtMs + watch.expectation.resolves_within!;
      return from(prometheus.firing(watch.expectation)).pipe(
        mergeMap((firing) => (!firing || due ? history(watch.expectation, firedAt) : EMPTY)),
        tap((states) => {
          const first = states.find(([at, firing]) => at > firedAt && !firing);
          if (first) watch.resolvedAfterMs = first[0] - firedAt;
          watch.resolutionKnown = first !== undefined || due;
        }),
        ignoreElements(),
      );
    });

  return defer(() => {
    const pending = new Set<Watch>(
      expectations.map((expectation) => ({ expectation, resolutionKnown: expectation.resolves_within === undefined })),
    );
    const poll = (watch: Watch): Observable<Finding> =>
      concat(
        findFiring(watch),
        askAlertmanager(watch),
        findResolution(watch),
        defer(() => {
          const finding = decision(watch, alertmanager !== undefined);
          if (!finding) return EMPTY;
          pending.delete(watch);
          return of(finding);
        }),
      );
    return timer(0, pollMs, scheduler).pipe(
      exhaustMap(() => from([...pending]).pipe(concatMap(poll))),
      take(expectations.length),
    );
  });
}

/** The finding of a watch, once everything it needs is known. */
function decision(watch: Watch, askingAlertmanager: boolean): Finding | undefined {
  const { expectation, firedAtMs, resolvedAfterMs, inAlertmanager } = watch;
  if (watch.missed) return { expectation, passed: false };
  if (firedAtMs === undefined || !watch.resolutionKnown || (askingAlertmanager && inAlertmanager === undefined))
    return undefined;
  const within = expectation.resolves_within;
  const resolved = within === undefined || (resolvedAfterMs !== undefined && resolvedAfterMs <= within);
  return {
    expectation,
    firedAtMs,
    resolvedAfterMs,
    inAlertmanager,
    passed: firedAtMs <= expectation.firing_within && inAlertmanager !== false && resolved,
  };
}

/**
 * Throws when an expected alert is already firing in Prometheus, or already held by Alertmanager,
 * before the scenario starts: a live test counts from a quiet start, or it would pass on an alert
 * of some earlier run. Also the first contact with each backend: one that cannot be reached fails here.
 * Throws too when Prometheus lists its alerting rules and an expected alert is none of them: a misspelt name
 * could only fail as not firing, after waiting its whole `firing_within`. Gives a warning when it lists none: its
 * alerts are trusted to come from another ruler, but a Prometheus whose rules did not load could only fail them so.
 */
export async function requireQuiet(
  expectations: readonly AlertExpectation[],
  { prometheus, alertmanager }: Pick<WatchOptions, 'prometheus' | 'alertmanager'>,
): Promise<string[]> {
  const rules = prometheus.alertRules ? await lastValueFrom(from(prometheus.alertRules())) : undefined;
  const unknown = rules?.length ? alertsNotDefined(expectations, rules, prometheus.name) : [];
  if (unknown.length) throw new Error(unknown.join('\n'));
  const warnings =
    rules?.length === 0
      ? [
          `${prometheus.name} lists no alerting rules: the expected alerts can fire only if another ruler (vmalert, a Prometheus remote-writing its ALERTS) writes them there; if it should evaluate them itself, its rule_files did not load them, and each would fail as not firing after its firing_within`,
        ]
      : [];
  for (const expectation of expectations) {
    if (await lastValueFrom(from(prometheus.firing(expectation)))) {
      throw new Error(
        `${alertName(expectation)} is already firing in ${prometheus.name}: a live test starts with the alert quiet (wait until it resolves)`,
      );
    }
    if (alertmanager && (await lastValueFrom(from(alertmanager.received(expectation))))) {
      throw new Error(
        `${alertName(expectation)} is already in ${alertmanager.name}: a live test starts with the alert quiet (wait until it resolves)`,
      );
    }
  }
  return warnings;
}
