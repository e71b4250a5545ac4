import { Command, Option, UsageError } from 'clipanion';
import type { Entry } from '../../config/types.js';
import type { AlertExpectation } from '../../language/fields.js';
import { valueFlag } from '../flags.js';
import { SvcCommand } from './svc-command.js';

/** Shortest and longest `--interval`: a rule evaluation interval Prometheus would use. */
const MIN_INTERVAL_MS = 1000;
const MAX_INTERVAL_MS = 3_600_000;

/** `svc test <scenario-file> --rules <rules.yml>`: the file's alert expectations, checked with promtool on virtual time. */
export class TestCommand extends SvcCommand {
  static override paths = [['test']];
  static override usage = Command.Usage({
    description: "Check a scenario file's alert expectations against alerting rules, with promtool, in seconds",
    details: `
      Samples the scenario on virtual time at the rule evaluation interval, writes a \`promtool test rules\` unit test of it (the samples as input series, the file's \`expect.alerts\` as checks of the ALERTS series) and runs Prometheus's promtool on it (\`PROMTOOL\` names another binary).

      Prints a PASS or FAIL line per expectation, with when the alert fired; exits 1 when any fails. See docs/testing-alerts.md.
    `,
    examples: [
      ['Test the HighErrorRate alert on a burst', '$0 test examples/alerts/error-burst.yaml --rules examples/alerts/error-burst.rules.yml'],
      ['Keep the generated promtool test', '$0 test examples/alerts/error-burst.yaml --rules examples/alerts/error-burst.rules.yml --keep'],
    ],
  });

  file = Option.String({ name: 'scenario-file' });
  rules = valueFlag('--rules', '<rules.yml>', 'Prometheus rules file with the alerting rules under test');
  interval = valueFlag('--interval', '<time>', 'Rule evaluation interval, also the sampling step (default: 15s)');
  duration = valueFlag('--duration', '<time>', "Length of every entry (default: the file's; each needs one)");
  keep = Option.Boolean('--keep', false, { description: 'Leave the generated promtool unit test in place and print its path' });

  async execute(): Promise<number> {
    if (!this.rules) throw new UsageError('missing --rules: svc test <scenario-file> --rules <rules.yml>');
    const [{ parseDuration }, { loadScenarioFile }, { compileScenario }, { backfillRefusal }] = await Promise.all([
      import('../../language/duration.js'),
      import('../../config/load.js'),
      import('../../compile/index.js'),
      import('../../runtime/backfill.js'),
    ]);
    const intervalMs = this.intervalMs(parseDuration);
    const { resolve } = await import('node:path');
    const rulesFile = resolve(this.rules);
    const file = await loadScenarioFile(this.file, { overrides: this.duration === undefined ? {} : { duration: this.duration }, variables: this.context.env });
    const expectations = file.expect?.alerts;
    if (!expectations) throw new Error(`${this.file}: no expect.alerts: nothing to test (docs/testing-alerts.md)`);
    for (const [i, { resolves_within }] of expectations.entries()) {
      if (resolves_within !== undefined && resolves_within < intervalMs) {
        throw new Error(`${this.file}: expect.alerts[${i}].resolves_within: shorter than the evaluation interval (${this.interval ?? '15s'})`);
      }
    }
    const plan = compileScenario(file, { origin: this.file });
    const refusal = backfillRefusal(plan.scenarios);
    if (refusal) throw new UsageError(`svc test: ${refusal} (give each a duration, or --duration)`);
    return this.check(plan.scenarios, intervalMs, rulesFile, expectations);
  }

  private async check(entries: readonly Entry[], intervalMs: number, rulesFile: string, expectations: readonly AlertExpectation[]): Promise<number> {
    const [{ access, mkdtemp, rm, writeFile }, { tmpdir }, { join }, { sampleScenario }, { unitTest }, { promtool }, { checkExpectations, findingLine }] = await Promise.all([
      import('node:fs/promises'),
      import('node:os'),
      import('node:path'),
      import('../../alert-test/sampling.js'),
      import('../../alert-test/unit-test.js'),
      import('../../alert-test/promtool.js'),
      import('../../alert-test/check.js'),
    ]);
    await access(rulesFile).catch(() => {
      throw new Error(`--rules: cannot read ${rulesFile}`);
    });
    const sampling = await sampleScenario(entries, intervalMs, { scheduler: this.context.scheduler });
    const dir = await mkdtemp(join(tmpdir(), 'svc-test-'));
    const testFile = join(dir, 'unit-test.yml');
    const run = promtool(this.context.env.PROMTOOL ?? 'promtool');
    try {
      const { findings, checks, result } = await checkExpectations(sampling, expectations, async (checks) => {
        await writeFile(testFile, unitTest(sampling, rulesFile, checks));
        return run(testFile);
      });
      // What --keep leaves is the test of the expectations themselves.
      await writeFile(testFile, unitTest(sampling, rulesFile, checks));
      for (const finding of findings) this.context.stdout.write(`${findingLine(finding)}\n`);
      const passed = findings.every((finding) => finding.passed);
      if (passed !== result.passed) throw new Error(`promtool's verdict on the expectations differs from the search's:\n${result.output.trim()}`);
      return passed ? 0 : 1;
    } finally {
      if (this.keep) this.context.stderr.write(`kept the promtool unit test: ${testFile} (run: promtool test rules ${testFile})\n`);
      else await rm(dir, { recursive: true, force: true });
    }
  }

  private intervalMs(parseDuration: (text: string) => number): number {
    if (this.interval === undefined) return 15_000;
    let ms: number;
    try {
      ms = parseDuration(this.interval);
    } catch (error) {
      throw new UsageError(`--interval: ${(error as Error).message}`);
    }
    if (ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS) throw new UsageError(`--interval: expected from 1s to 1h, got "${this.interval}"`);
    return ms;
  }
}

