import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  alertsNotInRules,
  checkExpectations,
  findingLine,
  groupOrderWarnings,
  ruleGroupOrder,
  rulesFile,
  type RunChecks,
} from '../../lib/alert-test/check.js';
import { promtool, promtoolWords } from '../../lib/alert-test/promtool.js';
import type { Sampling } from '../../lib/alert-test/sampling.js';
import { unitTest } from '../../lib/alert-test/unit-test.js';
import { temporaryDirectory } from '../support/directories.js';

const MINUTE = 60_000;

// m is 10 from step 4 (1m) to step 23, then 1: High (m > 5 for 1m) pends at 1m, fires at 2m, resolves at 6m.
const sampling: Sampling = {
  intervalMs: 15_000,
  steps: 40,
  series: [{ series: 'm{job="a"}', values: Float64Array.from({ length: 40 }, (_, k) => (k >= 4 && k < 24 ? 10 : 1)) }],
};
const RULES = `groups:
  - name: g
    rules:
      - alert: High
        expr: m > 5
        for: 1m
        labels: {severity: page}
`;

/** Runs the real promtool on each unit test; counts the runs. */
function promtoolRuns(rules = RULES, of = sampling): { run: RunChecks; count: () => number } {
  const dir = temporaryDirectory('svc-check-');
  const rulesFile = join(dir, 'rules.yml');
  writeFileSync(rulesFile, rules);
  const testFile = join(dir, 'test.yml');
  const promtoolRun = promtool('promtool');
  let runs = 0;
  return {
    run: (checks) => {
      runs++;
      writeFileSync(testFile, unitTest(of, [rulesFile], checks));
      return promtoolRun(testFile);
    },
    count: () => runs,
  };
}

describe('checkExpectations: alert expectations through promtool', () => {
  it('finds when the alert first fires and resolves, in a logarithmic number of promtool runs', async () => {
    const { run, count } = promtoolRuns();
    const { findings, result } = await checkExpectations(
      sampling,
      [{ alert: 'High', labels: { severity: 'page' }, firing_within: 3 * MINUTE, resolves_within: 5 * MINUTE }],
      run,
    );
    expect(findings.map(findingLine)).to.deep.equal([
      'PASS High{severity="page"} firing after 2m (within 3m), resolved 4m later (within 5m)',
    ]);
    expect(result.passed).to.equal(true);
    expect(count()).to.be.at.most(2 + 2 * Math.ceil(Math.log2(60)) + 2);
  });

  it('evaluates the rules no further than the deadlines of an alert that keeps them', async () => {
    // Each probe makes promtool evaluate the rules at every step up to its check: searching past the deadlines
    // first made a 20-hour scenario at 1s take minutes for an alert found in its first minutes.
    const { run } = promtoolRuns();
    let latestMs = 0;
    const { findings } = await checkExpectations(
      sampling,
      [{ alert: 'High', firing_within: 3 * MINUTE, resolves_within: 5 * MINUTE }],
      (checks) => {
        latestMs = Math.max(latestMs, ...checks.map((check) => check.atMs));
        return run(checks);
      },
    );
    expect(findings.map(findingLine)).to.deep.equal([
      'PASS High firing after 2m (within 3m), resolved 4m later (within 5m)',
    ]);
    // Fired at 2m, so resolution is looked for up to 7m; the data and its lookback run to 14m45s.
    expect(latestMs).to.equal(7 * MINUTE);
  });

  it('fails an alert that fires late, never, with other labels, or resolves late', async () => {
    const { run } = promtoolRuns();
    const { findings, result } = await checkExpectations(
      sampling,
      [
        { alert: 'High', firing_within: MINUTE },
        { alert: 'Missing', firing_within: MINUTE },
        { alert: 'High', labels: { severity: 'ticket' }, firing_within: 3 * MINUTE },
        { alert: 'High', firing_within: 3 * MINUTE, resolves_within: 2 * MINUTE },
      ],
      run,
    );
    expect(findings.map(findingLine)).to.deep.equal([
      'FAIL High firing after 2m (not within 1m)',
      'FAIL Missing not firing within 1m',
      'FAIL High{severity="ticket"} not firing within 3m',
      'FAIL High firing after 2m (within 3m), resolved 4m later (not within 2m)',
    ]);
    expect(result.passed).to.equal(false);
  });

  it('probes in windows when the alerts over all steps are more samples than promtool loads into one query', async function () {
    this.timeout(60_000);
    // 120 series above 5 from step 4 to 99: 120 alerts firing from 2m to 25m, 11,040 ALERTS samples, where
    // promtool 2.42 refuses a query that holds more than 10,000.
    const many: Sampling = {
      intervalMs: 15_000,
      steps: 110,
      series: Array.from({ length: 120 }, (_, i) => ({
        series: `m{i="${i}"}`,
        values: Float64Array.from({ length: 110 }, (_, k) => (k >= 4 && k < 100 ? 10 : 1)),
      })),
    };
    const { run } = promtoolRuns(RULES, many);
    const { findings, checks, result } = await checkExpectations(
      many,
      [{ alert: 'High', firing_within: 25 * MINUTE, resolves_within: 25 * MINUTE }],
      run,
    );
    expect(findings.map(findingLine)).to.deep.equal([
      'PASS High firing after 2m (within 25m), resolved 23m later (within 25m)',
    ]);
    expect(result.passed, result.output).to.equal(true);
    // The kept test states the expectations in windows too: a subquery of each, offset to its place.
    expect(checks[0]!.expr).to.match(/^clamp_max\(max_over_time\(.*\] offset \d+m.*, 1\)$/);
    expect(checks[1]!.expr).to.match(/^min_over_time\(.* \* min_over_time\(/);
  });

  it('writes the times of PASS and FAIL lines as Prometheus writes durations: 0s at the first evaluation, 7s500ms', () => {
    const expectation = { alert: 'Always', firing_within: MINUTE, resolves_within: 1500 };
    expect(findingLine({ expectation, firedAtMs: 0, resolvedAfterMs: 7500, passed: false })).to.equal(
      'FAIL Always firing after 0s (within 1m), resolved 7s500ms later (not within 1s500ms)',
    );
  });

  it('reports a rules file promtool refuses, with its words', async () => {
    const { run } = promtoolRuns('groups:\n  - name: g\n    rules:\n      - alert: Bad\n        expr: m >\n');
    const failure = await checkExpectations(sampling, [{ alert: 'Bad', firing_within: MINUTE }], run).catch(
      (error: Error) => error,
    );
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.match(
      /^promtool refused the unit test:\n\/\S+\/rules\.yml: 5:15: group "g", rule 1, "Bad": could not parse expression: 1:4: parse error: unexpected end of input$/,
    );
  });

  it("reports a rules file's YAML error once, without promtool's framing around the removed unit test", async () => {
    // promtool says `Unit Testing:  <test file>`, `FAILED:` and a YAML error twice.
    const { run } = promtoolRuns('groups:\n  - name: g\n    rules:\n      - alert: Bad\n       expr: m > 1\n');
    const failure = await checkExpectations(sampling, [{ alert: 'Bad', firing_within: MINUTE }], run).catch(
      (error: Error) => error,
    );
    expect((failure as Error).message).to.match(
      /^promtool refused the unit test:\n\/\S+\/rules\.yml: yaml: line \d+: did not find expected '-' indicator$/,
    );
  });

  it("tells every failing check of promtool's output, each with its own expected and got lines, indented", async () => {
    // Both checks fail with the same exp: and got: lines: the second one's once vanished as repeated lines.
    const check = (atMs: number) => ({ expr: 'vector(0)', atMs, value: 1 as const });
    const result = await promtoolRuns().run([check(MINUTE), check(2 * MINUTE)]);
    expect(promtoolWords(result)).to.equal(
      [
        ':',
        'expr: "vector(0)", time: 1m,',
        '    exp: {} 1E+00',
        '    got: {} 0E+00',
        'expr: "vector(0)", time: 2m,',
        '    exp: {} 1E+00',
        '    got: {} 0E+00',
      ].join('\n'),
    );
  });

  it('reports a check promtool could not evaluate, even in windows of one step, as an error, not as an alert that did not fire', async () => {
    // promtool's words when a query loads too many samples: FAILED, with no expected and got alerts.
    const error = `Unit Testing:  unit-test.yml\n  FAILED:\n    expr: "max_over_time(…)", time: 15m, err: query processing would load too many samples into memory in query execution\n`;
    const run: RunChecks = async (checks) => ({
      passed: checks.length === 0,
      output: checks.length ? error : '',
      code: checks.length ? 1 : 0,
    });
    const failure = await checkExpectations(sampling, [{ alert: 'High', firing_within: MINUTE }], run).catch(
      (thrown: Error) => thrown,
    );
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.equal(
      `promtool could not evaluate the rules over the scenario's samples:\nexpr: "max_over_time(…)", time: 15m, err: query processing would load too many samples into memory in query execution`,
    );
  });
});

describe('ruleGroupOrder: the order promtool evaluates the rule groups in', () => {
  const recording = 'groups:\n  - name: rec\n    rules:\n      - {record: job:m:max, expr: max by (job) (m)}\n';
  const alerting =
    'groups:\n  - name: alerts\n    rules:\n      - {alert: High, expr: job:m:max > 5}\n  - {name: rec, rules: []}\n';

  it("is the groups' order in the files, each name once (promtool refuses a name repeated)", () => {
    expect(ruleGroupOrder([rulesFile('rec.yml', recording), rulesFile('alerts.yml', alerting)])).to.deep.equal([
      'rec',
      'alerts',
    ]);
    expect(ruleGroupOrder([rulesFile('bad.yml', 'groups: [')])).to.deep.equal([]);
  });

  it('reads the first YAML document of a file, as Prometheus does', () => {
    // A trailing `---` (a second, empty document) made the file unreadable to svc, not to promtool: its groups
    // were left out of the order.
    const records = rulesFile('rec.yml', `---\n${recording}---\n`);
    const alerts = rulesFile('alerts.yml', 'groups: [{name: alerts, rules: [{alert: High, expr: up}]}]\n---\n');
    expect(ruleGroupOrder([records, alerts])).to.deep.equal(['rec', 'alerts']);
    expect(groupOrderWarnings([records, alerts])).to.deep.equal([]);
    expect(alertsNotInRules([{ alert: 'Low', firing_within: MINUTE }], [records, alerts])).to.have.length(1);
  });

  it('makes every promtool run see a recorded series at the evaluation that recorded it', async () => {
    // Without group_eval_order promtool ran the groups in an order that changed from run to run: the alert on the
    // recorded series fired at step 4 in some probes of a test and at step 5 in others.
    const dir = temporaryDirectory('svc-check-');
    const texts = [
      [join(dir, 'rec.yml'), recording],
      [join(dir, 'alerts.yml'), 'groups:\n  - name: alerts\n    rules:\n      - {alert: High, expr: job:m:max > 5}\n'],
    ] as const;
    for (const [file, text] of texts) writeFileSync(file, text);
    const files = texts.map(([file]) => file);
    const order = ruleGroupOrder(texts.map(([file, text]) => rulesFile(file, text)));
    const testFile = join(dir, 'test.yml');
    // m turns 10 at step 4: High fires there when rec is evaluated before alerts.
    const check = { expr: 'count(ALERTS{alertname="High"}) or vector(0)', atMs: 4 * 15_000, value: 1 as const };
    const written = unitTest(sampling, files, [check], order);
    // Eight runs of promtool rarely show a missing order (1 in 8 failed): the unit test must state it.
    expect(written).to.contain('\ngroup_eval_order:\n  - rec\n  - alerts\n');
    writeFileSync(testFile, written);
    const run = promtool('promtool');
    for (let i = 0; i < 8; i++) {
      const result = await run(testFile);
      expect(result.passed, result.output).to.equal(true);
    }
  });
});

describe('groupOrderWarnings: what leaves the order of the rule groups to chance', () => {
  const group = (name: string) => `  - {name: ${name}, rules: []}\n`;

  it('names a group name in more than one file with its files; one repeated in a file is for promtool to refuse', () => {
    expect(
      groupOrderWarnings([
        rulesFile('a.yml', `groups:\n${group('g')}${group('h')}${group('h')}`),
        rulesFile('b.yml', `groups:\n${group('k')}${group('g')}`),
        rulesFile('c.yml', `groups:\n${group('g')}`),
      ]),
    ).to.deep.equal([
      `rule group "g" is in a.yml, b.yml and c.yml: promtool orders a unit test's groups by name alone, so these run in an order that changes from run to run, and an alert on a series one of them records can fire one evaluation (--interval) earlier or later between the probes of a test; give the groups different names`,
    ]);
  });

  it('names a file whose groups svc cannot read, left out of the order', () => {
    expect(
      groupOrderWarnings([rulesFile('a.yml', `groups:\n${group('g')}`), rulesFile('bad.yml', 'groups: [')]),
    ).to.deep.equal([
      'bad.yml: svc test cannot read its rule groups (YAML with a groups list), so the order promtool evaluates them in is not fixed: an alert on a series another group records can fire one evaluation (--interval) earlier or later between the probes of a test',
    ]);
  });
});

describe('alertsNotInRules: expectations no alerting rule can meet', () => {
  const expectation = (alert: string) => ({ alert, firing_within: MINUTE });

  it('names each alert the rules file lacks, with the close name of a typo and the alerts it has', () => {
    expect(
      alertsNotInRules([expectation('High'), expectation('Hihg'), expectation('Low')], [rulesFile('r.yml', RULES)]),
    ).to.deep.equal([
      'expect.alerts[1].alert: the rules file r.yml has no alerting rule "Hihg" (did you mean High?) (its alerts: High)',
      'expect.alerts[2].alert: the rules file r.yml has no alerting rule "Low" (its alerts: High)',
    ]);
  });

  it('says when the file has no alerting rules, and lists at most 10 alerts', () => {
    const recording = 'groups:\n  - name: g\n    rules:\n      - {record: job:m, expr: sum(m)}\n';
    expect(alertsNotInRules([expectation('High')], [rulesFile('r.yml', recording)])).to.deep.equal([
      'expect.alerts[0].alert: the rules file r.yml has no alerting rule "High" (it has no alerting rules)',
    ]);
    const many = `groups:\n  - name: g\n    rules:\n${Array.from({ length: 12 }, (_, i) => `      - {alert: A${i}, expr: m > ${i}}\n`).join('')}`;
    expect(alertsNotInRules([expectation('High')], [rulesFile('r.yml', many)])[0]).to.match(
      /\(its alerts: A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, and 2 more\)$/,
    );
  });

  it('says so of a rules file with no groups, which promtool loads as no rules', () => {
    for (const text of ['', '# nothing yet\n', 'groups:\n', '---\n', '{}\n'])
      expect(alertsNotInRules([expectation('High')], [rulesFile('r.yml', text)]), text).to.deep.equal([
        'expect.alerts[0].alert: the rules file r.yml has no alerting rule "High" (it has no alerting rules)',
      ]);
  });

  it('takes the alerts of every rules file given, and names them all', () => {
    const recording = rulesFile('rec.yml', 'groups:\n  - name: r\n    rules:\n      - {record: job:m, expr: sum(m)}\n');
    const alerting = rulesFile('alerts.yml', RULES);
    expect(alertsNotInRules([expectation('High')], [recording, alerting])).to.deep.equal([]);
    expect(alertsNotInRules([expectation('Low')], [recording, alerting])).to.deep.equal([
      'expect.alerts[0].alert: the rules files rec.yml, alerts.yml have no alerting rule "Low" (their alerts: High)',
    ]);
    expect(alertsNotInRules([expectation('High')], [alerting, rulesFile('bad.yml', 'groups: [')])).to.deep.equal([]);
  });

  it('leaves a text that is not a rules file to promtool', () => {
    for (const text of ['groups: [', 'version: 2', 'groups: 3', '[1]', '[]', 'text', 'groups:\nversion: 2'])
      expect(alertsNotInRules([expectation('High')], [rulesFile('r.yml', text)]), text).to.deep.equal([]);
  });
});
