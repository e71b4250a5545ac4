import { expect } from 'chai';
import { load, metric, problems, v2 } from '../support/scenarios.js';

describe('loadScenario: expect (alert expectations of svc test)', () => {
  it('keeps the alert expectations, durations in milliseconds', () => {
    const file = load(
      v2([metric()], {
        expect: {
          alerts: [
            { alert: 'HighErrorRate', labels: { severity: 'page' }, firing_within: '5m', resolves_within: '10m' },
            { alert: 'Other', firing_within: '30s' },
          ],
        },
      }),
    );
    expect(file.expect).to.deep.equal({
      alerts: [
        { alert: 'HighErrorRate', labels: { severity: 'page' }, firing_within: 300_000, resolves_within: 600_000 },
        { alert: 'Other', firing_within: 30_000 },
      ],
    });
  });

  it('names the path of a bad expectation', () => {
    expect(
      problems(v2([metric()], { expect: { alerts: [{ alert: 'A' }, { alert: 'B', firing_within: 'soon' }] } })),
    ).to.deep.equal([
      'expect.alerts[0].firing_within: missing required field',
      'expect.alerts[1].firing_within: expected a duration such as 500ms, 1.5s, 1m30s or 7d (units y, w, d, h, m, s, ms: largest first, each at most once), got "soon"',
    ]);
    expect(problems(v2([metric()], { expect: { alerts: [] } }))).to.deep.equal([
      'expect.alerts: expected a non-empty list, got an empty list',
    ]);
    expect(problems(v2([metric()], { expect: { alert: [] } }))[0]).to.match(/^expect.alert: unknown field/);
  });

  it("refuses alertname and alertstate among an expectation's labels: the selector could never match", () => {
    expect(
      problems(
        v2([metric()], {
          expect: {
            alerts: [
              { alert: 'A', labels: { alertstate: 'pending' }, firing_within: '1m' },
              { alert: 'A', labels: { alertname: 'Other', severity: 'page' }, firing_within: '1m' },
            ],
          },
        }),
      ),
    ).to.deep.equal([
      'expect.alerts[0].labels.alertstate: expected a label of the alert other than alertname and alertstate (the expectation matches the alert firing), got "alertstate"',
      'expect.alerts[1].labels.alertname: expected a label of the alert other than alertname and alertstate (the name is the expectation\'s alert), got "alertname"',
    ]);
  });

  it('is absent from a file without it', () => {
    expect(load(v2([metric()]))).not.to.have.property('expect');
  });
});
