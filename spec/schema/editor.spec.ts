import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { diagnose, YamlLanguageServer, type Diagnostic } from '../support/yaml-language-server.js';

/**
 * What an editor with the YAML extension shows a person writing a pack file that names
 * docs/pack.schema.json in its modeline: the real yaml-language-server, spoken to over LSP
 * (spec/support/yaml-language-server.ts). The document is the example pack, opened at its real
 * path with the modeline put first, so a relative schema path resolves as it would on disk.
 */

const PACK_PATH = 'examples/catalog/packs/redis.yaml';
const PACK = readFileSync(PACK_PATH, 'utf8');
const PACK_SCHEMA_URL = (JSON.parse(readFileSync('docs/pack.schema.json', 'utf8')) as { $id: string }).$id;

const withModeline = (schemaRef: string, text = PACK) => `# yaml-language-server: $schema=${schemaRef}\n${text}`;
const RELATIVE_MODELINE_PACK = withModeline('../../../docs/pack.schema.json');

/** The line and text that each diagnostic's range covers in `text`, with its message. */
function located(text: string, diagnostics: Diagnostic[]) {
  const lines = text.split('\n');
  return diagnostics.map(({ range: { start, end }, message }) => ({
    line: start.line,
    endLine: end.line,
    covers: lines[start.line]!.slice(start.character, end.character),
    message,
  }));
}

/** `text` with the first `correct` key misspelled as `misspelled`, and the line it is on. */
function misspell(text: string, correct: string, misspelled: string) {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.trimStart().startsWith(`${correct}:`));
  expect(line, `${correct} in the example pack`).to.be.at.least(0);
  lines[line] = lines[line]!.replace(`${correct}:`, `${misspelled}:`);
  return { text: lines.join('\n'), line };
}

describe('editing a pack file with yaml-language-server (docs/pack.schema.json from the modeline)', () => {
  let server: YamlLanguageServer;
  before(async () => {
    server = await YamlLanguageServer.start();
  });
  after(() => server?.stop());

  it('a correctly spelled pack gets no diagnostics', async () => {
    expect(await server.diagnose(PACK_PATH, RELATIVE_MODELINE_PACK)).to.deep.equal([]);
  });

  for (const [correct, misspelled, where] of [
    ['shared_labels', 'sharedlabels', 'at the top level'],
    ['metric_type', 'metric_tpye', 'inside a metric'],
  ] as const) {
    it(`a misspelled field ${where} (${misspelled}) gets one diagnostic, on its key, naming it`, async () => {
      const { text, line } = misspell(RELATIVE_MODELINE_PACK, correct, misspelled);
      const diagnostics = located(text, await server.diagnose(PACK_PATH, text));
      expect(diagnostics.map(({ message: _, ...where }) => where)).to.deep.equal([{ line, endLine: line, covers: misspelled }]);
      expect(diagnostics[0]!.message).to.include(misspelled);
    });
  }

  it('the modeline may also name the schema by an absolute file:// URL', async () => {
    const { text, line } = misspell(withModeline(pathToFileURL('docs/pack.schema.json').href), 'shared_labels', 'sharedlabels');
    expect(located(text, await server.diagnose(PACK_PATH, text)).map((d) => d.line)).to.deep.equal([line]);
  });

  it('an https schema URL is served from its local file (schemaFiles), never fetched; without one the server says it cannot load it', async () => {
    const { text, line } = misspell(withModeline(PACK_SCHEMA_URL), 'shared_labels', 'sharedlabels');
    const mapped = await diagnose(PACK_PATH, text, { schemaFiles: { [PACK_SCHEMA_URL]: 'docs/pack.schema.json' } });
    expect(located(text, mapped).map((d) => d.line)).to.deep.equal([line]);
    const [unmapped] = await server.diagnose(PACK_PATH, text);
    expect(unmapped!.message).to.include(`Unable to load schema from '${PACK_SCHEMA_URL}'`);
  });
});
