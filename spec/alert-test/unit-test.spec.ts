import { expect } from 'chai';
import { expandingNotation, firingExpr } from '../../lib/alert-test/unit-test.js';

describe('the promtool unit test of a sampling', () => {
  it('writes values in expanding notation: gaps, repeats, whole-number runs, else each value', () => {
    expect(expandingNotation([0, 10, 20, 30])).to.equal('0+10x3');
    expect(expandingNotation([5, 5, 5, NaN, NaN, 7])).to.equal('5+0x2 _x2 7');
    expect(expandingNotation([3, 2, 1, 0.5])).to.equal('3-1x2 0.5');
    // Fractions are never extrapolated: promtool's own arithmetic could differ in the last bits.
    expect(expandingNotation([0.1, 0.2, 0.3])).to.equal('0.1 0.2 0.3');
    expect(expandingNotation([1, 2, NaN, Infinity])).to.equal('1 2 _ Inf');
  });

  it('matches the firing alert by name and by every label given, escaped as PromQL strings', () => {
    expect(firingExpr({ alert: 'High', labels: { path: '/a"b' } })).to.equal(
      '(count(ALERTS{alertname="High",alertstate="firing",path="/a\\"b"}) > bool 0 or vector(0))',
    );
  });
});
