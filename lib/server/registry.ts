import { randomUUID } from 'node:crypto';
import type { SchedulerLike } from 'rxjs';
import type { Entry, ScenarioFile } from '../config/types.js';
import { runEntry, type EntryOutcome, type EntryRun, type RunEntryOptions } from '../runtime/run-entry.js';
import { ScrapeBuffer } from './scrape.js';

/** A scenario the server runs: one entry of a posted file, with its id and scrape buffer. */
export interface Scenario {
  readonly id: string;
  readonly name: string;
  readonly run: EntryRun;
  readonly scrape: ScrapeBuffer;
  readonly startedAt: number;
  /** Set once the entry ended (duration reached, or a sink error under `fail`). */
  outcome?: EntryOutcome;
}

export interface RegistryOptions extends Pick<RunEntryOptions, 'createSink' | 'stdout'> {
  readonly scheduler?: SchedulerLike;
}

/**
 * The scenarios of a server: started from a posted file (one scenario per entry, all started
 * together), listed, stopped and forgotten. An entry whose duration ends stays listed as
 * `stopped`, with its final statistics, until it is deleted.
 */
export class ScenarioRegistry {
  private readonly scenarios = new Map<string, Scenario>();

  constructor(private readonly options: RegistryOptions = {}) {}

  /** Starts every entry of `file`; when one cannot start, those already started are stopped and the error rethrown. */
  async start(file: ScenarioFile): Promise<Scenario[]> {
    const started: Scenario[] = [];
    try {
      for (const entry of file.scenarios) started.push(this.startEntry(entry));
    } catch (error) {
      await Promise.all(started.map((scenario) => this.remove(scenario.id)));
      throw error;
    }
    return started;
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

  private startEntry(entry: Entry): Scenario {
    const name = entry.name ?? entry.id;
    const scrape = new ScrapeBuffer({ name, type: entry.metric_type, help: entry.help });
    const run = runEntry(entry, { ...this.options, hooks: { onSamples: (batch) => scrape.record(batch) } });
    const scenario: Scenario = { id: randomUUID(), name, run, scrape, startedAt: run.stats.startedAt };
    void run.done.then((outcome) => (scenario.outcome = outcome));
    this.scenarios.set(scenario.id, scenario);
    return scenario;
  }
}

/** `running` until the entry ended, `stopped` after. */
export function statusOf(scenario: Scenario): 'running' | 'stopped' {
  return scenario.outcome ? 'stopped' : 'running';
}
