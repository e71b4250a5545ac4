/**
 * Errors as you type: the editor's YAML against the scenario JSON Schema (draft 2020-12), each error under the
 * field or value it is about. codemirror-json-schema's own linter validates as draft 4, which ignores the
 * schema's `if`/`then`/`else` (how it tells a file from an entry and a pack): with it no document ever fails.
 * @cfworker/json-schema validates 2020-12 without compiling code, so the console's CSP (no eval) allows it.
 */
import { type Diagnostic, linter } from '@codemirror/lint';
import type { Extension } from '@codemirror/state';
import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema';
import { isMap, isScalar, parseDocument } from 'yaml';

/**
 * Keywords whose errors only say that a part below failed; the parts' own errors say how, so these are left out.
 * `additionalProperties` too: the unknown field's `false` schema reports it, at the field.
 */
const WRAPPERS = new Set([
  'if',
  'then',
  'else',
  '$ref',
  'properties',
  'items',
  'prefixItems',
  'allOf',
  'additionalProperties',
  'unevaluatedProperties',
  'dependentSchemas',
]);

/** A lint source checking the document against `schema`. */
export function schemaLinter(schema: object): Extension {
  const validator = new Validator(schema as Schema, '2020-12', false);
  return linter((view) => diagnose(view.state.doc.toString(), validator));
}

/** YAML syntax errors, else schema errors, each spanning what it is about. */
export function diagnose(text: string, validator: Validator): Diagnostic[] {
  if (!text.trim()) return [];
  const doc = parseDocument(text);
  if (doc.errors.length) {
    return doc.errors.map((error) => ({
      from: error.pos[0],
      to: Math.max(error.pos[1], error.pos[0] + 1),
      severity: 'error',
      message: error.message,
    }));
  }
  const seen = new Set<string>();
  return validator.validate(doc.toJS()).errors.flatMap((error, i, errors) => {
    if (WRAPPERS.has(error.keyword)) return [];
    const message = messageOf(error, errors[i - 1]);
    if (seen.has(`${error.instanceLocation} ${message}`)) return [];
    seen.add(`${error.instanceLocation} ${message}`);
    const [from, to] = spanOf(doc, pathOf(error.instanceLocation), error.keyword === 'false', text.length);
    return [{ from, to, severity: 'error', message, source: 'scenario schema' }];
  });
}

/** The message of `error`; `cause` is the error reported just before it, the keyword that led to it. */
function messageOf(error: OutputUnit, cause: OutputUnit | undefined): string {
  const path = error.instanceLocation.replace(/^#\/?/, '').replaceAll('/', '.');
  // A `false` schema is an unknown field (the schema closes every object), or a field the fields beside it exclude.
  if (error.keyword === 'false')
    return `${path}: ${cause?.keyword === 'additionalProperties' ? 'not a field here' : 'not allowed with the fields beside it'}`;
  return `${path || 'document'}: ${error.error}`;
}

/** The keys of a JSON pointer (`#/scenarios/0/rate`), array indexes as numbers. */
function pathOf(pointer: string): (string | number)[] {
  return pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((key) => (/^\d+$/.test(key) ? Number(key) : key));
}

/** Where the node at `path` is in the text: its key when `atKey`, else its value; the first line for the root. */
function spanOf(
  doc: ReturnType<typeof parseDocument>,
  path: (string | number)[],
  atKey: boolean,
  length: number,
): [number, number] {
  const parent = path.length > 1 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
  if (atKey && isMap(parent)) {
    const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === path.at(-1));
    if (isScalar(pair?.key) && pair.key.range) return [pair.key.range[0], pair.key.range[1]];
  }
  const node = path.length ? doc.getIn(path, true) : undefined;
  const range = (node as { range?: [number, number, number] } | undefined)?.range;
  if (range) return [range[0], Math.max(range[1], range[0] + 1)];
  return [0, Math.min(length, Math.max(1, doc.toString().indexOf('\n')))];
}
