/**
 * The JSON Schema (draft 2020-12) of scenario and pack files, written by the same io-ts codecs that
 * validate them (each codec says what it accepts: lib/language/combinators.ts), so a field added
 * to a codec is in the schema without a second edit. `svc schema` prints it; the package ships it
 * as schema/scenario.schema.json, which a spec keeps equal to this. Editors read it through the
 * `# yaml-language-server: $schema=…` line of a file.
 *
 * What a schema cannot say (rules across fields and entries, the cost limits, CSV contents) is
 * left to validation, whose messages stay the reference; the schema accepts nothing that
 * validation is sure to refuse for the shape alone.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Codec, hasField as has, objectSchema, type AnyCodec, type JsonSchema } from '../language/combinators.js';
import { METRIC_TYPES_OF, fileFields } from '../language/fields.js';
import { MAX_ENTRIES } from '../language/limits.js';
import { FIELD_SIGNALS, SOURCE_FIELD } from './entry.js';
import { REQUIRED_ENTRY_FIELDS, defaultsFields, entryFields } from './entry-fields.js';
import {
  LOG_ONLY_GENERATOR_TYPES,
  REQUIRED_FILE_FIELDS,
  SINGLE_ENTRY,
  singleEntryKind,
  singleEntryMetadata,
} from './load.js';
import { REQUIRED_PACK_FIELDS, packFields } from './pack.js';

/** The schema svc's package ships, as a file:// URL: what a modeline written on this machine names. */
export function shippedSchemaUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('svc/schema/scenario.schema.json')).href;
}

/** The line that makes an editor (yaml-language-server) check a file against `schema` (a path or URL). */
export function schemaModeline(schema: string): string {
  return `# yaml-language-server: $schema=${schema}`;
}

const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });

/** The schema of scenario and pack files. */
export function scenarioSchema(): JsonSchema {
  const defs = new Map<string, { codec: AnyCodec; schema: JsonSchema }>();
  const child = (codec: AnyCodec): JsonSchema => {
    if (!(codec instanceof Codec)) return {};
    const name = codec.definition;
    if (name === undefined) return codec.schema(child);
    const known = defs.get(name);
    if (known && known.codec !== codec) throw new Error(`two codecs define the schema ${name}`);
    if (!known) {
      // Registered before it is written, so a codec that contains itself refers to itself.
      const entry = { codec, schema: {} };
      defs.set(name, entry);
      entry.schema = codec.schema(child);
    }
    return ref(name);
  };

  const entry = { ...objectSchema(entryFields, [], child), allOf: entryRules(false) };
  const defaults = objectSchema(defaultsFields, [], child);
  const file = {
    ...objectSchema(
      {
        ...fileFields,
        defaults: fileFields.defaults.withSchema(() => ({
          ...ref('defaults'),
          description:
            'Entry fields applied to every entry (except id, name and pack); an entry value wins, labels merge key by key.',
        })),
        scenarios: fileFields.scenarios.withSchema(() => ({
          type: 'array',
          minItems: 1,
          maxItems: MAX_ENTRIES,
          items: ref('entry'),
          description: 'One entry per emitting scenario.',
        })),
      },
      REQUIRED_FILE_FIELDS,
      child,
    ),
    // scenario_name is the reference tool's word for name.
    allOf: [...requiredUnlessDefaults(), notBoth('name', 'scenario_name')],
  };
  const singleEntryFields = objectSchema(
    { ...entryFields, version: fileFields.version, kind: singleEntryKind, ...singleEntryMetadata },
    // A flat YAML entry may leave its signal type to its fields (impliedSignal); beside `version` it routes here by it.
    REQUIRED_ENTRY_FIELDS.filter((field) => field !== 'signal_type'),
    child,
  );
  const singleEntry = {
    ...singleEntryFields,
    properties: {
      ...(singleEntryFields.properties as Record<string, JsonSchema>),
      // Which generator it is, the first rule says: a flat logs entry may hold its log generator here.
      generator: { description: 'The metrics generator; on a flat logs entry, its log generator (as log_generator).' },
    },
    allOf: [
      {
        if: LOGS_IN_GENERATOR,
        then: { type: 'object', properties: { generator: child(entryFields.log_generator) } },
        else: { type: 'object', properties: { generator: child(entryFields.generator) } },
      },
      ...entryRules(true),
      ...sourceRules(true).map(({ rule }) => rule),
    ],
  };
  const pack = objectSchema(packFields, REQUIRED_PACK_FIELDS, child);

  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'svc scenario or pack file',
    description:
      'A svc scenario file (version 2, kind runnable or composable, scenarios), a single entry (its fields at the top level), or a pack file (metrics and no scenarios; kind composable if given). docs/scenario-fields.md and docs/packs.md explain every field.',
    if: { anyOf: SINGLE_ENTRY.without.map(has) },
    then: ref('file'),
    else: {
      if: has('metrics'),
      then: ref('pack'),
      else: {
        if: { anyOf: [has(SINGLE_ENTRY.with), { type: 'object', not: { anyOf: [has('version'), has('kind')] } }] },
        then: ref('single_entry'),
        else: ref('file'),
      },
    },
    $defs: {
      file,
      entry,
      defaults,
      single_entry: singleEntry,
      pack,
      ...Object.fromEntries(
        [...defs].sort(([a], [b]) => a.localeCompare(b)).map(([name, { schema }]) => [name, schema]),
      ),
    },
  };
}

const signalIs = (signals: readonly string[]): JsonSchema => ({
  type: 'object',
  properties: { signal_type: { enum: [...signals] } },
  required: ['signal_type'],
});

/**
 * A flat entry (no version nor kind) that holds its log generator in `generator`, as load.ts
 * (holdsLogGenerator) reads it: its signal_type is logs, or it gives none and the generator's
 * type only log generators have.
 */
const LOGS_IN_GENERATOR: JsonSchema = {
  type: 'object',
  properties: { generator: { type: 'object' } },
  required: ['generator'],
  not: { anyOf: ['version', 'kind', 'log_generator'].map(has) },
  anyOf: [
    signalIs(['logs']),
    {
      type: 'object',
      not: has('signal_type'),
      properties: {
        generator: {
          type: 'object',
          properties: { type: { enum: [...LOG_ONLY_GENERATOR_TYPES] } },
          required: ['type'],
        },
      },
    },
  ],
};

/**
 * Rules between the fields of one entry (lib/config/entry.ts checks them) that JSON Schema can say;
 * `single` for a single entry's document, whose `generator` may be its log generator (LOGS_IN_GENERATOR).
 */
function entryRules(single: boolean): JsonSchema[] {
  return [
    ...signalRules(single),
    ...metricTypeRules(),
    packRule(),
    // An entry starts after a delay or on a trigger; delay is the reference tool's place for while.delay.
    notBoth('phase_offset', 'after'),
    { dependentRequired: { delay: ['while'] } },
  ];
}

/** Not both `a` and `b`: with `a`, `b` is refused, and an editor marks it, where validation's message is. */
const notBoth = (a: string, b: string): JsonSchema => ({ dependentSchemas: { [a]: refuse([b]) } });

/** A rule that refuses `fields` each at its key (a `false` schema), which is where an editor marks it. */
const refuse = (fields: readonly string[]): JsonSchema => ({
  type: 'object',
  properties: Object.fromEntries(fields.map((field) => [field, false])),
});

/** The fields only some signal types take (FIELD_SIGNALS): not allowed on an entry of another signal. */
function signalRules(single: boolean): JsonSchema[] {
  return Object.entries(FIELD_SIGNALS).map(([field, signals]) => {
    const otherSignal = {
      type: 'object',
      properties: { signal_type: { not: { enum: signals } } },
      required: ['signal_type'],
    };
    const maybeLogs = single && field === 'generator';
    return {
      if: maybeLogs ? { allOf: [otherSignal, { not: LOGS_IN_GENERATOR }] } : otherSignal,
      then: refuse([field]),
    };
  });
}

/** The metric types each signal's samples can be announced as (METRIC_TYPES_OF). */
function metricTypeRules(): JsonSchema[] {
  return Object.entries(METRIC_TYPES_OF).map(([signal, types]) => ({
    if: signalIs([signal]),
    then: {
      type: 'object',
      properties: { metric_type: { enum: [...types], description: `On a ${signal} entry: ${types.join(', ')}.` } },
    },
  }));
}

/** With pack, the pack names its metrics and gives their generators, types and help; without, name is required. */
function packRule(): JsonSchema {
  return {
    if: has('pack'),
    then: refuse(['name', 'generator', 'metric_type', 'help']),
    else: { ...refuse(['overrides']), required: ['name'] },
  };
}

/**
 * The field that makes each signal's values (SOURCE_FIELD), required on an entry of that signal;
 * on a `single` entry's document, a logs entry's may be in `generator` (LOGS_IN_GENERATOR).
 */
function sourceRules(single = false): { source: string; rule: JsonSchema }[] {
  const alternative: Partial<Record<string, string>> = {
    generator: 'pack',
    ...(single && { log_generator: 'generator' }),
  };
  return Object.entries(SOURCE_FIELD).map(([signal, source]) => {
    const other = alternative[source];
    return {
      source,
      rule: { if: signalIs([signal]), then: other ? { anyOf: [has(source), has(other)] } : has(source) },
    };
  });
}

/** In a file, what an entry must give unless the file's defaults give it for every entry. */
function requiredUnlessDefaults(): JsonSchema[] {
  const unlessDefaults = (field: string, rule: JsonSchema): JsonSchema => ({
    if: { not: { type: 'object', properties: { defaults: has(field) }, required: ['defaults'] } },
    then: {
      type: 'object',
      properties: {
        scenarios: { type: 'array', items: rule, description: `Without ${field} in defaults, an entry gives it.` },
      },
    },
  });
  return [
    ...REQUIRED_ENTRY_FIELDS.map((field) => unlessDefaults(field, has(field))),
    ...sourceRules().map(({ source, rule }) => unlessDefaults(source, rule)),
  ];
}
