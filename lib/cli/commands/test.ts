import { Command, Option, UsageError } from 'clipanion';
import type { Entry, ScenarioFile } from '../../config/types.js';
import type { AlertExpectation } from '../../language/fields.js';
import type { Finding } from '../../alert-test/check.js';
import type { WatchOptions } from '../../alert-test/live.js';
import type { Subscription } from 'rxjs';
import { listFlag, valueFlag } from '../flags.js';
import { SvcCommand } from './svc-command.js';

/** Shortest and longest `--interval`: a rule evaluation interval Prometheus would use. */
const MIN_INTERVAL_MS = 1000;
const MAX_INTERVAL_MS = 3_600_000;

/**
 * `svc test <scenario-file> --rules <rules.yml>`: the file's alert expectations, checked with promtool on virtual time;
 * `svc test <scenario-file> --live --prometheus <url>`: the same, against running backends while the scenario runs.
 */
export class TestCommand extends SvcCommand {
  static override paths = [['test']];
  static override usage = Command.Usage({
    description:
      "Check a scenario file's alert expectations against alerting rules: with promtool in seconds, or live against Prometheus",
    details: `
      Samples the scenario on virtual time at the rule evaluation interval, writes a \`promtool test rules\` unit test of it (the samples as input series, the file's \`expect.alerts\` as checks of the ALERTS series) and runs Prometheus's promtool on it (\`PROMTOOL\` names another binary).

      With \`--live\`, runs the scenario for real instead (its own sinks, as \`svc run\` does), polls the \`ALERTS\` series of the Prometheus given by \`--prometheus\` every \`--interval\`, times each firing and resolution with a range query, and with \`--alertmanager\` also checks that the alert reaches Alertmanager; the run stops once every expectation is decided.

      Prints a PASS or FAIL line per expectation, with when the alert fired; exits 1 when any fails. See docs/testing-alerts.md.
    `,
    examples: [
      [
        'Test the HighErrorRate alert on a burst',
        '$0 test examples/alerts/error-burst.yaml --rules examples/alerts/error-burst.rules.yml',
      ],
      [
        'Keep the generated promtool test',
        '$0 test examples/alerts/error-burst.yaml --rules examples/alerts/error-burst.rules.yml --keep',
      ],
      [
        'Against a running Prometheus and Alertmanager',
        '$0 test incident.yaml --live --prometheus http://localhost:9090 --alertmanager http://localhost:9093',
      ],
    ],
  });

  file = Option.String({ name: 'scenario-file' });
  rules = listFlag(
    '--rules',
    '<rules.yml>',
    'Prometheus rules file with the rules under test (repeat it for rules split over several files)',
  );
  interval = valueFlag(
    '--interval',
    '<time>',
    'Rule evaluation interval: the sampling step, or with --live how often Prometheus is polled (default: 15s)',
  );
  duration = valueFlag(
    '--duration',
    '<time>',
    "Length of every entry (default: the file's; each needs one, except with --live)",
  );
  keep = Option.Boolean('--keep', false, {
    description: 'Leave the generated promtool unit test in place and print its path',
  });
  live = Option.Boolean('--live', false, {
    description: 'Run the scenario for real and check the alerts of a running Prometheus (--prometheus)',
  });
  prometheus = valueFlag(
    '--prometheus',
    '<url>',
    'With --live: the Prometheus that evaluates the rules (base URL of its HTTP API)',
  );
  alertmanager = valueFlag(
    '--alertmanager',
    '<url>',
    'With --live: also check that each alert reaches this Alertmanager',
  );
  prometheusUrl = valueFlag(
    '--prometheus-url',
    '<url>',
    '--live --prometheus <url> as the reference tool writes it (its test is always live)',
  );

  async execute(): Promise<number> {
    // Errors name the flag given: --prometheus-url stands for both --live and --prometheus.
    const liveFlag = this.prometheusUrl === undefined ? '--live' : '--prometheus-url';
    if (this.prometheusUrl !== undefined) {
      if (this.prometheus !== undefined)
        throw new UsageError('--prometheus-url is short for --live --prometheus <url>: give one of them');
      this.live = true;
      this.prometheus = this.prometheusUrl;
    }
    if (this.live) {
      if (this.prometheus === undefined)
        throw new UsageError('--live needs --prometheus <url>: the Prometheus that evaluates the rules');
      if (this.rules !== undefined)
        throw new UsageError(
          `--rules has no use with ${liveFlag}: the rules are those the Prometheus of ${this.prometheusFlag()} evaluates`,
        );
      if (this.keep)
        throw new UsageError(`--keep keeps the promtool test of a run on virtual time: ${liveFlag} writes none`);
    } else {
      if (this.prometheus !== undefined || this.alertmanager !== undefined)
        throw new UsageError('--prometheus and --alertmanager go with --live');
      if (!this.rules?.length)
        throw new UsageError(
          'missing --rules: svc test <scenario-file> --rules <rules.yml> (or --live --prometheus <url>)',
        );
    }
    const [
      { parseDuration },
      { loadScenarioFile },
      { planScenario },
      { backfillRefusal },
      { nativeHistograms },
      { filesBeside },
      { LOCAL_YAML_BUDGET },
    ] = await Promise.all([
      import('../../language/duration.js'),
      import('../../config/load.js'),
      import('../../compile/plan.js'),
      import('../../runtime/backfill.js'),
      import('../../alert-test/sampling.js'),
      import('../../config/csv-replay.js'),
      import('../../language/limits.js'),
    ]);
    const intervalMs = this.intervalMs(parseDuration);
    const backends = this.live ? await this.backends() : undefined;
    const loaded = await loadScenarioFile(this.file, {
      overrides: this.duration === undefined ? {} : { duration: this.duration },
      variables: this.context.env,
    });
    const expectations = loaded.expect?.alerts;
    if (!expectations) throw new Error(`${this.file}: no expect.alerts: nothing to test (docs/testing-alerts.md)`);
    const plan = await planScenario(loaded, {
      origin: this.file,
      locate: filesBeside(this.file),
      packOptions: { yamlBudget: LOCAL_YAML_BUDGET, variables: this.context.env },
    });
    if (backends) return this.checkLive(plan, intervalMs, expectations, backends);

    for (const [i, { resolves_within }] of expectations.entries()) {
      if (resolves_within !== undefined && resolves_within < intervalMs) {
        throw new Error(
          `${this.file}: expect.alerts[${i}].resolves_within: shorter than the evaluation interval (${this.interval ?? '15s'})`,
        );
      }
    }
    const refusal = backfillRefusal(plan.scenarios);
    if (refusal) throw new UsageError(`svc test: ${refusal} (give each a duration, or --duration)`);
    const { untestable, leftOut } = nativeHistograms(plan.scenarios);
    if (untestable.length > 0)
      throw new UsageError(
        `svc test: ${untestable.join(', ')}: a native histogram cannot be tested offline: promtool's unit test gets float series only (promtool 2.42 has no notation for native histograms); give the entry classic buckets too, or test with --live`,
      );
    for (const id of leftOut)
      this.context.stderr.write(
        `[warn] ${id}: its native histogram is left out of the test (promtool's unit test gets float series only); its classic series are tested\n`,
      );
    return this.check(plan.scenarios, intervalMs, expectations);
  }

  /** The flag that gave the Prometheus URL, as errors name it. */
  private prometheusFlag(): string {
    return this.prometheusUrl === undefined ? '--prometheus' : '--prometheus-url';
  }

  /** The backends of --live, from their flags' URLs (a bad URL is a usage error naming the flag). */
  private async backends(): Promise<Pick<WatchOptions, 'prometheus' | 'alertmanager'>> {
    const [{ httpApi }, { prometheusStates, alertmanagerInbox }] = await Promise.all([
      import('../../alert-test/http-api.js'),
      import('../../alert-test/live-backends.js'),
    ]);
    const api = (flag: string, what: string, url: string) => {
      try {
        return httpApi(what, url, flag);
      } catch (error) {
        throw new UsageError(`${flag}: ${(error as Error).message}`);
      }
    };
    return {
      prometheus: prometheusStates(api(this.prometheusFlag(), 'Prometheus', this.prometheus!)),
      alertmanager:
        this.alertmanager === undefined
          ? undefined
          : alertmanagerInbox(api('--alertmanager', 'Alertmanager', this.alertmanager)),
    };
  }

  /**
   * Runs the scenario as svc run does (progress and STOPPED lines on stderr) while the alerts are
   * watched; a PASS or FAIL line is printed as each expectation is decided. The run stops once
   * all are (an entry without a duration runs until then); when it ends first, the watch goes on
   * to the deadlines. A stop signal ends both, and what was not decided fails.
   */
  private async checkLive(
    plan: ScenarioFile,
    pollMs: number,
    expectations: readonly AlertExpectation[],
    backends: Pick<WatchOptions, 'prometheus' | 'alertmanager'>,
  ): Promise<number> {
    const [
      { asyncScheduler, concatMap, from, merge, takeUntil },
      { requireQuiet, watchAlerts },
      { findingLine, undecidedLine },
      { runScenario },
      { stopSignals },
      { formatDuration },
    ] = await Promise.all([
      import('rxjs'),
      import('../../alert-test/live.js'),
      import('../../alert-test/check.js'),
      import('../run-scenario.js'),
      import('../../runtime/stop-signals.js'),
      import('../../format.js'),
    ]);
    for (const warning of await requireQuiet(expectations, backends)) this.context.stderr.write(`[warn] ${warning}\n`);
    const scheduler = this.context.scheduler ?? asyncScheduler;
    const signals = this.context.signals ?? stopSignals();
    const findings = new Map<AlertExpectation, Finding>();
    const start = scheduler.now();
    let subscription: Subscription | undefined;
    const watching = new Promise<void>((resolve, reject) => {
      subscription = watchAlerts(expectations, { ...backends, start, pollMs, scheduler })
        .pipe(
          takeUntil(signals),
          concatMap((finding) => {
            findings.set(finding.expectation, finding);
            return this.print(`${findingLine(finding)}\n`);
          }),
        )
        .subscribe({ complete: resolve, error: reject });
    });
    let settled = false;
    // Stops the run once the watch ends, decided or failed (its error is thrown below, after the run's flush).
    const watched = watching
      .finally(() => (settled = true))
      .then(
        () => 'decided',
        () => 'failed',
      );
    let runCode: number;
    try {
      runCode = await runScenario(plan, { ...this.context, signals: merge(signals, from(watched)) });
    } catch (error) {
      subscription?.unsubscribe();
      throw error;
    }
    if (!settled)
      this.context.stderr.write('[info] the scenario ended: still watching the alerts until each is decided\n');
    await watching;
    const stoppedAfter = formatDuration(scheduler.now() - start);
    await this.print(
      expectations
        .filter((expectation) => !findings.has(expectation))
        .map((expectation) => `${undecidedLine(expectation, `the test stopped after ${stoppedAfter}`)}\n`)
        .join(''),
    );
    const passed = expectations.every((expectation) => findings.get(expectation)?.passed);
    return passed && runCode === 0 ? 0 : 1;
  }

  private async check(
    entries: readonly Entry[],
    intervalMs: number,
    expectations: readonly AlertExpectation[],
  ): Promise<number> {
    const [
      { mkdtemp, rm, writeFile },
      { tmpdir },
      { join, resolve },
      { leastSteps, sampleScenario },
      { unitTest },
      { promtool, promtoolWords },
      {
        alertsNotInRules,
        checkExpectations,
        findingLine,
        groupIntervalWarnings,
        groupOrderWarnings,
        ruleGroupOrder,
        rulesFile,
        tooManyEvaluations,
      },
      { readTextFile },
      { MAX_RULES_BYTES },
      { stopSignals },
      { signalExitCode },
      { take },
    ] = await Promise.all([
      import('node:fs/promises'),
      import('node:os'),
      import('node:path'),
      import('../../alert-test/sampling.js'),
      import('../../alert-test/unit-test.js'),
      import('../../alert-test/promtool.js'),
      import('../../alert-test/check.js'),
      import('../../config/read.js'),
      import('../../language/limits.js'),
      import('../../runtime/stop-signals.js'),
      import('../run-scenario.js'),
      import('rxjs'),
    ]);
    // Each file once (promtool would load a repeated one's groups twice), by the absolute path promtool is given,
    // and named as first given.
    const named = this.rules!.map((file) => [resolve(file), file] as const).filter(
      ([path], i, all) => all.findIndex(([first]) => first === path) === i,
    );
    const rulesFiles = named.map(([path]) => path);
    // Read here, not only by promtool: a missing file, a directory or binary data is named before anything is sampled.
    const rules = await Promise.all(
      named.map(async ([path, file]) =>
        rulesFile(
          file,
          await readTextFile(path, 'rules file', MAX_RULES_BYTES, 'YAML').catch((error: Error) => {
            throw new Error(`--rules: ${error.message}`);
          }),
        ),
      ),
    );
    const groupOrder = ruleGroupOrder(rules);
    const unknown = alertsNotInRules(expectations, rules);
    if (unknown.length) throw new Error(unknown.map((problem) => `${this.file}: ${problem}`).join('\n'));
    for (const warning of rules.flatMap((file) => groupIntervalWarnings(file, intervalMs)))
      this.context.stderr.write(`[warn] ${warning}\n`);
    for (const warning of groupOrderWarnings(rules)) this.context.stderr.write(`[warn] ${warning}\n`);
    // Before sampling, which is the long part of such a test, with the steps the data has at least; then with those
    // it has (an entry started by `after` lasts longer).
    const refuseTooMany = (steps: number) => {
      const tooMany = tooManyEvaluations({ steps, intervalMs }, expectations);
      if (tooMany) throw new Error(`${this.file}: ${tooMany}`);
    };
    refuseTooMany(leastSteps(entries, intervalMs));
    const sampling = await sampleScenario(entries, intervalMs, { scheduler: this.context.scheduler });
    refuseTooMany(sampling.steps);
    const dir = await mkdtemp(join(tmpdir(), 'svc-test-'));
    const testFile = join(dir, 'unit-test.yml');
    const run = promtool(this.context.env.PROMTOOL ?? 'promtool');
    // From here a stop signal ends the promtool run in progress rather than the process, so that the unit test
    // (which can be megabytes) is removed below; the exit code is the shell's for that signal, as svc run's.
    const stop = new AbortController();
    const stopping = (this.context.signals ?? stopSignals()).pipe(take(1)).subscribe((signal) => stop.abort(signal));
    try {
      const { findings, checks, result } = await checkExpectations(sampling, expectations, async (checks) => {
        await writeFile(testFile, unitTest(sampling, rulesFiles, checks, groupOrder));
        return run(testFile, stop.signal);
      });
      // What --keep leaves is the test of the expectations themselves.
      await writeFile(testFile, unitTest(sampling, rulesFiles, checks, groupOrder));
      await this.print(findings.map((finding) => `${findingLine(finding)}\n`).join(''));
      const passed = findings.every((finding) => finding.passed);
      if (passed !== result.passed)
        throw new Error(`promtool's verdict on the expectations differs from the search's${promtoolWords(result)}`);
      return passed ? 0 : 1;
    } catch (error) {
      if (!stop.signal.aborted) throw error;
      this.context.stderr.write(`error: stopped by ${stop.signal.reason}: no expectation was decided\n`);
      return signalExitCode(stop.signal.reason);
    } finally {
      stopping.unsubscribe();
      if (this.keep)
        this.context.stderr.write(`kept the promtool unit test: ${testFile} (run: promtool test rules ${testFile})\n`);
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
    if (ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS)
      throw new UsageError(`--interval: expected from 1s to 1h, got "${this.interval}"`);
    return ms;
  }
}
