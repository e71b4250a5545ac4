/** The scenario editor: CodeMirror 6 with YAML, checked as you type against the scenario JSON Schema. */
import { CompletionContext, type CompletionSource } from '@codemirror/autocomplete';
import { yaml, yamlLanguage } from '@codemirror/lang-yaml';
import { hoverTooltip } from '@codemirror/view';
import { basicSetup, EditorView } from 'codemirror';
import { stateExtensions } from 'codemirror-json-schema';
import { yamlCompletion, yamlSchemaHover } from 'codemirror-json-schema/yaml';
import { schemaLinter } from './lint.js';
import schema from '../../schema/scenario.schema.json';
import quickstart from '../../examples/quickstart.yaml';

const layout = EditorView.theme({ '&': { minHeight: '240px' }, '.cm-scroller': { fontSize: '13px' } });

/**
 * `schema` with each array's `items` that is a `$ref` wrapped in an `allOf` (the same schema to a validator).
 * json-schema-library, which codemirror-json-schema walks the schema with, steps into an array's item without
 * resolving an `items` `$ref`, and then finds no `properties` under it: in the entries of `scenarios:`
 * (`items: {$ref: '#/$defs/entry'}`) and a trace's `calls`, completion offered nothing and hover knew only the
 * value's type. It does resolve the `$ref`s of an `allOf`.
 */
function itemRefsResolvable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(itemRefsResolvable);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([keyword, value]) => [keyword, itemRefsResolvable(value)]),
  );
  if ((copy.items as { $ref?: unknown } | undefined)?.$ref !== undefined) copy.items = { allOf: [copy.items] };
  return copy;
}

/**
 * `source` that also completes the first field of a mapping begun and an empty value.
 * - A mapping's first field (`generator:`, a new line, `ty`; a list item `- si`): to YAML the word is still the value
 *   of the key above, where codemirror-json-schema finds no field to offer. Asked of the text with a colon after the
 *   word, it offers that mapping's fields.
 * - An empty value (`type: `, then Ctrl-Space): it offers values only once one is begun (its issue #148), though after
 *   an opening quote it offers them all. So there the options are asked of the text with that quote, and given for
 *   the empty value.
 */
function completingBegunFieldsAndEmptyValues(source: ReturnType<typeof yamlCompletion>): CompletionSource {
  return (context) => {
    // It answers an empty array where it has nothing to offer.
    const answer = (asked: CompletionContext) => {
      const result = source(asked);
      return Array.isArray(result) ? null : result;
    };
    const own = answer(context);
    if (own && own.options.length > 0) return own;
    const line = context.state.doc.lineAt(context.pos);
    const before = line.text.slice(0, context.pos - line.from);
    if (/^\s*(- )?[\w.-]+$/.test(before)) {
      const keyed = context.state.update({ changes: { from: context.pos, insert: ':' } }).state;
      return answer(new CompletionContext(keyed, context.pos, true)) ?? own;
    }
    if (!context.explicit || !/:\s+$/.test(before)) return own;
    const quoted = context.state.update({ changes: { from: context.pos, insert: '"' } }).state;
    const begun = answer(new CompletionContext(quoted, context.pos + 1, true));
    return begun && { ...begun, from: context.pos, to: context.pos };
  };
}

/**
 * An editor in `host`, holding `examples/quickstart.yaml` at first: completion, hover docs and lint come from
 * `schema/scenario.schema.json` (bundled, so the console works offline). It lives in a shadow root: there
 * CodeMirror styles it with constructed stylesheets, which the console's Content-Security-Policy allows, where in
 * the document it would add `<style>` elements, which the policy blocks.
 */
export function createEditor(host: HTMLElement): EditorView {
  const root = host.attachShadow({ mode: 'open' });
  return new EditorView({
    doc: quickstart,
    root,
    parent: root,
    extensions: [
      basicSetup,
      EditorView.lineWrapping,
      layout,
      yaml(),
      // Completion and hover docs from codemirror-json-schema; errors from our linter (lint.ts).
      stateExtensions(itemRefsResolvable(schema) as Parameters<typeof stateExtensions>[0]),
      yamlLanguage.data.of({ autocomplete: completingBegunFieldsAndEmptyValues(yamlCompletion()) }),
      hoverTooltip(yamlSchemaHover()),
      schemaLinter(schema),
    ],
  });
}
