/** The scenario editor: CodeMirror 6 with YAML, checked as you type against the scenario JSON Schema. */
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
      stateExtensions(schema as Parameters<typeof stateExtensions>[0]),
      yamlLanguage.data.of({ autocomplete: yamlCompletion() }),
      hoverTooltip(yamlSchemaHover()),
      schemaLinter(schema),
    ],
  });
}
