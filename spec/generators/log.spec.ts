import { expect } from 'chai';
import { logGenerator } from '../../lib/generators/log.js';
import type { LineReplayLogGenerator, TemplateLogGenerator as LogGeneratorConfig } from '../../lib/language/types.js';

const config = (fields: Partial<LogGeneratorConfig> = {}): LogGeneratorConfig => ({
  type: 'template',
  templates: [{ message: 'user {user} from {ip}' }],
  field_pools: { user: ['ann', 'bob', 'chen'], ip: ['10.0.0.1', '10.0.0.2'] },
  seed: 1,
  ...fields,
});
const records = (c: LogGeneratorConfig, count: number) =>
  Array.from({ length: count }, (_, n) => logGenerator(c)(n, 0));

describe('log generator', () => {
  it('fills placeholders from their pools and records every picked value as a field', () => {
    for (const record of records(config(), 50)) {
      const [, user, ip] = /^user (\w+) from ([\d.]+)$/.exec(record.message)!;
      expect(record.fields).to.deep.equal({ user, ip });
      expect(['ann', 'bob', 'chen']).to.include(user);
      expect(['10.0.0.1', '10.0.0.2']).to.include(ip);
    }
  });

  it('is a pure function of (seed, tick): same seed same records, another seed others', () => {
    expect(records(config(), 100)).to.deep.equal(records(config(), 100));
    expect(logGenerator(config())(57, 0)).to.deep.equal(records(config(), 58)[57]);
    expect(records(config({ seed: 2 }), 100)).to.not.deep.equal(records(config(), 100));
  });

  it('leaves placeholders without a pool, and braces that are not placeholders, literal', () => {
    const [record] = records(config({ templates: [{ message: '{user} sent {"a": 1} to {nobody}' }] }), 1);
    expect(record!.message).to.match(/^(ann|bob|chen) sent \{"a": 1\} to \{nobody\}$/);
    expect(Object.keys(record!.fields)).to.deep.equal(['user']);
  });

  it("uses a template's own pools over the shared ones", () => {
    const all = records(config({ templates: [{ message: '{user}', field_pools: { user: ['root'] } }] }), 20);
    expect(new Set(all.map((r) => r.message))).to.deep.equal(new Set(['root']));
  });

  it('picks templates evenly and severities in proportion to their weights', () => {
    const c = config({
      templates: [{ message: 'a' }, { message: 'b' }],
      severity_weights: { info: 7, warn: 2, error: 1, debug: 0 },
    });
    const all = records(c, 20_000);
    const share = (test: (r: (typeof all)[number]) => boolean) => all.filter(test).length / all.length;
    expect(share((r) => r.message === 'a')).to.be.closeTo(0.5, 0.02);
    expect(share((r) => r.severity === 'info')).to.be.closeTo(0.7, 0.02);
    expect(share((r) => r.severity === 'warn')).to.be.closeTo(0.2, 0.02);
    expect(share((r) => r.severity === 'error')).to.be.closeTo(0.1, 0.02);
    expect(share((r) => r.severity === 'debug')).to.equal(0);
  });

  it('gives the records it always gave for a seed (template, severity and values drawn as documented)', () => {
    const generator = logGenerator(
      config({
        templates: [
          { message: 'user {user} logged in from {ip}' },
          { message: 'GET {path} took {ms}ms', severity: 'debug' },
        ],
        field_pools: {
          user: ['ann', 'bob', 'chen'],
          ip: ['10.0.0.1', '10.0.0.2'],
          path: ['/', '/api'],
          ms: ['3', '12', '48'],
        },
        severity_weights: { info: 7, warn: 2, error: 1 },
      }),
    );
    const login = (severity: string, user: string, ip: string) => ({
      severity,
      message: `user ${user} logged in from ${ip}`,
      fields: { user, ip },
    });
    const get = (path: string, ms: string) => ({
      severity: 'debug',
      message: `GET ${path} took ${ms}ms`,
      fields: { path, ms },
    });
    // Recorded from the first release of the generator.
    const record = (n: number) => {
      const { severity, message, fields } = generator(n, 0);
      return { severity, message, fields };
    };
    expect([0, 1, 2, 3, 4, 5, 1e6, 2 ** 40].map(record)).to.deep.equal([
      get('/api', '12'),
      login('warn', 'chen', '10.0.0.2'),
      login('warn', 'bob', '10.0.0.2'),
      login('info', 'bob', '10.0.0.1'),
      get('/api', '48'),
      login('info', 'bob', '10.0.0.1'),
      get('/api', '12'),
      login('info', 'chen', '10.0.0.1'),
    ]);
  });

  it('writes info when no severity weights are given', () => {
    expect(new Set(records(config(), 100).map((r) => r.severity))).to.deep.equal(new Set(['info']));
  });
});

describe('log generator: a template with its own severity', () => {
  it('always uses it, whatever the weights; the other templates follow the weights', () => {
    const generator = logGenerator(
      config({
        templates: [{ message: 'charge accepted', severity: 'info' }, { message: 'charge declined' }],
        field_pools: {},
        severity_weights: { error: 1 },
      }),
    );
    const all = Array.from({ length: 200 }, (_, n) => generator(n, 0));
    expect(new Set(all.filter((r) => r.message === 'charge accepted').map((r) => r.severity))).to.deep.equal(
      new Set(['info']),
    );
    expect(new Set(all.filter((r) => r.message === 'charge declined').map((r) => r.severity))).to.deep.equal(
      new Set(['error']),
    );
  });
});

describe('log generator: replay', () => {
  it('gives line n mod the line count on tick n whatever its time, all info, without fields', () => {
    const replay: LineReplayLogGenerator = {
      type: 'replay',
      file: 'app.log',
      lines: { lines: ['a', 'b', 'c'], lineNumbers: [1, 2, 3], toJSON: () => ({}) },
    };
    const generator = logGenerator(replay);
    expect([0, 1, 2, 3, 7].map((n) => generator(n, n * 60_000))).to.deep.equal(
      ['a', 'b', 'c', 'a', 'b'].map((message) => ({ severity: 'info', message, fields: {} })),
    );
  });
});
