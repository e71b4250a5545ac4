/** Scenario text to plain data; anything that is not well-formed YAML or JSON is a `syntax` ConfigError. */
import { parseDocument } from 'yaml';
import { ConfigError } from './problems.js';

export type Format = 'yaml' | 'json';

/** Alias expansions allowed in one YAML document: enough for anchors shared by entries, too few for an alias bomb. */
export const MAX_ALIAS_COUNT = 100;

export function parseText(text: string, format: Format, origin: string): unknown {
  const source = text.replace(/^\uFEFF/, '');
  if (source.trim() === '') throw syntaxError(origin, 'the document is empty');
  return format === 'json' ? parseJson(source, origin) : parseYaml(source, origin);
}

function parseJson(source: string, origin: string): unknown {
  try {
    return JSON.parse(source);
  } catch (error) {
    throw syntaxError(origin, `invalid JSON: ${(error as Error).message}`);
  }
}

function parseYaml(source: string, origin: string): unknown {
  // `merge` enables `<<: *anchor`, the usual way to share fragments between entries.
  const document = parseDocument(source, { uniqueKeys: true, merge: true, prettyErrors: true });
  if (document.errors.length) {
    // The first line names the fault and its position; the rest is a code frame.
    throw new ConfigError(
      'syntax',
      origin,
      document.errors.map((error) => ({ path: '', message: `invalid YAML: ${error.message.split('\n')[0]!.replace(/:$/, '')}` })),
    );
  }
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    throw syntaxError(
      origin,
      error instanceof ReferenceError ? `invalid YAML: aliases expand too much (more than ${MAX_ALIAS_COUNT} expansions)` : `invalid YAML: ${(error as Error).message}`,
    );
  }
}

function syntaxError(origin: string, message: string): ConfigError {
  return new ConfigError('syntax', origin, [{ path: '', message }]);
}
