import { expect } from 'chai';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ConfigError, loadScenarioFile } from '../../lib/config/index.js';
import { loadPackFile } from '../../lib/config/pack.js';
import { readTextFile } from '../../lib/config/read.js';
import { configError, entryProblems, logs, metric, problems, v2 } from '../support/scenarios.js';
import { temporaryDirectory } from '../support/directories.js';

const MiB = 1024 * 1024;

/** The one message of a document refused before (or while) it is parsed. */
function refusal(text: string, format?: 'yaml' | 'json'): { kind: string; message: string } {
  const error = configError(text, format && { format });
  expect(error.problems, error.message).to.have.length(1);
  return { kind: error.kind, message: error.problems[0]!.message };
}

describe('input cost: documents are bounded before they cost time or memory', () => {
  describe('nesting depth (64 levels)', () => {
    it('refuses deeply nested YAML flow lists without reaching the parser recursion', () => {
      expect(refusal('['.repeat(50_000) + ']'.repeat(50_000))).to.deep.equal({
        kind: 'syntax',
        message: 'the document nests mappings and lists deeper than 64 levels (at line 1, column 65)',
      });
    });

    it('refuses deeply nested YAML block lists and mappings', () => {
      expect(refusal(`${'- '.repeat(50_000)}x\n`).message).to.match(
        /^the document nests mappings and lists deeper than 64 levels \(at line 1, column \d+\)$/,
      );
      let indented = '';
      for (let i = 0; i < 100; i++) indented += `${' '.repeat(i)}k${i}:\n`;
      expect(refusal(`${indented}${' '.repeat(100)}x`).message).to.equal(
        'the document nests mappings and lists deeper than 64 levels (at line 65, column 68)',
      );
    });

    it('refuses deeply nested JSON', () => {
      expect(refusal('['.repeat(500_000) + ']'.repeat(500_000), 'json')).to.deep.equal({
        kind: 'syntax',
        message: 'the document nests mappings and lists deeper than 64 levels (at line 1, column 65)',
      });
    });

    it('tells JSON that is not valid before it nests too deep by its first error, the depth read as the text is parsed', () => {
      expect(refusal(`{"a" ${'['.repeat(500_000)}`, 'json')).to.deep.equal({
        kind: 'syntax',
        message: "invalid JSON: Expected ':' after property name in JSON at line 1, column 6",
      });
    });

    it('accepts 64 levels', () => {
      const nested = (open: string, close: string) => `{"labels": ${open.repeat(63)}1${close.repeat(63)}}`;
      for (const format of ['yaml', 'json'] as const) {
        expect(problems(nested('[', ']'), { format })[0]).to.match(/^entry: labels: invalid type/);
      }
    });
  });

  describe('size', () => {
    it('refuses a text over 1 MiB', () => {
      const big = JSON.stringify({ ...metric(), help: 'x'.repeat(MiB) });
      expect(refusal(big, 'json')).to.deep.equal({
        kind: 'syntax',
        message: `the document is ${big.length} bytes; the limit is 1048576 bytes (1 MiB)`,
      });
    });

    it('refuses a YAML text over 128 KiB, pointing to JSON', () => {
      const big = `# ${'x'.repeat(128 * 1024)}\n${JSON.stringify(metric())}`;
      expect(refusal(big)).to.deep.equal({
        kind: 'syntax',
        message: `the document is ${big.length} bytes; the limit for YAML here is 131072 bytes: split it into several files, or send it as JSON (up to 1 MiB)`,
      });
    });

    it('refuses a YAML document of more than 5000 tokens', () => {
      expect(refusal(`a: [${'1,'.repeat(20_000)}1]`)).to.deep.equal({
        kind: 'syntax',
        message:
          'the document has more than 5000 YAML tokens (values, keys, indicators, line breaks): split it into several files, or send it as JSON',
      });
    });

    it('finds duplicate keys among many', () => {
      const keys = Array.from({ length: 900 }, (_, i) => `k${i}: 1`);
      expect(refusal([...keys, 'k899: 2'].join('\n'))).to.deep.equal({
        kind: 'syntax',
        message: 'invalid YAML: duplicate key "k899" at line 901, column 1',
      });
    });

    it('refuses an alias inside the node it names (a call tree that calls itself), and takes one used beside it', () => {
      const calls = (inner: string) =>
        ['root:', '  calls:', '    - &c', '      operation: loop', `      calls: [${inner}]`].join('\n');
      expect(refusal(calls('*c'))).to.deep.equal({
        kind: 'syntax',
        message:
          'invalid YAML: the alias *c at line 5, column 15 is inside the node it names: it would make a structure that contains itself',
      });
      const reused = configError(['a: &x {n: 1}', 'b: [*x, *x]', 'c: {d: *x}'].join('\n'));
      expect(reused.kind).to.not.equal('syntax');
    });

    it('names an alias without its anchor as such, not as an alias bomb', () => {
      for (const [text, name] of [
        ['a: *nope', 'nope'],
        ['a: *x\nb: &x 1', 'x'],
      ]) {
        expect(refusal(text!)).to.deep.equal({
          kind: 'syntax',
          message: `invalid YAML: the alias *${name} at line 1, column 4 names no anchor: write &${name} on a node before it`,
        });
      }
    });

    it('refuses a path longer than the system opens, in every field that names a file, quoting it cut short', () => {
      const long = `${'d/'.repeat(2100)}x`;
      const kafka = { type: 'broker', brokers: ['127.0.0.1:9092'], topic: 't', tls: { enabled: true, ca_cert: long } };
      const expected = `expected a path of 1 to 4096 characters, got "${long.slice(0, 57)}..."`;
      expect(
        entryProblems(metric({ sink: { type: 'file', path: long } })).concat(
          entryProblems(metric({ sink: kafka })),
          entryProblems(metric({ generator: { type: 'csv_replay', file: long } })),
          entryProblems(logs({ log_generator: { type: 'replay', file: long } })),
          entryProblems({ id: 'p', signal_type: 'metrics', pack: long, rate: 1 }),
        ),
      ).to.deep.equal([
        `scenarios[0] (cpu): sink.path: ${expected}`,
        `scenarios[0] (cpu): sink.tls.ca_cert: ${expected}`,
        `scenarios[0] (cpu): generator.file: ${expected}`,
        `scenarios[0] (app): log_generator.file: ${expected}`,
        `scenarios[0] (p): pack: ${expected}`,
      ]);
    });

    it('refuses more than 500 entries before validating any of them', () => {
      const entries = Array.from({ length: 372_000 }, () => 0);
      expect(refusal(v2(entries), 'json')).to.deep.equal({
        kind: 'invalid',
        message: 'scenarios: expected at most 500 entries, got 372000',
      });
    });
  });

  describe('text that is not YAML or JSON', () => {
    it('names binary data without echoing it', () => {
      for (const format of ['yaml', 'json'] as const) {
        expect(refusal('signal_type: metrics\nna\u0000\u0001\u0002me: x\n', format)).to.deep.equal({
          kind: 'syntax',
          message: 'not a YAML or JSON text: it holds binary data (a control character at line 2, column 3)',
        });
      }
    });

    it('does not leak parser internals such as a stack overflow', () => {
      for (const text of ['['.repeat(5000), '{a: '.repeat(5000), `${'- '.repeat(5000)}x`]) {
        expect(configError(text).message).not.to.match(/call stack|RangeError|Maximum/);
      }
    });
  });

  describe('files', () => {
    const dir = temporaryDirectory('svc-input-cost-');
    const failure = async (load: Promise<unknown>): Promise<ConfigError> => {
      const error = await load.catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ConfigError);
      return error as ConfigError;
    };

    it('reads a file with the larger budget of a process of its own: 500 entries of YAML load, the same text as a request body does not', async () => {
      const entry = (i: number) =>
        `  - { signal_type: metrics, name: m_${i}, rate: 1, labels: { host: web-${i}, region: eu }, generator: { type: sine, amplitude: 3, period_secs: 60, offset: 5 } }\n`;
      const text = `version: 2\nkind: runnable\nscenarios:\n${Array.from({ length: 500 }, (_, i) => entry(i)).join('')}`;
      const path = join(dir, 'five-hundred.yaml');
      writeFileSync(path, text);
      expect((await loadScenarioFile(path)).scenarios).to.have.length(500);
      expect(refusal(text).message).to.match(/^the document has more than 5000 YAML tokens .* or send it as JSON$/);
    });

    it('refuses a file over 1 MiB without reading all of it', async () => {
      // A sparse file of 3 GiB: reading it whole would fail (past Node's 2 GiB buffer limit) or take long.
      const path = join(dir, 'huge.yaml');
      writeFileSync(path, 'scenarios:\n');
      truncateSync(path, 3 * 2 ** 30);
      const error = await failure(loadScenarioFile(path));
      expect(error.message).to.equal(
        `${path}: the text is larger than 1048576 bytes (1 MiB), the limit for a scenario file`,
      );
    });

    it('reads a file of any size below the limit whole, and one past it as too large', async () => {
      const text = `version: 2\nkind: runnable\nscenarios:\n${Array.from({ length: 300 }, (_, i) => `  - {signal_type: metrics, name: up_${i}, rate: 1, generator: {type: constant, value: 1}}\n`).join('')}`;
      const path = join(dir, 'three-hundred.yaml');
      writeFileSync(path, text);
      expect((await loadScenarioFile(path)).scenarios).to.have.length(300);
      const over = join(dir, 'just-over.json');
      writeFileSync(over, `${JSON.stringify(metric())}${' '.repeat(MiB)}`);
      expect((await failure(loadScenarioFile(over))).message).to.match(/the text is larger than 1048576 bytes/);
    });

    it('reads a stream (standard input) with the same bound: an endless one is refused once past 1 MiB, and is read no further', async () => {
      let pulled = 0;
      const endless = Readable.from(
        (function* () {
          for (;;) {
            pulled += 64 * 1024;
            yield Buffer.alloc(64 * 1024, 'a');
          }
        })(),
      );
      const error = await failure(readTextFile({ stream: endless, origin: 'standard input' }, 'scenario file'));
      expect(error.message).to.equal(
        'standard input: the text is larger than 1048576 bytes (1 MiB), the limit for a scenario file',
      );
      expect(pulled).to.be.at.most(MiB + 2 * 64 * 1024);
      expect(endless.destroyed).to.equal(true);
    });

    it('says that a binary file is not a text file', async () => {
      const path = join(dir, 'program.yaml');
      writeFileSync(path, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0xff, 0xfe, 0x00]));
      const error = await failure(loadScenarioFile(path));
      expect(error.message).to.equal(
        `${path}: not a text file (it holds binary data): give a YAML or JSON scenario file`,
      );
    });

    it('says that a directory is not a file', async () => {
      const path = join(dir, 'a-directory.yaml');
      mkdirSync(path);
      expect((await failure(loadScenarioFile(path))).message).to.equal(
        `${path}: cannot read the scenario file (it is a directory)`,
      );
      expect((await failure(loadPackFile(path))).message).to.equal(
        `${path}: cannot read the pack file (it is a directory)`,
      );
    });
  });
});
