import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SchedulerLike } from 'rxjs';
import type { Delivery } from '../../operators/deliver.js';
import type { Entry, ScenarioFile } from '../config/types.js';
import type { EntryOutcome, EntryRun, RunEntryOptions } from '../runtime/run-entry.js';
import { startScenario } from '../runtime/scenario.js';
import { ScrapeBuffer } from './scrape.js';

/** A scenario the server runs: one entry of a posted file, with its id and scrape buffer. */
export interface Scenario {
  readonly id: string;
  readonly name: string;
  readonly run: EntryRun;
  readonly scrape: ScrapeBuffer;
  /** When the scenario was posted (scheduler time). */
  readonly startedAt: number;
  /** When its entry began ticking, after its phase offset or `after` trigger; undefined until then. */
  readonly tickingSince: () => number | undefined;
  /** Set once the entry ended (duration reached, or a sink error under `fail`). */
  outcome?: EntryOutcome;
}

export interface RegistryOptions extends Pick<RunEntryOptions, 'createSink' | 'stdout'> {
  readonly scheduler?: SchedulerLike;
  /** Where sink failures and failed scenarios are logged, with the scenario id. */
  readonly logger?: Logger;
}

/** A scenario's lifecycle as answers show it: ticking, ended, or ended by its sink (see {@link statusOf}). */
export type Status = 'running' | 'stopped' | 'failed';

/**
 * The scenarios of a server: started from a posted file (one scenario per entry, all started
 * together as one scenario run), listed, stopped and forgotten. An entry whose duration ends stays listed as
 * `stopped`, with its final statistics, until it is deleted.
 */
export class ScenarioRegistry {
  private readonly scenarios = new Map<string, Scenario>();

  constructor(private readonly options: RegistryOptions = {}) {}

  /**
   * Starts every entry of a compiled file together (clock groups, phase offsets and `after`
   * triggers wired by the scenario runner); throws, with nothing left running, when one cannot start.
   */
  start(file: ScenarioFile): Scenario[] {
    const ids = new Map(file.scenarios.map((entry) => [entry.id, randomUUID()]));
    const scrapes = new Map(file.scenarios.map((entry) => [entry.id, new ScrapeBuffer({ name: entry.name ?? entry.id, type: entry.metric_type, help: entry.help })]));
    const scenarioRun = startScenario(file.scenarios, {
      ...this.options,
      hooks: (entry) => ({
        onSamples: (batch) => scrapes.get(entry.id)!.record(batch),
        ...(this.options.logger && { onDelivery: sinkHealthLog(this.options.logger.child(logFields(ids.get(entry.id)!, entry))) }),
      }),
    });
    return scenarioRun.runs.map((run) => {
      const scenario: Scenario = {
        id: ids.get(run.entry.id)!,
        name: run.entry.name ?? run.entry.id,
        run,
        scrape: scrapes.get(run.entry.id)!,
        startedAt: run.stats.startedAt,
        tickingSince: () => scenarioRun.startedAt(run.entry.id),
      };
      void run.done.then((outcome) => {
        scenario.outcome = outcome;
        if (statusOf(scenario) === 'failed') {
          const error = outcome.error?.message ?? run.stats.lastSinkError;
          this.options.logger?.error({ ...logFields(scenario.id, run.entry), sink_error: error }, `scenario failed: ${outcome.error ? '' : 'its sink delivered nothing: '}${error}`);
        }
      });
      this.scenarios.set(scenario.id, scenario);
      return scenario;
    });
  }

  get(id: string): Scenario | undefined {
    return this.scenarios.get(id);
  }

  list(): Scenario[] {
    return [...this.scenarios.values()];
  }

  /** Stops a scenario (flushing its sink), forgets it and returns it; undefined for an unknown id. */
  async remove(id: string): Promise<Scenario | undefined> {
    const scenario = this.scenarios.get(id);
    if (!scenario) return undefined;
    this.scenarios.delete(id);
    scenario.outcome = await scenario.run.stop();
    return scenario;
  }

  /** Stops every scenario and waits until every sink flushed. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.scenarios.keys()].map((id) => this.remove(id)));
  }
}

/**
 * `running` until the entry ended; then `failed` when an error stopped it (a sink error under
 * `on_sink_error: fail`) or when its sink failed and never delivered anything (the rule that
 * makes a CLI run exit 1), else `stopped`.
 */
export function statusOf(scenario: Scenario): Status {
  if (!scenario.outcome) return 'running';
  return scenario.outcome.error || scenario.run.stats.neverDelivered() ? 'failed' : 'stopped';
}

/** What every log line about a scenario carries. */
function logFields(id: string, entry: Entry) {
  return { scenario: id, entry: entry.id, name: entry.name ?? entry.id };
}

/**
 * Logs a scenario's sink health as it changes, not per batch: a warning at the first failure of
 * a streak, a line when deliveries resume.
 */
function sinkHealthLog(logger: Logger): (delivery: Delivery) => void {
  let failures = 0;
  return (delivery) => {
    if (delivery.kind === 'failed') {
      if (failures++ === 0) logger.warn({ sink_error: delivery.error.message }, `sink failing: ${delivery.error.message}`);
    } else if (delivery.kind === 'delivered' && failures > 0) {
      logger.info(`sink delivering again after ${failures} failures`);
      failures = 0;
    }
  };
}
