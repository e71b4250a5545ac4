import { readFileSync } from 'node:fs';
import { codeSpan, codeSpans, docTable } from './support/doc-tables.js';
import { expect } from 'chai';
import { ENCODER_KINDS } from '../lib/encoders/kinds/index.js';
import { SINK_KINDS } from '../lib/sinks/kinds/index.js';
import { familyOf, GENERATOR_ALIASES, GENERATOR_VARIANTS } from '../lib/language/fields.js';
import type { SignalType } from '../lib/language/types.js';
import { scenarioSchema } from '../lib/config/schema.js';
import { entryFields } from '../lib/config/entry-fields.js';
import { DURATION_PATTERN } from '../lib/language/duration.js';

/** The rows of the tables under `heading` (`## Sinks`) in docs/scenario-fields.md, cut into cells. */
const table = (heading: string): string[][] => docTable('scenario-fields.md', { heading });

/** A kind's type cell: its name, and its aliases after it. */
const typeCell = (kind: { type: string; aliases?: readonly string[] }): string =>
  `\`${kind.type}\`${kind.aliases ? ` (alias ${kind.aliases.map((alias) => `\`${alias}\``).join(', ')})` : ''}`;

/**
 * The fields of each type of a tagged definition of the JSON Schema (`generator`), by its `type`, but `type`; a member
 * of its `allOf` that is not about one type (no `if.properties.type`) is not one.
 */
function fieldsByType(definition: string): Map<string, string[]> {
  const { allOf } = (scenarioSchema() as { $defs: Record<string, { allOf: Record<string, any>[] }> }).$defs[
    definition
  ]!;
  return new Map(
    allOf
      .filter((member) => member.if?.properties?.type)
      .map(({ if: { properties }, then }) => [
        // A kind with aliases is matched by an enum of its names, its own first.
        (properties.type.const ?? properties.type.enum[0]) as string,
        Object.keys(then.properties).filter((field) => field !== 'type'),
      ]),
  );
}

/** The fields of `type` in `byType` (of fieldsByType), failing when the schema has no such type. */
function fieldsOf(byType: Map<string, string[]>, type: string, definition: string): string[] {
  const fields = byType.get(type);
  if (!fields)
    expect.fail(`the JSON Schema's ${definition} has no type "${type}" (it has ${[...byType.keys()].join(', ')})`);
  return fields;
}

/** The fields a cell does not name as `field`. */
const unnamed = (cell: string, fields: readonly string[]): string[] =>
  fields.filter((field) => !cell.includes(`\`${field}\``));

const openapi = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
const eventField = (field: string): string[] => openapi.components.schemas.Event.properties[field].properties.type.enum;

describe('the kind registries and the docs', () => {
  it('docs/scenario-fields.md lists every sink kind, its aliases, its fields, its address field and its build feature', () => {
    const rows = table('## Sinks');
    const schemaFields = fieldsByType('sink');
    expect(rows.map(([type]) => type)).to.deep.equal(SINK_KINDS.map(typeCell));
    for (const [[, fields, rules], kind] of rows.map((row, i) => [row, SINK_KINDS[i]!] as const)) {
      expect(unnamed(fields!, fieldsOf(schemaFields, kind.type, 'sink')), kind.type).to.deep.equal([]);
      if (kind.address) expect(fields, kind.type).to.include(`**\`${kind.address.field}\`**`);
      expect(rules!.match(/build feature `([^`]+)`/)?.[1], kind.type).to.equal(kind.feature);
    }
  });

  it('docs/scenario-fields.md lists every encoder kind, its aliases, its fields and its build feature', () => {
    const rows = table('## Encoders');
    const schemaFields = fieldsByType('encoder');
    expect(rows.map(([type]) => type)).to.deep.equal(ENCODER_KINDS.map(typeCell));
    for (const [[, fields, rules], kind] of rows.map((row, i) => [row, ENCODER_KINDS[i]!] as const)) {
      expect(unnamed(fields!, fieldsOf(schemaFields, kind.type, 'encoder')), kind.type).to.deep.equal([]);
      expect(rules!.match(/build feature `([^`]+)`/)?.[1], kind.type).to.equal(kind.feature);
    }
  });

  it('docs/architecture.md lists every sink kind and every encoder kind with the signals it carries', () => {
    expect(docTable('architecture.md', { heading: '### Sinks' }).map(([type]) => type)).to.deep.equal(
      SINK_KINDS.map((kind) => `\`${kind.type}\``),
    );
    expect(
      docTable('architecture.md', { heading: '### Encoders' }).map(([type, carries]) => [type, carries]),
    ).to.deep.equal(ENCODER_KINDS.map((kind) => [`\`${kind.type}\``, kind.carries.join(', ')]));
  });

  it('docs/signals.md names every encoder of each signal type', () => {
    for (const [signal, , , encoders] of docTable('signals.md', { heading: '# Signal types' })) {
      const family = familyOf(signal!.replaceAll('`', '') as SignalType);
      const named = [...encoders!.matchAll(/`([a-z_]+)`/g)].map(([, type]) => type).sort();
      const able = ENCODER_KINDS.filter((kind) => kind.carries.includes(family)).map((kind) => kind.type);
      expect(named, signal).to.deep.equal(able.sort());
    }
  });

  // In order: the table follows lib/config/entry-fields.ts, so a new field is documented where the code has it.
  it('docs/scenario-fields.md lists every entry field, in the order of lib/config/entry-fields.ts', () => {
    const fields = docTable('scenario-fields.md', { heading: '## Entry', keep: (_, [first]) => first === 'Field' });
    expect(fields.map(([field]) => field)).to.deep.equal(Object.keys(entryFields).map((field) => `\`${field}\``));
  });

  it('docs/scenario-fields.md lists every generator type and operational alias, each with every field it takes', () => {
    const fields = fieldsByType('generator');
    // The section holds two tables: the fields of each type (four cells), then the value of each.
    const generators = table('### Generators');
    const byFields = generators.filter((row) => row.length === 4);
    expect(byFields.map(([type]) => type)).to.deep.equal(Object.keys(GENERATOR_VARIANTS).map((type) => `\`${type}\``));
    expect(
      generators
        .filter((row) => row.length === 2)
        .map(([type]) => type)
        .sort(),
    ).to.deep.equal(byFields.map(([type]) => type).sort());
    const aliases = table('### Operational aliases');
    expect(aliases.map(([alias]) => alias)).to.deep.equal(GENERATOR_ALIASES.map((alias) => `\`${alias}\``));
    for (const [type, cell] of [...byFields, ...aliases]) {
      const name = type!.replaceAll('`', '');
      expect(unnamed(cell!, fieldsOf(fields, name, 'generator')), name).to.deep.equal([]);
    }
  });

  it('docs/scenario-fields.md lists every log generator type with every field it takes', () => {
    const rows = table('### Log generator');
    const types = fieldsByType('log_generator');
    // The rule of `type` has a clause a type, apart by ';': the type's name, its first code span, then its fields.
    const typeRule = rows.find(([field]) => field === '`type`')!.at(-1)!;
    const clauses = new Map(typeRule.split(';').map((clause) => [codeSpan(clause), clause]));
    expect([...clauses.keys()].sort(), 'the types of the rule of `type`').to.deep.equal([...types.keys()].sort());
    for (const [type, fields] of types) {
      // A template's fields are rows of the table.
      const named = type === 'template' ? rows.map(([field]) => field).join(' ') : clauses.get(type)!;
      expect(unnamed(named, fields), type).to.deep.equal([]);
    }
  });

  it('docs/scenario-fields.md lists every distribution type with exactly the fields it takes', () => {
    const rows = table('### Histograms and summaries');
    const types = fieldsByType('distribution');
    const typeRule = rows.find(([field]) => field === '`distribution.type`')!.at(-1)!;
    expect(codeSpans(typeRule).sort(), 'the types of the rule of `distribution.type`').to.deep.equal(
      [...types.keys()].sort(),
    );
    for (const [type, fields] of types) {
      // A type's fields are the rows of `distribution.` fields whose Where is the type or any distribution; a row
      // names them `distribution.mean`, `stddev`: the first with its prefix, the others without.
      const named = rows
        .filter(
          ([field, where]) =>
            codeSpan(field!).startsWith('distribution.') && [type, 'any distribution'].includes(where!),
        )
        .flatMap(([field]) => codeSpans(field!).map((name) => name.replace(/^distribution\./, '')));
      expect(named.sort(), type).to.deep.equal([...fields].sort());
    }
  });

  it('docs/openapi.json names the sink and encoder types of POST /events', () => {
    expect(eventField('sink')).to.deep.equal(SINK_KINDS.map((kind) => kind.type));
    expect(eventField('encoder')).to.deep.equal(ENCODER_KINDS.map((kind) => kind.type));
  });

  it("docs/openapi.json's GET /preview `for` has the grammar of a scenario file's durations", () => {
    const forParameter = openapi.paths['/preview'].parameters.find((p: { name: string }) => p.name === 'for');
    expect(forParameter.schema.pattern).to.equal(DURATION_PATTERN);
  });
});
