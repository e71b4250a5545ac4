import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { YamlLanguageServer, type Diagnostic } from '../support/yaml-language-server.js';
import { SCHEMA_MODELINE } from '../../lib/new/modeline.js';

/**
 * What an editor with the YAML extension shows a person editing svc's files, which name the
 * shipped schema/scenario.schema.json in their first line: the real yaml-language-server, spoken
 * to over LSP (spec/support/yaml-language-server.ts). The documents are examples, opened at their
 * real paths, so the relative schema paths of their modelines resolve as they do on disk.
 */

const SCENARIO_PATH = 'examples/quickstart.yaml';
const PACK_PATH = 'examples/catalog/packs/redis.yaml';
const textOf = (path: string) => readFileSync(path, 'utf8');

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
  const line = lines.findIndex((l) => l.replace(/^[\s-]*/, '').startsWith(`${correct}:`));
  expect(line, `${correct} in the example`).to.be.at.least(0);
  lines[line] = lines[line]!.replace(`${correct}:`, `${misspelled}:`);
  return { text: lines.join('\n'), line };
}

describe('editing svc files with yaml-language-server (schema/scenario.schema.json from the modeline)', () => {
  let server: YamlLanguageServer;
  before(async () => {
    server = await YamlLanguageServer.start();
  });
  after(() => server?.stop());

  it('the examples, as shipped, get no diagnostics', async () => {
    for (const path of [SCENARIO_PATH, 'examples/after-chain.yaml', PACK_PATH])
      expect(await server.diagnose(path, textOf(path)), path).to.deep.equal([]);
  });

  for (const [path, correct, misspelled, where] of [
    [SCENARIO_PATH, 'generator', 'generater', 'in a scenario entry'],
    [SCENARIO_PATH, 'kind', 'knd', 'at the top of a scenario file'],
    [PACK_PATH, 'shared_labels', 'sharedlabels', 'at the top of a pack file'],
    [PACK_PATH, 'metric_type', 'metric_tpye', 'inside a pack metric'],
  ] as const) {
    it(`a misspelled field ${where} (${misspelled}) gets a diagnostic on its key, naming it`, async () => {
      const { text, line } = misspell(textOf(path), correct, misspelled);
      const diagnostics = located(text, await server.diagnose(path, text));
      const onKey = diagnostics.filter((d) => d.covers === misspelled);
      expect(onKey.map(({ message: _, ...where }) => where)).to.deep.equal([
        { line, endLine: line, covers: misspelled },
      ]);
      expect(onKey[0]!.message).to.include(misspelled);
    });
  }

  it('a value outside its enum gets a diagnostic on that line', async () => {
    const text = textOf(SCENARIO_PATH).replace('signal_type: metrics', 'signal_type: metricz');
    const line = text.split('\n').findIndex((l) => l.includes('metricz'));
    expect(located(text, await server.diagnose(SCENARIO_PATH, text)).map((d) => d.line)).to.include(line);
  });

  it("a duration past its field's limit gets a diagnostic on that line", async () => {
    const text = textOf(SCENARIO_PATH).replace('duration: 5s', 'duration: 400d');
    const line = text.split('\n').findIndex((l) => l.includes('400d'));
    expect(located(text, await server.diagnose(SCENARIO_PATH, text)).map((d) => d.line)).to.deep.equal([line]);
  });

  it('the modeline svc new writes (the shipped schema by a file:// URL) works too', async () => {
    const text = `${SCHEMA_MODELINE}\n${textOf(SCENARIO_PATH).split('\n').slice(1).join('\n')}`;
    expect(await server.diagnose(SCENARIO_PATH, text)).to.deep.equal([]);
    const { text: wrong, line } = misspell(text, 'generator', 'generater');
    expect(
      located(wrong, await server.diagnose(SCENARIO_PATH, wrong))
        .filter((d) => d.covers === 'generater')
        .map((d) => d.line),
    ).to.deep.equal([line]);
  });
});
