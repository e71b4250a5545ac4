/**
 * Scenario text to plain data. Anything that is not well-formed YAML or JSON, or that would cost
 * more than the limits allow (size, nesting depth, YAML tokens: lib/language/limits.ts), is a
 * `syntax` ConfigError, found before the cost is paid: a hostile body can neither block the
 * event loop for long nor exhaust memory, and no parser internals reach the message.
 */
import { visit } from 'jsonc-parser';
import { CST, Composer, Lexer, LineCounter, Parser, isAlias, isMap, isScalar, isSeq, type Document } from 'yaml';
import { MAX_ALIAS_COUNT, MAX_DEPTH, MAX_TEXT_BYTES, SHARED_YAML_BUDGET, type YamlBudget } from '../language/limits.js';
import { ConfigError, show } from '../language/problems.js';
import { interpolate, type Variables } from './interpolate.js';

export type Format = 'yaml' | 'json';

/** The format a file name (or another origin) names by its extension: JSON for `.json`, else YAML. */
export function formatOf(origin: string): Format {
  return /\.json$/i.test(origin) ? 'json' : 'yaml';
}

/**
 * `budget` bounds a YAML parse; the default suits a process that serves others (svc-server).
 * With `variables`, the text's `${NAME}` are expanded first (lib/config/interpolate.ts), and the
 * limits apply to the expanded text.
 */
export function parseText(
  text: string,
  format: Format,
  origin: string,
  budget: YamlBudget = SHARED_YAML_BUDGET,
  variables?: Variables,
): unknown {
  const source = (variables ? interpolate(text, variables, origin) : text).replace(/^\uFEFF/, '');
  const bytes = Buffer.byteLength(source);
  if (bytes > MAX_TEXT_BYTES)
    throw syntaxError(origin, `the document is ${bytes} bytes; the limit is ${MAX_TEXT_BYTES} bytes (1 MiB)`);
  // YAML and JSON allow no control characters but tab and line breaks: such text is binary data.
  const control = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/.exec(source);
  if (control)
    throw syntaxError(
      origin,
      `not a YAML or JSON text: it holds binary data (a control character at ${position(source, control.index)})`,
    );
  if (source.trim() === '') throw syntaxError(origin, 'the document is empty');
  if (format === 'json') return parseJson(source, origin);
  if (bytes > budget.bytes) {
    throw syntaxError(
      origin,
      `the document is ${bytes} bytes; the limit for YAML here is ${budget.bytes} bytes: split it into several files, or send it as JSON (up to 1 MiB)`,
    );
  }
  return parseYaml(source, origin, budget.tokens);
}

/**
 * One pass of jsonc-parser's scanner before JSON.parse bounds the nesting (so no deeper level is read, by it or
 * after it) and finds the first key given twice in one object, refused as YAML refuses it: JSON.parse keeps the last
 * silently, so the first would be lost without a word. A duplicate is told only once the text is known to be valid
 * JSON, so that a text that is not is told so first.
 */
function parseJson(source: string, origin: string): unknown {
  const objects: Set<string>[] = [];
  let depth = 0;
  let duplicate: string | undefined;
  const open = (offset: number) => {
    if (++depth > MAX_DEPTH) throw syntaxError(origin, deepMessage(position(source, offset)));
  };
  const close = () => void depth--;
  visit(
    source,
    {
      onObjectBegin: (offset) => {
        open(offset);
        objects.push(new Set());
      },
      onObjectEnd: () => {
        close();
        objects.pop();
      },
      onArrayBegin: open,
      onArrayEnd: close,
      onObjectProperty: (key, offset) => {
        const keys = objects[objects.length - 1]!;
        if (keys.has(key)) duplicate ??= `invalid JSON: duplicate key ${show(key)} at ${position(source, offset)}`;
        keys.add(key);
      },
    },
    { disallowComments: true },
  );
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (error) {
    throw syntaxError(origin, `invalid JSON: ${jsonSyntaxMessage(source, error as Error)}`);
  }
  if (duplicate !== undefined) throw syntaxError(origin, duplicate);
  return data;
}

/**
 * What is wrong with `source`, from JSON.parse's `error` on it, saying where by line and column. V8 counts characters
 * ("at position 84", then " (line 4 column 44)" on Node 22); for an unexpected token it quotes the text around it
 * instead (`, ..."pw"]}" is not valid JSON`), which may be a secret: jsonc-parser's first error says where.
 */
export function jsonSyntaxMessage(source: string, error: Error): string {
  let firstError: number | undefined;
  visit(source, { onError: (_, offset) => void (firstError ??= offset) }, { disallowComments: true });
  return error.message
    .replace(/, (?:\.\.\.)?"[\s\S]*" is not valid JSON$/, firstError === undefined ? '' : ` at position ${firstError}`)
    .replace(
      / at position (\d+)(?: \(line \d+ column \d+\))?$/,
      (_, offset: string) => ` at ${position(source, Number(offset))}`,
    );
}

/**
 * Syntax errors shown of a YAML text: the parser goes on after the first and reports what follows from it (a
 * stray backtick made over seventy), which would bury the one to fix.
 */
const SHOWN_SYNTAX_ERRORS = 3;

/**
 * The YAML pipeline of `parseDocument` (lexer → CST parser → composer), fed one token at a
 * time so that the token count and the nesting depth are checked as the text is read: the
 * composer and `toJS` recurse per level, and their cost grows with the tokens.
 */
function parseYaml(source: string, origin: string, maxTokens: number): unknown {
  const lines = new LineCounter();
  // Duplicate keys are found below in one pass: the composer's own check compares every pair of keys.
  const composer = new Composer({ uniqueKeys: false, merge: true });
  const documents = [...composer.compose(boundedTokens(source, lines, origin, maxTokens), true, source.length)];
  const document = documents[0]!;
  const errors =
    documents.length > 1
      ? [{ message: 'more than one document (a line --- starts a second one)', pos: documents[1]!.range }]
      : document.errors;
  const shown = errors
    .slice(0, SHOWN_SYNTAX_ERRORS)
    .map((error) => `${error.message.split('\n')[0]} at ${position(source, error.pos[0], lines)}`);
  if (errors.length > SHOWN_SYNTAX_ERRORS)
    shown.push(`${errors.length - SHOWN_SYNTAX_ERRORS} more errors after these, most of them following from the first`);
  const problems = errors.length ? shown : structureProblems(document, source, lines);
  if (problems.length)
    throw new ConfigError(
      'syntax',
      origin,
      problems.map((message) => ({ path: '', message: `invalid YAML: ${message}` })),
    );
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    throw syntaxError(
      origin,
      error instanceof ReferenceError
        ? `invalid YAML: aliases expand too much (more than ${MAX_ALIAS_COUNT} expansions)`
        : `invalid YAML: ${(error as Error).message}`,
    );
  }
}

const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection']);
/** Lexemes the YAML lexer adds to mark a document, a scalar or the end of a flow, not text of the source. */
const CONTROL = new Set([CST.BOM, CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

/** The CST tokens of `source`, refusing more than `maxTokens` lexemes or more than MAX_DEPTH nested collections. */
function* boundedTokens(source: string, lines: LineCounter, origin: string, maxTokens: number): Generator<CST.Token> {
  const parser = new Parser(lines.addNewLine);
  lines.addNewLine(0);
  let count = 0;
  for (const lexeme of new Lexer().lex(source)) {
    if (!CONTROL.has(lexeme) && ++count > maxTokens) {
      throw syntaxError(
        origin,
        `the document has more than ${maxTokens} YAML tokens (values, keys, indicators, line breaks): split it into several files, or send it as JSON`,
      );
    }
    yield* parser.next(lexeme);
    if (
      parser.stack.length > MAX_DEPTH &&
      parser.stack.filter((token) => COLLECTIONS.has(token.type)).length > MAX_DEPTH
    ) {
      throw syntaxError(origin, deepMessage(position(source, parser.offset - lexeme.length, lines)));
    }
  }
  yield* parser.end();
}

/**
 * Keys repeated in one mapping (merge keys `<<` may repeat), aliases that name no anchor before them, and aliases
 * inside the node they name (a node that contains itself, which no field of a scenario can be, and which `toJS` would
 * turn into a cyclic object), with their positions.
 */
function structureProblems(document: Document.Parsed, source: string, lines: LineCounter): string[] {
  const found: string[] = [];
  const ancestors: unknown[] = [];
  // Nesting is at most MAX_DEPTH deep here: the recursion is bounded.
  const walk = (node: unknown): void => {
    if (isAlias(node)) {
      const named = node.resolve(document);
      // toJS would call it an alias bomb: its ReferenceError is the one of too many expansions.
      if (named === undefined)
        found.push(
          `the alias *${node.source} at ${position(source, node.range?.[0] ?? 0, lines)} names no anchor: write &${node.source} on a node before it`,
        );
      else if (ancestors.includes(named))
        found.push(
          `the alias *${node.source} at ${position(source, node.range?.[0] ?? 0, lines)} is inside the node it names: it would make a structure that contains itself`,
        );
      return;
    }
    ancestors.push(node);
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const { key, value } of node.items) {
        if (isScalar(key) && typeof key.value !== 'symbol') {
          if (seen.has(key.value))
            found.push(`duplicate key ${show(key.value)} at ${position(source, key.range?.[0] ?? 0, lines)}`);
          seen.add(key.value);
        } else {
          walk(key);
        }
        walk(value);
      }
    } else if (isSeq(node)) {
      node.items.forEach(walk);
    }
    ancestors.pop();
  };
  walk(document.contents);
  return found;
}

function deepMessage(where: string): string {
  return `the document nests mappings and lists deeper than ${MAX_DEPTH} levels (at ${where})`;
}

/** `line 3, column 7` of an offset into `source`. */
function position(source: string, offset: number, lines?: LineCounter): string {
  if (lines) {
    const { line, col } = lines.linePos(offset);
    return `line ${line}, column ${col}`;
  }
  const before = source.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return `line ${before.split('\n').length}, column ${offset - lineStart + 1}`;
}

function syntaxError(origin: string, message: string): ConfigError {
  return new ConfigError('syntax', origin, [{ path: '', message }]);
}
