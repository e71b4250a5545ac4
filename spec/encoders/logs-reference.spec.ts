import { expect } from 'chai';
import fc from 'fast-check';
import { jsonLinesLogs } from '../../lib/encoders/json-lines-logs.js';
import { syslog, ENTERPRISE_NUMBER } from '../../lib/encoders/syslog.js';
import { logGenerator } from '../../lib/generators/log.js';
import type { TemplateLogGenerator } from '../../lib/language/types.js';
import { SEVERITIES } from '../../lib/language/fields.js';
import { logBatch, textOf } from '../support/batches.js';

/**
 * The log encoders against the plainest code that states their format, on random records whose
 * text has everything that needs care: quotes, backslashes, `]`, control characters, line feeds,
 * U+2028, non-BMP characters and lone surrogates (alone, or split across a placeholder's edge).
 */

const AWKWARD = [
  '"',
  '\\',
  ']',
  '\n',
  '\r',
  '\t',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u2028',
  'é',
  '😀',
  '\ud83d',
  '\ude00',
  '{',
  '}',
  ' ',
  '=',
];
const char = fc.oneof(
  fc.constantFrom(...AWKWARD),
  fc.string({ minLength: 1, maxLength: 1 }),
  fc.constantFrom('a', 'b', '1'),
);
const text = fc.string({ unit: char, maxLength: 8 });
const key = fc.oneof(text, fc.constantFrom('a', 'b', 'user', '10', '9', 'Z'));
const record = fc.record({
  severity: fc.constantFrom(...SEVERITIES),
  message: text,
  fields: fc.dictionary(key, text, { maxKeys: 4 }),
  labels: fc.dictionary(key, text, { maxKeys: 3 }),
});
type LogRecord = { severity: string; message: string; fields: Record<string, string>; labels: Record<string, string> };
const AT = Date.parse('2026-03-04T05:06:07.089Z');

/** `{"k":"v",…}` sorted by key, each part through JSON.stringify. */
function sortedJson(o: Readonly<Record<string, string>>): string {
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(o[k])}`)
    .join(',')}}`;
}

/** The labels an encoder writes: an empty value is no label (docs/scenario-fields.md, Labels). */
const written = (labels: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(labels).filter(([, v]) => v !== ''));

function jsonReference(r: LogRecord, ms: number): string {
  const head = `{"timestamp":${JSON.stringify(new Date(ms).toISOString())},"severity":${JSON.stringify(r.severity)},"message":${JSON.stringify(r.message)}`;
  return `${head},"labels":${sortedJson(written(r.labels))},"fields":${sortedJson(r.fields)}}\n`;
}

/** Text as a sink writes it: its UTF-8 bytes (a lone surrogate becomes U+FFFD), read back; equal text, equal bytes. */
const utf8 = (data: string | Uint8Array) => textOf(typeof data === 'string' ? Buffer.from(data) : data);

const CODES: Record<string, number> = { trace: 7, debug: 7, info: 6, warn: 4, error: 3, fatal: 2 };

function syslogReference(r: LogRecord, ms: number): string {
  const element = (name: string, o: Readonly<Record<string, string>>) => {
    const keys = Object.keys(o).sort();
    if (keys.length === 0) return '';
    return `[${name}@${ENTERPRISE_NUMBER}${keys.map((k) => ` ${sdName(k)}="${oneLine(o[k]!.replace(/["\\\]]/g, (c) => `\\${c}`))}"`).join('')}]`;
  };
  // An SD-NAME: each code point outside printable US-ASCII, and each of = ] ", becomes _; at most 32 of them.
  const sdName = (k: string) =>
    Array.from(k, (c) => (/^[\x21-\x7e]$/.test(c) && !'="]'.includes(c) ? c : '_'))
      .join('')
      .slice(0, 32) || '_';
  const data = element('labels', written(r.labels)) + element('fields', r.fields);
  return `<${19 * 8 + CODES[r.severity]!}>1 ${new Date(ms).toISOString()} host app - - ${data || '-'} ${oneLine(r.message)}\n`;
}

/** A message or SD value on one line: each line feed, with the CR before it, as `\n`. */
const oneLine = (text: string) => text.split(/\r?\n/).join('\\n');

describe('log encoders against a reference', () => {
  const reference = { json_lines: jsonReference, syslog: syslogReference };
  const encoders = {
    json_lines: () => jsonLinesLogs(),
    syslog: () => syslog({ hostname: 'host', app_name: 'app', facility: 'local3' }),
  };
  for (const format of ['json_lines', 'syslog'] as const) {
    it(`${format}: random records give the reference's text, line by line`, () => {
      fc.assert(
        fc.property(fc.array(record, { maxLength: 12 }), (records) => {
          const encoded = encoders[format]().encode(logBatch(records, AT));
          const expected = records.map((r, i) => reference[format](r, AT + i));
          expect(utf8(encoded.data)).to.equal(utf8(expected.join('')));
          expect(encoded.frames.ends).to.deep.equal(
            expected.map((_, i) => Buffer.byteLength(expected.slice(0, i + 1).join(''))),
          );
          expect(encoded.bytes).to.equal(Buffer.byteLength(expected.join('')));
        }),
        { numRuns: 300 },
      );
    });

    it(`${format}: the records of random templates and pools give the reference's text, with one encoder across batches`, () => {
      // Pieces that end or start what the next or last piece continues: a surrogate pair, CR LF.
      const edge = fc.constantFrom('\ud83d', '\ude00', '\r', '\n');
      const template = fc.record({
        message: fc
          .array(fc.oneof(text, edge, fc.constantFrom('{a}', '{b}', '{c}', '{nopool}')), { maxLength: 6 })
          .map((p) => p.join('')),
      });
      const value = fc.oneof(
        text,
        fc.tuple(edge, text, edge).map((p) => p.join('')),
      );
      const pool = fc.array(value, { minLength: 1, maxLength: 3 });
      const config = fc.record({
        templates: fc.array(template, { minLength: 1, maxLength: 3 }),
        field_pools: fc.record({ a: pool, b: pool }),
      });
      fc.assert(
        fc.property(
          config,
          fc.array(fc.dictionary(key, text, { maxKeys: 2 }), { minLength: 1, maxLength: 3 }),
          (c, labelSets) => {
            const generate = logGenerator({
              type: 'template',
              seed: 7,
              severity_weights: { info: 1, error: 1 },
              ...c,
            } as TemplateLogGenerator);
            const encoder = encoders[format]();
            for (let b = 0; b < 3; b++) {
              const records = Array.from({ length: 10 }, (_, i) => ({
                ...generate(b * 10 + i, 0),
                labels: labelSets[i % labelSets.length]!,
              }));
              expect(utf8(encoder.encode(logBatch(records, AT)).data)).to.equal(
                utf8(records.map((r, i) => reference[format](r, AT + i)).join('')),
              );
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  }
});
