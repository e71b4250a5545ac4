import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ENCODER_KINDS } from '../lib/encoders/kinds/index.js';
import { SINK_KINDS } from '../lib/sinks/kinds/index.js';
import { familyOf } from '../lib/language/fields.js';
import type { SignalType } from '../lib/language/types.js';

/** The rows of the table under `heading` (`## Sinks`) in a page of docs/, cut into cells. */
function table(heading: string, page = 'scenario-fields.md'): string[][] {
  // A line feed before the page: its title is a heading too.
  const text = `\n${readFileSync(new URL(`../docs/${page}`, import.meta.url), 'utf8')}`;
  const section = text.split(`\n${heading}\n`)[1]!.split('\n#')[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** A kind's type cell: its name, and its aliases after it. */
const typeCell = (kind: { type: string; aliases?: readonly string[] }): string =>
  `\`${kind.type}\`${kind.aliases ? ` (alias ${kind.aliases.map((alias) => `\`${alias}\``).join(', ')})` : ''}`;

const openapi = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
const eventField = (field: string): string[] => openapi.components.schemas.Event.properties[field].properties.type.enum;

describe('the kind registries and the docs', () => {
  it('docs/scenario-fields.md lists every sink kind, its aliases, its address field and its build feature', () => {
    const rows = table('## Sinks');
    expect(rows.map(([type]) => type)).to.deep.equal(SINK_KINDS.map(typeCell));
    for (const [[, fields, rules], kind] of rows.map((row, i) => [row, SINK_KINDS[i]!] as const)) {
      if (kind.address) expect(fields, kind.type).to.include(`**\`${kind.address.field}\`**`);
      expect(rules!.match(/build feature `([^`]+)`/)?.[1], kind.type).to.equal(kind.feature);
    }
  });

  it('docs/scenario-fields.md lists every encoder kind, its aliases and its build feature', () => {
    const rows = table('## Encoders');
    expect(rows.map(([type]) => type)).to.deep.equal(ENCODER_KINDS.map(typeCell));
    for (const [[, , rules], kind] of rows.map((row, i) => [row, ENCODER_KINDS[i]!] as const)) {
      expect(rules!.match(/build feature `([^`]+)`/)?.[1], kind.type).to.equal(kind.feature);
    }
  });

  it('docs/architecture.md lists every sink kind and every encoder kind with the signals it carries', () => {
    expect(table('### Sinks', 'architecture.md').map(([type]) => type)).to.deep.equal(
      SINK_KINDS.map((kind) => `\`${kind.type}\``),
    );
    expect(table('### Encoders', 'architecture.md').map(([type, carries]) => [type, carries])).to.deep.equal(
      ENCODER_KINDS.map((kind) => [`\`${kind.type}\``, kind.carries.join(', ')]),
    );
  });

  it('docs/signals.md names every encoder of each signal type', () => {
    for (const [signal, , , encoders] of table('# Signal types', 'signals.md')) {
      const family = familyOf(signal!.replaceAll('`', '') as SignalType);
      const named = [...encoders!.matchAll(/`([a-z_]+)`/g)].map(([, type]) => type).sort();
      const able = ENCODER_KINDS.filter((kind) => kind.carries.includes(family)).map((kind) => kind.type);
      expect(named, signal).to.deep.equal(able.sort());
    }
  });

  it('docs/openapi.json names the sink and encoder types of POST /events', () => {
    expect(eventField('sink')).to.deep.equal(SINK_KINDS.map((kind) => kind.type));
    expect(eventField('encoder')).to.deep.equal(ENCODER_KINDS.map((kind) => kind.type));
  });
});
