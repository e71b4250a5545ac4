import { expect } from 'chai';
import { of, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { findingLine } from '../../lib/alert-test/check.js';
import type { AlertInbox, AlertState, AlertStates } from '../../lib/alert-test/live-backends.js';
import { requireQuiet, watchAlerts } from '../../lib/alert-test/live.js';
import type { AlertExpectation } from '../../lib/language/fields.js';

const S = 1000;

/** A Prometheus whose alert fires over these [from, to) spans of virtual time; it knows nothing of the future. */
function fakePrometheus(
  scheduler: TestScheduler,
  spans: [number, number][],
): AlertStates & { ranges: [number, number, number][] } {
  const firingAt = (t: number) => spans.some(([from, to]) => t >= from && t < to);
  const ranges: [number, number, number][] = [];
  return {
    name: 'Prometheus at http://fake',
    ranges,
    firing: () => of(firingAt(scheduler.now())),
    states: (_, fromMs, toMs, stepMs) => {
      expect(toMs).to.be.at.most(scheduler.now());
      ranges.push([fromMs, toMs, stepMs]);
      const states: AlertState[] = [];
      for (let t = fromMs; t <= toMs; t += stepMs) states.push([t, firingAt(t)]);
      return of(states);
    },
  };
}

/** An Alertmanager that holds the alert from `from` on. */
const fakeAlertmanager = (scheduler: TestScheduler, from = Infinity): AlertInbox => ({
  name: 'Alertmanager at http://fake',
  received: () => of(scheduler.now() >= from),
});

/** Runs the watch on virtual time: each PASS/FAIL line with the virtual time it was decided at, and when the watch completed. */
function watch(
  expectations: AlertExpectation[],
  spans: [number, number][],
  options: { pollMs?: number; alertmanagerFrom?: number } = {},
) {
  const scheduler = new TestScheduler(() => undefined);
  scheduler.maxFrames = Infinity;
  const prometheus = fakePrometheus(scheduler, spans);
  const alertmanager =
    options.alertmanagerFrom === undefined ? undefined : fakeAlertmanager(scheduler, options.alertmanagerFrom);
  const decided: [number, string][] = [];
  let completedAt: number | undefined;
  watchAlerts(expectations, {
    start: 0,
    pollMs: options.pollMs ?? 5 * S,
    scheduler,
    prometheus,
    alertmanager,
  }).subscribe({
    next: (finding) => decided.push([scheduler.now(), findingLine(finding)]),
    complete: () => (completedAt = scheduler.now()),
  });
  scheduler.flush();
  return { decided, completedAt, ranges: prometheus.ranges };
}

describe('watchAlerts: live alert expectations decided by polling, on virtual time', () => {
  it('passes at the first poll that sees the alert firing, with the firing time of the range query', () => {
    const { decided, completedAt, ranges } = watch([{ alert: 'High', firing_within: 30 * S }], [[7 * S, Infinity]]);
    expect(decided).to.deep.equal([[10 * S, 'PASS High firing after 7s (within 30s)']]);
    expect(completedAt).to.equal(10 * S);
    expect(ranges).to.deep.equal([[0, 10 * S, S]]);
  });

  it('fails an alert that never fires at the first poll at or after firing_within, not before', () => {
    const { decided, completedAt } = watch([{ alert: 'High', firing_within: 28 * S }], []);
    expect(decided).to.deep.equal([[30 * S, 'FAIL High not firing within 28s']]);
    expect(completedAt).to.equal(30 * S);
  });

  it('reports an alert that fired after its deadline but before the deciding poll as late', () => {
    const { decided } = watch([{ alert: 'High', firing_within: 28 * S }], [[29 * S, Infinity]]);
    expect(decided).to.deep.equal([[30 * S, 'FAIL High firing after 29s (not within 28s)']]);
  });

  it('finds an alert that fired and resolved between two polls at the deadline', () => {
    const { decided } = watch([{ alert: 'High', firing_within: 30 * S }], [[6 * S, 8 * S]]);
    expect(decided).to.deep.equal([[30 * S, 'PASS High firing after 6s (within 30s)']]);
  });

  it('after firing, waits for the resolution and times it from the firing', () => {
    const { decided } = watch([{ alert: 'High', firing_within: 30 * S, resolves_within: 30 * S }], [[7 * S, 20 * S]]);
    expect(decided).to.deep.equal([
      [20 * S, 'PASS High firing after 7s (within 30s), resolved 13s later (within 30s)'],
    ]);
  });

  it('fails a resolution that does not come within resolves_within of the firing', () => {
    const { decided } = watch([{ alert: 'High', firing_within: 30 * S, resolves_within: 10 * S }], [[7 * S, Infinity]]);
    expect(decided).to.deep.equal([[20 * S, 'FAIL High firing after 7s (within 30s), not resolved within 10s']]);
  });

  it('decides each expectation on its own (a blip between polls at its deadline) and completes with the last', () => {
    const { decided, completedAt } = watch(
      [
        { alert: 'High', firing_within: 60 * S },
        { alert: 'High', firing_within: 20 * S, resolves_within: 5 * S },
      ],
      [[12 * S, 14 * S]],
    );
    expect(decided).to.deep.equal([
      [20 * S, 'PASS High firing after 12s (within 20s), resolved 2s later (within 5s)'],
      [60 * S, 'PASS High firing after 12s (within 1m)'],
    ]);
    expect(completedAt).to.equal(60 * S);
  });

  it('with an Alertmanager, passes once it holds the alert', () => {
    const { decided } = watch([{ alert: 'High', firing_within: 30 * S }], [[7 * S, Infinity]], {
      alertmanagerFrom: 12 * S,
    });
    expect(decided).to.deep.equal([[15 * S, 'PASS High firing after 7s (within 30s), in Alertmanager']]);
  });

  it('fails an alert Alertmanager does not hold by firing_within, or one poll after a late firing', () => {
    expect(
      watch([{ alert: 'High', firing_within: 30 * S }], [[7 * S, Infinity]], { alertmanagerFrom: Infinity }).decided,
    ).to.deep.equal([[30 * S, 'FAIL High firing after 7s (within 30s), not seen in Alertmanager']]);
    expect(
      watch([{ alert: 'High', firing_within: 10 * S }], [[9 * S, Infinity]], { alertmanagerFrom: 14 * S }).decided,
    ).to.deep.equal([[15 * S, 'PASS High firing after 9s (within 10s), in Alertmanager']]);
  });

  it('keeps a missed Alertmanager deadline missed while the resolution is awaited', () => {
    const { decided } = watch([{ alert: 'High', firing_within: 30 * S, resolves_within: 60 * S }], [[7 * S, 40 * S]], {
      alertmanagerFrom: 35 * S,
    });
    expect(decided).to.deep.equal([
      [40 * S, 'FAIL High firing after 7s (within 30s), not seen in Alertmanager, resolved 33s later (within 1m)'],
    ]);
  });

  it('asks range queries of at most 10 000 points, in whole seconds', () => {
    const { ranges } = watch([{ alert: 'High', firing_within: 24 * 3600 * S }], [], { pollMs: 3600 * S });
    const [, , step] = ranges.at(-1)!;
    expect(ranges.at(-1)).to.deep.equal([0, 24 * 3600 * S, 9 * S]);
    expect((24 * 3600 * S) / step).to.be.at.most(10_000);
  });

  it('errors when Prometheus cannot be asked', () => {
    const scheduler = new TestScheduler(() => undefined);
    const prometheus: AlertStates = {
      name: 'p',
      firing: () => throwError(() => new Error('cannot reach Prometheus at http://fake')),
      states: () => of([]),
    };
    let failure: Error | undefined;
    watchAlerts([{ alert: 'High', firing_within: 30 * S }], {
      start: 0,
      pollMs: 5 * S,
      scheduler,
      prometheus,
    }).subscribe({ error: (error: Error) => (failure = error) });
    scheduler.flush();
    expect(failure?.message).to.equal('cannot reach Prometheus at http://fake');
  });
});

describe('requireQuiet: a live test starts with its alerts quiet', () => {
  const scheduler = new TestScheduler(() => undefined);
  it('refuses an alert already firing in Prometheus, or already in Alertmanager', async () => {
    const expectations = [{ alert: 'High', labels: { severity: 'page' }, firing_within: 30 * S }];
    const firing = fakePrometheus(scheduler, [[0, Infinity]]);
    const quiet = fakePrometheus(scheduler, []);
    const refused = (promise: Promise<unknown>) =>
      promise.then(
        () => 'accepted',
        (error: Error) => error.message,
      );
    expect(await refused(requireQuiet(expectations, { prometheus: firing }))).to.equal(
      'High{severity="page"} is already firing in Prometheus at http://fake: a live test starts with the alert quiet (wait until it resolves)',
    );
    expect(
      await refused(requireQuiet(expectations, { prometheus: quiet, alertmanager: fakeAlertmanager(scheduler, 0) })),
    ).to.equal(
      'High{severity="page"} is already in Alertmanager at http://fake: a live test starts with the alert quiet (wait until it resolves)',
    );
    expect(
      await refused(requireQuiet(expectations, { prometheus: quiet, alertmanager: fakeAlertmanager(scheduler) })),
    ).to.equal('accepted');
  });

  it('refuses an alert none of the alerting rules Prometheus lists defines, and trusts a store that lists none, with a warning', async () => {
    // A misspelt name could only fail as not firing, after the whole firing_within; a store that lists no rules
    // (VictoriaMetrics, whose alerts vmalert writes) cannot say.
    const expectations = [{ alert: 'Hihg', firing_within: 30 * S }];
    const listing = (rules: string[]) => ({ ...fakePrometheus(scheduler, []), alertRules: () => of(rules) });
    const refused = await requireQuiet(expectations, { prometheus: listing(['High', 'Low']) }).then(
      () => 'accepted',
      (error: Error) => error.message,
    );
    expect(refused).to.equal(
      'expect.alerts[0].alert: Prometheus at http://fake has no alerting rule "Hihg" (did you mean High?) (its alerts: High, Low)',
    );
    expect(await requireQuiet(expectations, { prometheus: listing(['Hihg']) })).to.deep.equal([]);
    // A Prometheus whose rule_files did not load would let the test wait its whole firing_within, then fail.
    expect(await requireQuiet(expectations, { prometheus: listing([]) })).to.deep.equal([
      'Prometheus at http://fake lists no alerting rules: the expected alerts can fire only if another ruler (vmalert, a Prometheus remote-writing its ALERTS) writes them there; if it should evaluate them itself, its rule_files did not load them, and each would fail as not firing after its firing_within',
    ]);
    expect(await requireQuiet(expectations, { prometheus: fakePrometheus(scheduler, []) })).to.deep.equal([]);
  });
});
