/**
 * The checks of what an operator is called with. The scenario language validates what the runtime passes, but a
 * harness calls the operators directly: a wrong argument is told when the operator is made, naming the operator,
 * the argument and what it must be, instead of surfacing deep inside a run (a `pod_NaN` label, buckets counted
 * wrong, `Invalid array length`, a stream that never emits).
 */

/** What an argument must be: its `typeof`, and the test of a value of that type. */
export interface Rule {
  readonly type: 'number' | 'function' | 'string' | 'object' | 'boolean';
  readonly test: (value: never) => boolean;
  /** What it must be, as the message says it: "a whole number ≥ 1". */
  readonly expected: string;
}

export const COUNT: Rule = {
  type: 'number',
  test: (value: number) => Number.isInteger(value) && value >= 0,
  expected: 'a whole number ≥ 0',
};
export const POSITIVE_COUNT: Rule = {
  type: 'number',
  test: (value: number) => Number.isInteger(value) && value >= 1,
  expected: 'a whole number ≥ 1',
};
export const INTEGER: Rule = { type: 'number', test: Number.isInteger, expected: 'a whole number' };
export const NON_NEGATIVE: Rule = {
  type: 'number',
  test: (value: number) => value >= 0 && Number.isFinite(value),
  expected: 'a finite number ≥ 0',
};
export const POSITIVE: Rule = {
  type: 'number',
  test: (value: number) => value > 0 && Number.isFinite(value),
  expected: 'a finite number > 0',
};
export const FINITE: Rule = { type: 'number', test: Number.isFinite, expected: 'a finite number' };
export const PROBABILITY: Rule = {
  type: 'number',
  test: (value: number) => value >= 0 && value <= 1,
  expected: 'a number from 0 to 1',
};
export const FUNCTION: Rule = { type: 'function', test: () => true, expected: 'a function' };
export const STRING: Rule = { type: 'string', test: () => true, expected: 'a string' };
export const BOOLEAN: Rule = { type: 'boolean', test: () => true, expected: 'true or false' };

/** An object of named fields: an operator's options, one element of a list of them. */
export const OBJECT: Rule = {
  type: 'object',
  test: (value: object) => !Array.isArray(value),
  expected: 'an object',
};
/** A scheduler, as RxJS takes one. */
export const SCHEDULER: Rule = withMethods('now', 'schedule');
/** An observable. */
export const OBSERVABLE: Rule = withMethods('subscribe');
/** A promise (any thenable). */
export const PROMISE: Rule = { ...withMethods('then'), expected: 'a promise' };

/** A whole number below `bound`, which the message names as `boundName` (an index of `shard.count` shards). */
export function wholeNumberBelow(bound: number, boundName: string): Rule {
  return {
    type: 'number',
    test: (value: number) => Number.isInteger(value) && value >= 0 && value < bound,
    expected: `a whole number from 0 to ${bound - 1} (below ${boundName})`,
  };
}

/** One of `values`. */
export function oneOf(values: readonly string[]): Rule {
  return {
    type: 'string',
    test: (value: string) => values.includes(value),
    expected: `one of ${values.map((v) => `'${v}'`).join(', ')}`,
  };
}

/** An object with these methods (a sink, an encoder, an observable). */
export function withMethods(...methods: readonly string[]): Rule {
  return {
    type: 'object',
    test: (value: Record<string, unknown>) => methods.every((method) => typeof value[method] === 'function'),
    expected: `an object with ${methods.map((m) => `${m}()`).join(', ')}`,
  };
}

/** Throws unless `value`, the argument `name` of `operator`, follows `rule`: a TypeError of the wrong type. */
export function check(operator: string, name: string, value: unknown, rule: Rule): void {
  const typed = typeof value === rule.type && value !== null;
  if (typed && rule.test(value as never)) return;
  const message = `${operator}: ${name} must be ${rule.expected}, got ${shown(value)}`;
  throw typed ? new RangeError(message) : new TypeError(message);
}

/** {@link check}, for an argument that may be left out. */
export function checkOptional(operator: string, name: string, value: unknown, rule: Rule): void {
  if (value !== undefined) check(operator, name, value, rule);
}

/** A recurring window `{every, for}`: `0 < for < every` (ms), as the scenario language has it. */
export function checkWindow(operator: string, name: string, window: { every: number; for: number }): void {
  check(operator, name, window, withFields('every', 'for'));
  check(operator, `${name}.every`, window.every, POSITIVE);
  check(operator, `${name}.for`, window.for, POSITIVE);
  if (!(window.for < window.every))
    throw new RangeError(
      `${operator}: ${name}.for must be shorter than ${name}.every (${window.every} ms), got ${window.for} ms`,
    );
}

/** Throws unless `value` is a list (an array). */
export function checkList(operator: string, name: string, value: unknown): void {
  if (!Array.isArray(value)) throw new TypeError(`${operator}: ${name} must be a list, got ${shown(value)}`);
}

/** Numbers following `rule`, each greater than the one before (bucket bounds, quantiles). */
export function checkIncreasing(operator: string, name: string, values: readonly number[], rule = FINITE): void {
  checkList(operator, name, values);
  values.forEach((value, i) => {
    check(operator, `${name}[${i}]`, value, rule);
    if (i > 0 && !(value > values[i - 1]!))
      throw new RangeError(
        `${operator}: ${name} must increase, but ${name}[${i}] (${value}) is not greater than ${values[i - 1]}`,
      );
  });
}

/** An object with these fields. */
function withFields(...fields: readonly string[]): Rule {
  return {
    type: 'object',
    test: (value: Record<string, unknown>) => fields.every((field) => field in value),
    expected: `an object with ${fields.join(' and ')}`,
  };
}

/** A value as a message shows it: strings quoted, so that "10" is not taken for 10. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return `[${value.map(shown).join(', ')}]`;
  if (typeof value !== 'object' || value === null) return String(value);
  const name = value.constructor?.name;
  return name && name !== 'Object' ? `a ${name}` : `{${Object.keys(value).join(', ')}}`;
}
