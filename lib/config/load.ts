/**
 * Scenario text -> validated `ScenarioFile`. Accepts a v2 file or a single flat entry (entry fields
 * at the top level, no version/kind/defaults/scenarios), which becomes a one-entry runnable file.
 * Every problem of the document is collected before a ConfigError is thrown.
 */
import * as t from 'io-ts';
import { andThen, decodeFields, didYouMean, string, type UnknownFieldHint } from '../language/combinators.js';
import { fileFields } from '../language/fields.js';
import { entryFields, isEntryId, type EntryFields } from './entry-fields.js';
import { NO_DEFAULTS, decodeDefaults, mergeDefaults, type Defaults } from './defaults.js';
import { decodeEntry, impliedSignal } from './entry.js';
import {
  applyOverrides,
  flagIssue,
  notingFlagLabels,
  flagMessage,
  type CliOverrides,
  type FlagIssue,
} from './overrides.js';
import { formatOf, parseText, type Format } from './parse.js';
import { isPackDocument } from './pack.js';
import type { Variables } from './interpolate.js';
import { LOCAL_YAML_BUDGET, type YamlBudget } from '../language/limits.js';
import { originOf, readTextFile, type TextSource } from './read.js';
import {
  ConfigError,
  TOP,
  describe,
  formatPath,
  isMapping,
  issuesOf,
  problemAt,
  shortened,
  show,
  type Issue,
  type Place,
  type Problem,
} from '../language/problems.js';
import { assignIds, referenceIssues } from './references.js';
import type { Entry, ScenarioFile } from './types.js';

export interface LoadOptions {
  /** Names the text in messages: a file path, `request body`, ... */
  readonly origin: string;
  /** Default: `json` when origin ends in `.json`, else `yaml` (which also reads JSON). */
  readonly format?: Format;
  readonly overrides?: CliOverrides;
  /** What a YAML parse may cost; default: the tight budget of svc-server (lib/language/limits.ts). */
  readonly yamlBudget?: YamlBudget;
  /** The variables `${NAME}` of the text names (lib/config/interpolate.ts); none: the text is taken as written. */
  readonly variables?: Variables;
}

/** A document with any of these keys is a v2 file; without them it is a single flat entry. */
const FILE_FIELDS = ['version', 'kind', 'defaults', 'scenarios'];

export const REQUIRED_FILE_FIELDS: readonly (keyof typeof fileFields)[] = ['version', 'kind', 'scenarios'];

/** Top-level fields of a pack file (pack.ts), misplaced in a scenario file. */
const PACK_FIELDS = ['metrics', 'shared_labels'];

export function loadScenario(text: string, options: LoadOptions): ScenarioFile {
  const format = options.format ?? formatOf(options.origin);
  return scenarioFromDocument(parseText(text, format, options.origin, options.yamlBudget, options.variables), {
    ...options,
    format,
  });
}

/** A parsed document (YAML or JSON data) -> validated `ScenarioFile`: {@link loadScenario} after its parse. */
export function scenarioFromDocument(
  document: unknown,
  options: Pick<LoadOptions, 'origin' | 'overrides' | 'format'>,
): ScenarioFile {
  const result = isMapping(document)
    ? validateDocument(document, options.overrides ?? {}, options.format ?? formatOf(options.origin))
    : {
        problems: [
          problemAt(TOP, {
            path: [],
            message: `invalid type: expected a mapping (a v2 scenario file or a single entry), got ${describe(document)}`,
          }),
        ],
      };
  if (!result.file) throw new ConfigError('invalid', options.origin, result.problems);
  return result.file;
}

/**
 * Reads and loads a scenario file, from its path or from a stream (standard input); `origin`
 * defaults to the path (the stream's name), `format` to the one its extension names. A file is
 * the operator's own: it has the local YAML budget, and its `${NAME}` expand from `variables`
 * (svc passes its environment).
 */
export async function loadScenarioFile(source: TextSource, options: Partial<LoadOptions> = {}): Promise<ScenarioFile> {
  const text = await readTextFile(source, 'scenario file');
  const origin = options.origin ?? originOf(source);
  return loadScenario(text, {
    yamlBudget: LOCAL_YAML_BUDGET,
    ...options,
    origin,
    format: options.format ?? formatOf(origin),
  });
}

type Validated = { file: ScenarioFile; problems: readonly [] } | { file?: undefined; problems: readonly Problem[] };

function validateDocument(document: Record<string, unknown>, overrides: CliOverrides, format: Format): Validated {
  // Said whole: a pack file without version (the reference tool's) would otherwise read as a flat entry.
  if (isPackDocument(document)) {
    const message =
      'a pack file (metrics and no scenarios), not a scenario file: run it from an entry with pack: <its path or name> (docs/packs.md)';
    return { problems: [problemAt(TOP, { path: [], message })] };
  }
  const flat = !FILE_FIELDS.some((key) => Object.hasOwn(document, key));
  if (flat || isSingleEntry(document)) return validateSingleEntry(document, flat, overrides, format);
  const context = [{ key: '', type: t.unknown, actual: document }];
  const { value, errors } = decodeFields(fileFields, REQUIRED_FILE_FIELDS, document, context, (key, known) =>
    key === 'signal_type' && document.signal_type === 'multi' ? MULTI_MARK : misplacedField(key, known),
  );
  const defaults = value.defaults ? decodeDefaults(value.defaults) : NO_DEFAULTS;
  const top = [
    ...issuesOf(errors).map((issue) => problemAt(TOP, issue)),
    ...defaults.issues.map((issue) => problemAt({ path: ['defaults'], label: 'defaults' }, issue)),
  ];
  const entries = validateEntries(value.scenarios ?? [], defaults, overrides, value.kind ?? 'runnable', (i) => ({
    path: ['scenarios', i],
    prefix: `scenarios[${i}]`,
  }));
  if (value.name !== undefined && value.scenario_name !== undefined) {
    top.push(
      problemAt(TOP, {
        path: ['scenario_name'],
        message: 'the same as name (the reference tool calls it scenario_name): give one of them',
      }),
    );
  }
  const problems = [...top, ...entries.problems];
  if (problems.length || !entries.file) return { problems };
  const { version, kind, scenarios } = entries.file;
  const { description, category, tags } = value;
  const name = value.name ?? value.scenario_name;
  const metadata = { name, description, category, tags, expect: value.expect };
  const given = Object.fromEntries(Object.entries(metadata).filter(([, field]) => field !== undefined));
  return { file: { version, kind, ...given, scenarios }, problems: [] };
}

/**
 * A document that is one entry beside `version: 2`: no `scenarios` and no `defaults`, and a
 * `signal_type` (lib/config/schema.ts tells the documents apart the same way).
 */
export const SINGLE_ENTRY = { without: ['scenarios', 'defaults'], with: 'signal_type' } as const;

/**
 * A single entry written with `version: 2` (and `kind: runnable`) beside its fields, as the
 * reference tool allows: no `scenarios` and no `defaults`, and a `signal_type`.
 */
function isSingleEntry(document: Record<string, unknown>): boolean {
  return (
    SINGLE_ENTRY.without.every((key) => !Object.hasOwn(document, key)) && Object.hasOwn(document, SINGLE_ENTRY.with)
  );
}

/**
 * The catalog metadata a single entry's document may carry beside the entry's fields, as the
 * reference tool's single-entry files do (`scenario_name`, `category`, `description` on top of
 * the metric's fields): `name` there is the metric's, so `scenario_name` names the file.
 */
export const singleEntryMetadata = {
  scenario_name: fileFields.scenario_name,
  description: fileFields.description,
  category: fileFields.category,
  tags: fileFields.tags,
};

/**
 * A document that is one entry, flat or beside `version: 2`: a runnable file of that entry, with
 * the catalog metadata written beside it.
 */
function validateSingleEntry(
  document: Record<string, unknown>,
  flat: boolean,
  overrides: CliOverrides,
  format: Format,
): Validated {
  const headerFields = flat
    ? singleEntryMetadata
    : { version: fileFields.version, kind: singleEntryKind, ...singleEntryMetadata };
  // Object.fromEntries, not assignment: a `__proto__` key stays a plain (unknown) field.
  const fields = Object.entries(document);
  const header = {
    ...(!flat && { version: document.version }),
    ...Object.fromEntries(fields.filter(([key]) => Object.hasOwn(headerFields, key))),
  };
  const written = Object.fromEntries(fields.filter(([key]) => !Object.hasOwn(headerFields, key)));
  const logsInGenerator = flat && holdsLogGenerator(written);
  const { generator, ...others } = written;
  const entry = logsInGenerator ? { ...others, log_generator: generator } : written;
  const context = [{ key: '', type: t.unknown, actual: document }];
  const { value, errors } = decodeFields(headerFields, [], header, context);
  // A flat YAML entry, as the reference tool's simplest files are, may leave its signal type to its fields.
  const signal = flat && format === 'yaml' && !Object.hasOwn(entry, 'signal_type') && impliedSignal(entry);
  const result = validateFlat(
    signal ? { signal_type: signal, ...entry } : entry,
    overrides,
    issuesOf(errors).map((issue) => problemAt(TOP, issue)),
    logsInGenerator ? { log_generator: 'generator' } : {},
  );
  if (!result.file) return { problems: result.problems.map(logsReplayHint(entry)) };
  const { scenario_name: name, description, category, tags } = value;
  const metadata = Object.entries({ name, description, category, tags }).filter(([, field]) => field !== undefined);
  return { ...result, file: { ...result.file, ...Object.fromEntries(metadata) } };
}

/** Where a metrics csv_replay meets a field only the logs one has. */
const LOGS_REPLAY_FIELD = formatPath(['generator', 'default_severity']);

/**
 * A flat entry without `signal_type` whose `csv_replay` generator has `default_severity` reads as metrics
 * (`csv_replay` is both), whose replay refuses that field: the problem says what makes it a logs replay.
 */
function logsReplayHint(entry: Readonly<Record<string, unknown>>): (problem: Problem) => Problem {
  const { generator } = entry;
  const logsMeant =
    !Object.hasOwn(entry, 'signal_type') &&
    isMapping(generator) &&
    generator.type === 'csv_replay' &&
    Object.hasOwn(generator, 'default_severity');
  return (problem) =>
    logsMeant && problem.path === LOGS_REPLAY_FIELD
      ? { ...problem, message: `${problem.message}; default_severity is a logs replay's: add signal_type: logs` }
      : problem;
}

/** Log generator types no metrics generator has (`csv_replay` is both). */
export const LOG_ONLY_GENERATOR_TYPES: readonly unknown[] = ['template', 'replay'];

/**
 * Whether a flat entry holds its log generator in `generator`, as the reference tool's first
 * files did (`sonda logs --scenario`, and its logs catalog files): its `signal_type` is `logs`,
 * or it gives none and the generator's type only log generators have.
 */
function holdsLogGenerator(entry: Readonly<Record<string, unknown>>): boolean {
  const { generator, signal_type } = entry;
  if (!isMapping(generator) || Object.hasOwn(entry, 'log_generator')) return false;
  return signal_type === 'logs' || (signal_type === undefined && LOG_ONLY_GENERATOR_TYPES.includes(generator.type));
}

/** A single entry runs by itself: its file is runnable. */
export const singleEntryKind = andThen(string, (kind, u, c) =>
  kind === 'runnable'
    ? t.success(kind)
    : t.failure(u, c, `expected runnable (a single entry runs by itself), got ${show(kind)}`),
)
  .withSchema(() => ({ const: 'runnable' }))
  .describe('A single entry runs by itself: runnable.');

/** A document that is one entry: a runnable file of that entry, which messages call `entry`. */
function validateFlat(
  entry: Record<string, unknown>,
  overrides: CliOverrides,
  problems: readonly Problem[],
  writtenAs: WrittenAs = {},
): Validated {
  const flat = validateEntries(
    [entry],
    NO_DEFAULTS,
    overrides,
    'runnable',
    () => ({ path: [], prefix: 'entry' }),
    writtenAs,
  );
  if (problems.length) return { problems: [...problems, ...flat.problems] };
  return flat.file ? { ...flat, file: { ...flat.file, flat: true } } : flat;
}

/**
 * `signal_type: multi` above `scenarios` marks the reference tool's first multi-scenario files
 * (which had no `version` or `kind` either): it means nothing beside the entries' own.
 */
const MULTI_MARK =
  "the reference tool's mark of a multi-scenario file: leave it out, each entry gives its own signal_type";

/** An entry field or a pack file field at the top of a v2 file is misplaced: say where it belongs. */
const misplacedField: UnknownFieldHint = (key, known) => {
  if (Object.hasOwn(entryFields, key)) return 'an entry field: set it in a scenarios entry or in defaults';
  if (PACK_FIELDS.includes(key)) {
    return 'a pack file field: a pack has kind composable, name, description and metrics, and no scenarios; entries use it with pack: <name>';
  }
  return didYouMean(key, known);
};

/** The names fields were written under, by svc's name of the field: messages name them as written. */
type WrittenAs = Readonly<Record<string, string>>;

function validateEntries(
  raws: readonly unknown[],
  defaults: Defaults,
  overrides: CliOverrides,
  kind: ScenarioFile['kind'],
  placeOf: (index: number) => { path: Place['path']; prefix: string },
  writtenAs: WrittenAs = {},
): Validated {
  const asWritten = (issue: Issue): Issue => {
    const [field, ...rest] = issue.path;
    return typeof field === 'string' && Object.hasOwn(writtenAs, field)
      ? { ...issue, path: [writtenAs[field]!, ...rest] }
      : issue;
  };
  type Result = { place: Place; fields: EntryFields; entry?: Entry; issues: Issue[]; flagIssues: readonly FlagIssue[] };
  const results = raws.map((raw, i): Result => {
    const { path, prefix } = placeOf(i);
    if (!isMapping(raw)) {
      const issue: Issue = { path: [], message: `invalid type: expected a mapping (an entry), got ${describe(raw)}` };
      return { place: { path, label: prefix }, fields: {}, issues: [issue], flagIssues: [] };
    }
    const merged = mergeDefaults(defaults, raw);
    const overridden = applyOverrides(merged.raw, overrides);
    // The defaults were decoded once; an entry that got them unchanged takes their decoded values.
    const decoded = decodeEntry(overridden.raw, { raw: defaults.fields, value: defaults.decoded });
    const flagIssues = [...overridden.issues];
    const own: Issue[] = [];
    for (const issue of decoded.issues) {
      const byFlag = flagIssue(issue, overridden);
      if (byFlag) flagIssues.push(byFlag);
      else own.push(issue);
    }
    const fromDefaults = new Set([...merged.fromDefaults].filter((key) => !overridden.fields.includes(key)));
    const issues = own
      // A field whose default was broken is reported once, under defaults.
      .filter(
        (issue) => !(defaults.broken.has(String(issue.path[0])) && !Object.hasOwn(overridden.raw, issue.path[0]!)),
      )
      .map((issue) =>
        fromDefaults.has(String(issue.path[0]))
          ? { ...issue, message: `${issue.message} (value from defaults)` }
          : issue,
      );
    const place = { path, label: labelOf(prefix, overridden.raw) };
    const entry = decoded.entry && notingFlagLabels(decoded.entry, overrides);
    return { place, fields: decoded.fields, ...(entry && { entry }), issues, flagIssues };
  });
  for (const { index, issue } of referenceIssues(
    results.map((r) => r.fields),
    results.map((_, i) => placeOf(i).prefix),
  )) {
    results[index]!.issues.push(issue);
  }
  const problems = [
    ...flagProblems(results),
    ...results.flatMap((r) => r.issues.map((issue) => problemAt(r.place, asWritten(issue)))),
  ];
  if (problems.length) return { problems };
  const ids = assignIds(results.map((r) => r.fields));
  return {
    file: { version: 2, kind, scenarios: results.map((r, i) => ({ ...(r.entry as Entry), id: ids[i]! })) },
    problems: [],
  };
}

/**
 * The problems of the flags, each once for the whole file; one that only some entries of the
 * file have names them.
 */
function flagProblems(results: readonly { place: Place; flagIssues: readonly FlagIssue[] }[]): Problem[] {
  const found = new Map<string, { path: string; code?: Issue['code']; entries: string[] }>();
  for (const { place, flagIssues } of results) {
    for (const flagged of flagIssues) {
      const message = flagMessage(flagged);
      const seen = found.get(message);
      if (seen) seen.entries.push(place.label!);
      else
        found.set(message, {
          path: formatPath([...place.path, ...flagged.field]),
          ...(flagged.issue.code && { code: flagged.issue.code }),
          entries: [place.label!],
        });
    }
  }
  return [...found].map(([message, { entries, ...problem }]) => ({
    ...problem,
    message: entries.length < results.length ? `${message} (on ${entries.join(', ')})` : message,
  }));
}

/**
 * `scenarios[0] (cpu_usage)`: the entry's id, else name, else pack, the first that is a string fit for an id (a line
 * break in it would split the message).
 */
function labelOf(prefix: string, raw: Record<string, unknown>): string {
  const name = [raw.id, raw.name, raw.pack].find((v): v is string => typeof v === 'string' && isEntryId(v));
  return name === undefined ? prefix : `${prefix} (${shortened(name)})`;
}
