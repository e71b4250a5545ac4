import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { scenarioSchema } from '../../lib/config/schema.js';
import { loadPack } from '../../lib/config/pack.js';
import { loadScenario } from '../../lib/config/load.js';
import { interpolate } from '../../lib/config/interpolate.js';
import { entryFields } from '../../lib/config/entry-fields.js';
import { SINK_KINDS } from '../../lib/sinks/kinds/index.js';
import { ENCODER_KINDS } from '../../lib/encoders/kinds/index.js';
import { GENERATOR_ALIASES, GENERATOR_VARIANTS } from '../../lib/language/fields.js';
import { DURATION_PATTERN } from '../../lib/language/duration.js';
import { schemaErrors } from '../support/json-schema.js';
import { svc } from '../support/cli.js';
import { temporaryDirectory } from '../support/directories.js';

type Schema = Record<string, any>;
const schema = scenarioSchema() as Schema;
const shipped = JSON.parse(readFileSync('schema/scenario.schema.json', 'utf8')) as Schema;
const errorsOf = (document: unknown) => schemaErrors(shipped, document);

/** Every YAML file below `dir`, but Prometheus rule files. */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((f) => f.isFile() && /\.ya?ml$/.test(f.name) && !/\.rules\.ya?ml$/.test(f.name))
    .map((f) => join(f.parentPath, f.name));
}

/** A document as svc reads it: `${NAME}` expanded (every variable unset, so defaults apply), then parsed. */
const documentOf = (text: string, origin: string) => parse(interpolate(text, {}, origin)) as unknown;

/** A scenario file, single entry or pack file (a chart's values have a `scenarios` mapping of file texts). */
function isScenarioLanguage(document: Record<string, unknown> | null): boolean {
  return (
    document !== null &&
    (['version', 'metrics', 'signal_type'].some((key) => Object.hasOwn(document, key)) ||
      Array.isArray(document.scenarios))
  );
}

/** Scenario-language documents among the YAML blocks of the docs (Helm values and Prometheus rules are other formats). */
function docBlocks(): { origin: string; text: string }[] {
  const files = [
    'README.md',
    ...readdirSync('docs')
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', f)),
  ];
  return files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/```ya?ml\n([\s\S]*?)```/g)]
      .map((match, i) => ({ origin: `${file} block ${i + 1}`, text: match[1]! }))
      .filter(({ text }) => isScenarioLanguage(parse(text))),
  );
}

/** Every object schema below `node`, with the path that leads to it. */
function* objects(node: unknown, path = '#'): Generator<[string, Schema]> {
  if (Array.isArray(node)) node.forEach((item, i) => objects(item, `${path}/${i}`));
  if (typeof node !== 'object' || node === null) return;
  if ((node as Schema).properties) yield [path, node as Schema];
  for (const [key, value] of Object.entries(node)) yield* objects(value, `${path}/${key}`);
}

describe('the JSON Schema of scenario and pack files', () => {
  it('is shipped as schema/scenario.schema.json, equal to what the codecs write (npm run schema writes it)', () => {
    expect(shipped).to.deep.equal(schema);
  });

  it('svc schema prints it, and -o writes it', async () => {
    const printed = await svc(['schema']);
    expect(printed.code).to.equal(0);
    expect(JSON.parse(printed.stdout)).to.deep.equal(schema);
    const file = join(temporaryDirectory('svc-schema-'), 'scenario.schema.json');
    expect((await svc(['schema', '-o', file])).code).to.equal(0);
    expect(readFileSync(file, 'utf8')).to.equal(printed.stdout);
  });

  it('comes from the codecs: every entry field, generator type and alias, sink and encoder kind and alias is in it', () => {
    expect(Object.keys(schema.$defs.entry.properties)).to.deep.equal(Object.keys(entryFields));
    const types = (def: string) => schema.$defs[def].properties.type.enum as string[];
    expect(types('generator')).to.deep.equal([...Object.keys(GENERATOR_VARIANTS), ...GENERATOR_ALIASES]);
    expect(types('pack_metric_generator')).to.deep.equal([
      ...Object.keys(GENERATOR_VARIANTS).filter((type) => type !== 'csv_replay'),
      ...GENERATOR_ALIASES,
    ]);
    expect(types('sink')).to.deep.equal(SINK_KINDS.flatMap((kind) => [kind.type, ...(kind.aliases ?? [])]));
    expect(types('encoder')).to.deep.equal(ENCODER_KINDS.flatMap((kind) => [kind.type, ...(kind.aliases ?? [])]));
  });

  it('describes every field, so an editor shows what it is', () => {
    const undescribed: string[] = [];
    for (const [path, object] of objects(schema)) {
      for (const [field, sub] of Object.entries(object.properties as Record<string, Schema>)) {
        // A variant's `type` is described by its union; conditions (`if`, `not`) are no fields.
        if (field === 'type' || /\/(if|not)(\/|$)/.test(path) || Object.keys(sub).length === 0) continue;
        // A reference is described by its definition, which is what an editor shows.
        const described =
          sub.description ??
          (typeof sub.$ref === 'string' ? schema.$defs[sub.$ref.replace('#/$defs/', '')]?.description : undefined);
        if (described === undefined) undescribed.push(`${path}/properties/${field}`);
      }
    }
    expect(undescribed).to.deep.equal([]);
  });

  it('accepts every example (scenario and pack files), as svc does', () => {
    const files = yamlFiles('examples');
    expect(files.length).to.be.greaterThan(20);
    for (const file of files) {
      const document = documentOf(readFileSync(file, 'utf8'), file);
      expect(errorsOf(document), file).to.deep.equal([]);
    }
  });

  it('is named by the first line of every example, by a relative path that reaches the shipped file', () => {
    for (const file of yamlFiles('examples')) {
      const [first] = readFileSync(file, 'utf8').split('\n');
      const ref = /^# yaml-language-server: \$schema=(\S+)$/.exec(first!)?.[1];
      expect(ref, file).to.be.a('string');
      expect(resolve(dirname(file), ref!), file).to.equal(resolve('schema/scenario.schema.json'));
    }
  });

  it('accepts every scenario and pack document of the docs and the README, which svc loads too', () => {
    const blocks = docBlocks();
    expect(blocks.length).to.be.greaterThan(3);
    for (const { origin, text } of blocks) {
      expect(errorsOf(documentOf(text, origin)), origin).to.deep.equal([]);
      const isPack = Object.hasOwn(parse(text), 'metrics');
      expect(
        () => (isPack ? loadPack(text, { origin }) : loadScenario(text, { origin, variables: {} })),
        origin,
      ).not.to.throw();
    }
  });

  it('refuses what svc refuses for its shape: an unknown field, a wrong type, a value outside its enum or range', () => {
    const entry = { signal_type: 'metrics', name: 'up', rate: 1, generator: { type: 'constant', value: 1 } };
    const file = (extra: object) => ({ version: 2, kind: 'runnable', scenarios: [{ ...entry, ...extra }] });
    expect(errorsOf(file({}))).to.deep.equal([]);
    expect(errorsOf(file({ rat: 1 }))).to.include('/scenarios/0: must NOT have additional properties ("rat")');
    expect(errorsOf(file({ rate: '5' }))).to.include('/scenarios/0/rate: must be number');
    expect(errorsOf(file({ rate: 0 }))).to.include('/scenarios/0/rate: must be >= 0.000001');
    expect(errorsOf(file({ sink: { type: 'kafak' } }))).to.include(
      '/scenarios/0/sink/type: must be equal to one of the allowed values',
    );
    expect(errorsOf(file({ sink: { type: 'file', pth: '/tmp/x' } }))).to.include(
      '/scenarios/0/sink: must NOT have additional properties ("pth")',
    );
    expect(errorsOf(file({ generator: { type: 'sine', amplitude: 1 } }))).to.include(
      "/scenarios/0/generator: must have required property 'period_secs'",
    );
    expect(errorsOf(file({ duration: '10 minutes' }))).to.include(
      `/scenarios/0/duration: must match pattern "${DURATION_PATTERN}"`,
    );
    expect(errorsOf(file({ log_generator: { type: 'template', templates: [{ message: 'x' }] } }))).to.include(
      '/scenarios/0/log_generator: boolean schema is false',
    );
    expect(errorsOf({ version: 2, scenarios: [entry] })).to.include(": must have required property 'kind'");
  });

  it("accepts the other tools' names and forms svc takes: aliases, a single entry beside version 2, csv_replay columns by position", () => {
    expect(
      errorsOf({
        version: 2,
        signal_type: 'logs',
        name: 'app',
        rate: 1,
        log_generator: { type: 'template', templates: [{ message: 'x' }] },
        sink: { type: 'loki', url: 'http://l:3100' },
      }),
    ).to.deep.equal([]);
    expect(
      errorsOf({
        signal_type: 'metrics',
        name: 'up',
        rate: 1,
        generator: { type: 'flap', up_duration: '1m', down_duration: '10s' },
        encoder: { type: 'prometheus_text' },
      }),
    ).to.deep.equal([]);
    const columns = [{ index: 1, name: 'load', labels: { host: 'a' } }, 'errors'];
    expect(
      errorsOf({
        signal_type: 'metrics',
        name: 'x',
        rate: 1,
        generator: { type: 'csv_replay', file: 'd.csv', columns },
      }),
    ).to.deep.equal([]);
    expect(
      errorsOf({
        signal_type: 'metrics',
        rate: 1,
        pack: 'node_cpu',
        overrides: { node_load1: { generator: { type: 'leak', baseline: 0, ceiling: 1, time_to_ceiling: '1m' } } },
      }),
    ).to.deep.equal([]);
  });
});
