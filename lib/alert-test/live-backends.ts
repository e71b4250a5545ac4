/**
 * What `svc test --live` asks the running backends: Prometheus, whether an expected alert is
 * firing (its `ALERTS` series) now and at each step of a time range; Alertmanager, whether it
 * holds the alert.
 */
import type { ObservableInput } from 'rxjs';
import type { AlertExpectation } from '../language/fields.js';
import type { HttpApi } from './http-api.js';
import { firingExpr } from './unit-test.js';

/** The alert's state at one instant: epoch milliseconds, and whether an alert matching the expectation was firing. */
export type AlertState = readonly [atMs: number, firing: boolean];

/** Prometheus, as the live test reads it (an observable input, so that specs can answer on virtual time). */
export interface AlertStates {
  readonly name: string;
  /** Whether an alert matching the expectation (name, state firing, the labels given) is firing now. */
  firing(expectation: AlertExpectation): ObservableInput<boolean>;
  /** Its state at `fromMs`, `fromMs + stepMs`, … up to `toMs` (a range query). */
  states(
    expectation: AlertExpectation,
    fromMs: number,
    toMs: number,
    stepMs: number,
  ): ObservableInput<readonly AlertState[]>;
  /**
   * The names of the alerting rules it evaluates, or none when it lists none (a store whose alerts another ruler
   * writes, such as VictoriaMetrics without vmalert, answers an empty list); undefined when not asked.
   */
  alertRules?(): ObservableInput<readonly string[]>;
}

/** Alertmanager, as the live test reads it. */
export interface AlertInbox {
  readonly name: string;
  /** Whether it holds an alert matching the expectation (active, silenced or inhibited alike). */
  received(expectation: AlertExpectation): ObservableInput<boolean>;
}

/** Prometheus's HTTP API (`/api/v1/query`, `/api/v1/query_range`). */
export function prometheusStates(api: HttpApi): AlertStates {
  const result = (answer: unknown, type: 'vector' | 'matrix', path: string): unknown[] => {
    const { status, data } = (answer ?? {}) as { status?: unknown; data?: { resultType?: unknown; result?: unknown } };
    if (status !== 'success' || data?.resultType !== type || !Array.isArray(data.result))
      throw new Error(`${api.name} gave no ${type} to GET ${path}: is it Prometheus?`);
    return data.result;
  };
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  return {
    name: api.name,
    async firing(expectation) {
      const path = '/api/v1/query';
      const [sample] = result(await api.get(path, { query: firingExpr(expectation) }), 'vector', path) as {
        value?: [number, string];
      }[];
      return sample?.value?.[1] === '1';
    },
    async states(expectation, fromMs, toMs, stepMs) {
      const path = '/api/v1/query_range';
      const params = {
        query: firingExpr(expectation),
        start: seconds(fromMs),
        end: seconds(toMs),
        step: seconds(stepMs),
      };
      const [series] = result(await api.get(path, params), 'matrix', path) as { values?: [number, string][] }[];
      return (series?.values ?? []).map(([at, value]): AlertState => [Math.round(at * 1000), value === '1']);
    },
    async alertRules() {
      const path = '/api/v1/rules';
      const { status, data } = ((await api.get(path, { type: 'alert' })) ?? {}) as {
        status?: unknown;
        data?: { groups?: { rules?: { type?: unknown; name?: unknown }[] }[] };
      };
      if (status !== 'success' || !Array.isArray(data?.groups))
        throw new Error(`${api.name} gave no rule groups to GET ${path}: is it Prometheus?`);
      const rules = data.groups.flatMap((group) => (Array.isArray(group?.rules) ? group.rules : []));
      const names = rules.flatMap((rule) =>
        rule?.type === 'alerting' && typeof rule.name === 'string' ? [rule.name] : [],
      );
      return [...new Set(names)];
    },
  };
}

/** Alertmanager's HTTP API (`/api/v2/alerts` with a `filter` per label). */
export function alertmanagerInbox(api: HttpApi): AlertInbox {
  return {
    name: api.name,
    async received({ alert, labels = {} }) {
      const filter = Object.entries({ alertname: alert, ...labels }).map(
        ([key, value]) => `${key}=${JSON.stringify(value)}`,
      );
      const answer = await api.get('/api/v2/alerts', { filter });
      if (!Array.isArray(answer))
        throw new Error(`${api.name} gave no list of alerts to GET /api/v2/alerts: is it Alertmanager?`);
      return answer.length > 0;
    },
  };
}
