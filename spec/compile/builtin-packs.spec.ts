import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { TestScheduler } from 'rxjs/testing';
import { parse } from 'yaml';
import { ConfigError, loadPack } from '../../lib/config/index.js';
import { BUILTIN_PACK_DOCUMENTS, builtinPack, builtinPackNames } from '../../lib/compile/builtin-packs.js';
import { startEntries } from '../../lib/runtime/file-run.js';
import { MemorySink } from '../support/sinks.js';
import { schemaErrors } from '../support/json-schema.js';
import { compile } from '../support/plans.js';

/** The schema of scenario and pack files svc ships (lib/config/schema.ts writes it from the codecs). */
const schema = JSON.parse(readFileSync('schema/scenario.schema.json', 'utf8')) as Record<string, unknown>;
const packsDoc = readFileSync('docs/packs.md', 'utf8');

describe('built-in packs', () => {
  it('are node_cpu, node_memory, snmp_interface and http_server', () => {
    expect(builtinPackNames()).to.deep.equal(['node_cpu', 'node_memory', 'snmp_interface', 'http_server']);
  });

  for (const name of builtinPackNames()) {
    describe(name, () => {
      it('is a valid pack file, found by its name', () => {
        const pack = builtinPack(name)!;
        expect(pack.name).to.equal(name);
        expect(pack.description).to.not.equal('');
        for (const metric of pack.metrics) {
          expect(metric.metric_type, metric.name).to.be.oneOf(['gauge', 'counter']);
          expect(metric.help, metric.name).to.be.a('string').and.not.equal('');
        }
      });

      it('follows schema/scenario.schema.json', () => {
        expect(schemaErrors(schema, BUILTIN_PACK_DOCUMENTS[name])).to.deep.equal([]);
      });

      it('is documented in docs/packs.md with every metric', () => {
        expect(packsDoc).to.include(`### \`${name}\``);
        for (const metric of builtinPack(name)!.metrics) expect(packsDoc, metric.name).to.include(`\`${metric.name}\``);
      });

      it('runs: one series per metric, with the pack labels, the entry labels and the values of its generators', async () => {
        const plan = compile([
          { signal_type: 'metrics', id: 'p', pack: name, rate: 1, duration: '2s', labels: { instance: 'i-1' } },
        ]);
        const pack = builtinPack(name)!;
        const scheduler = new TestScheduler(() => undefined);
        scheduler.maxFrames = Infinity;
        const sinks = new Map(plan.scenarios.map((entry) => [entry.id, new MemorySink()]));
        const fileRun = startEntries(plan.scenarios, { scheduler, createSink: (entry) => sinks.get(entry.id)! });
        scheduler.flush();
        expect(await fileRun.done).to.deep.equal(pack.metrics.map(() => ({})));
        for (const metric of pack.metrics) {
          const lines = sinks.get(`p.${metric.name}`)!.text.trimEnd().split('\n');
          expect(lines, metric.name).to.have.length(2);
          for (const [key, value] of Object.entries({ ...pack.shared_labels, ...metric.labels, instance: 'i-1' })) {
            expect(lines[0], metric.name).to.include(`${key}="${value}"`);
          }
          expect(lines[0]!.startsWith(`${metric.name}{`), metric.name).to.equal(true);
          expect(Number(lines[0]!.split(' ')[1]), metric.name).to.be.a('number').and.not.NaN;
        }
      });
    });
  }
});

describe('schema/scenario.schema.json, of pack files', () => {
  it('accepts the example catalog packs, which svc also accepts', () => {
    const dir = 'examples/catalog/packs';
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(() => loadPack(text, { origin: file })).to.not.throw();
      expect(schemaErrors(schema, parse(text)), file).to.deep.equal([]);
    }
  });

  it('rejects what svc rejects: unknown fields, a missing name, a bad generator, a runnable kind', () => {
    const valid = BUILTIN_PACK_DOCUMENTS.node_cpu!;
    const broken: Record<string, unknown>[] = [
      { ...valid, scenarios: [] },
      { ...valid, name: undefined },
      { ...valid, kind: 'runnable' },
      { ...valid, metrics: [{ name: 'up', generator: { type: 'sine', amplitude: 1 } }] },
      { ...valid, metrics: [{ name: 'up', rate: 1 }] },
      { ...valid, metrics: [] },
      { ...valid, shared_labels: { 'bad-key': 'x' } },
    ];
    for (const document of broken) {
      const json = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
      expect(schemaErrors(schema, json), JSON.stringify(json).slice(0, 80)).to.not.deep.equal([]);
      expect(() => loadPack(JSON.stringify(json), { origin: 'x.json' })).to.throw(ConfigError);
    }
  });
});
