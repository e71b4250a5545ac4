import { expect } from 'chai';
import fc from 'fast-check';
import { escapeLabelValue, seriesOf } from '../../../operators/model/series.js';

describe('seriesOf', () => {
  it('sorts labels by key in both labels and key', () => {
    const s = seriesOf({ zone: 'b', app: 'api', method: 'GET' });
    expect(Object.keys(s.labels)).to.deep.equal(['app', 'method', 'zone']);
    expect(s.key).to.equal('app="api",method="GET",zone="b"');
  });

  it('gives an empty key for an empty label set', () => {
    const s = seriesOf({});
    expect(s.key).to.equal('');
    expect(s.labels).to.deep.equal({});
  });

  it('escapes backslash, double quote and line feed in values, keeping labels raw', () => {
    const s = seriesOf({ path: 'C:\\tmp', msg: 'say "hi"\nbye' });
    expect(s.key).to.equal('msg="say \\"hi\\"\\nbye",path="C:\\\\tmp"');
    expect(s.labels).to.deep.equal({ msg: 'say "hi"\nbye', path: 'C:\\tmp' });
  });

  it('leaves other characters alone', () => {
    expect(escapeLabelValue('tab\there, {braces}=, ünïcode\r')).to.equal('tab\there, {braces}=, ünïcode\r');
  });

  it('does not share state with the given object', () => {
    const labels = { a: '1' };
    const s = seriesOf(labels);
    labels.a = '2';
    expect(s.labels.a).to.equal('1');
    expect(Object.isFrozen(s) && Object.isFrozen(s.labels)).to.equal(true);
  });

  it('yields the same key whatever the insertion order', () => {
    const name = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,8}$/);
    fc.assert(
      fc.property(fc.dictionary(name, fc.string()), (labels) => {
        const reversed = Object.fromEntries(Object.entries(labels).reverse());
        expect(seriesOf(reversed).key).to.equal(seriesOf(labels).key);
      }),
    );
  });

  it('leaves out a label whose value is empty: {k=""} is the series {} in Prometheus and VictoriaMetrics', () => {
    expect(seriesOf({ k: '', a: 'x' })).to.deep.equal(seriesOf({ a: 'x' }));
    expect(seriesOf({ k: '' }).key).to.equal('');
  });

  it('escapes so that the value can be read back unambiguously', () => {
    const unescaped = (v: string) => v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    fc.assert(
      // Non-empty: an empty value is no label (below).
      fc.property(fc.string({ unit: fc.constantFrom('a', '\\', '"', '\n', 'n', ',', '='), minLength: 1 }), (value) => {
        const key = seriesOf({ k: value }).key;
        expect(key.startsWith('k="') && key.endsWith('"')).to.equal(true);
        const body = key.slice(3, -1);
        expect(body).to.not.match(/(^|[^\\])(\\\\)*"/);
        expect(unescaped(body)).to.equal(value);
      }),
    );
  });
});
