import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type { SchedulerLike } from 'rxjs';
import type { Delivery } from '../../operators/deliver.js';
import type { Entry, ScenarioFile } from '../config/types.js';
import type { EntryOutcome, EntryRun, RunEntryOptions } from '../runtime/run-entry.js';
import type { FileRunOptions } from '../runtime/file-run.js';
import type { Input } from '../compile/plan.js';
import type { ReadFile } from '../sinks/core/open-check.js';
import { ScrapeBudget, ScrapeBuffer } from './scrape.js';
import { afterNeverHeld, countOf, undelivered, type WatchedEnd } from '../format.js';

// The runtime is loaded by the first start (docs/performance.md): an idle server does not carry the pipeline.
const require = createRequire(import.meta.url);

/**
 * An entry the server started: one entry of a posted file, with its id and scrape buffer (the
 * HTTP API calls it a scenario). It stays listed after it ended, until it is deleted or a start needs its room.
 */
export interface StartedEntry {
  readonly id: string;
  readonly name: string;
  readonly run: EntryRun;
  readonly scrape: ScrapeBuffer;
  /** When its file was posted (scheduler time). */
  readonly startedAt: number;
  /** Its place in the order the registry lists entries (the order they were started): `GET /scenarios` pages by it. */
  readonly seq: number;
  /** When it began ticking, after its phase offset or `after` trigger; undefined until then. */
  readonly tickingSince: () => number | undefined;
  /** The files read to compile its file (a csv_replay file…), one array for the file's entries: see {@link EntryRegistry.reads}. */
  readonly inputs: readonly Input[];
  /** Set once the entry ended (duration reached, or a sink error under `fail`). */
  outcome?: EntryOutcome;
}

export interface RegistryOptions extends Pick<RunEntryOptions, 'createSink' | 'stdout'>, Pick<FileRunOptions, 'shard'> {
  readonly scheduler?: SchedulerLike;
  /** Where sink failures and failed entries are logged, with the entry's id. */
  readonly logger?: Logger;
  /** Called when an entry ended by itself (its duration, or its sink under `fail`), not when it was removed. */
  readonly onEnded?: (started: StartedEntry) => void;
  /** What the entries' scrape rings hold together (default: a budget of its own, `SCRAPE_BUDGET_ROWS` rows and `SCRAPE_BUDGET_RING_LABEL_CHARS` characters of label text). */
  readonly scrapeBudget?: ScrapeBudget;
  /**
   * Most entries running at once (`--max-entries`; default {@link DEFAULT_MAX_ENTRIES}), and listed: ended ones do not
   * count against a start, but those that ended first are forgotten to make its room.
   */
  readonly maxEntries?: number;
}

/**
 * Most entries a server runs at once unless told (`--max-entries`): the scale docs/reliability.md measures
 * ("Ten thousand scenarios"). Each running entry holds about 20 KiB of heap, so without a bound a client looping
 * on `POST /scenarios` grows the server until it is killed.
 */
export const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Most scenarios a refusal names as the readers or writers of a file: a file of ten thousand entries would fill its
 * detail.
 */
const NAMED_SCENARIOS = 3;

/** Who reads a file: the running `scenarios` (`<scenario id> (<entry id>)`) of the file that read it. */
function readersOf(scenarios: readonly string[]): string {
  return scenarios.length === 1
    ? `${runningNamed(scenarios)} reads`
    : `${runningNamed(scenarios)}, started together, read`;
}

/** Who writes a file: the running `scenarios` (`<scenario id> (<entry id>)`) whose `file` sinks write it. */
function writersOf(scenarios: readonly string[]): string {
  return `${runningNamed(scenarios)} ${scenarios.length === 1 ? 'writes' : 'write'}`;
}

/** Who wrote a file as it was read and has ended since: the `scenarios` (`<scenario id> (<entry id>)`). */
function pastWritersOf(scenarios: readonly string[]): string {
  return `${scenariosNamed(scenarios, '')}, ended since, wrote as it was read`;
}

/** The running `scenarios`, a few of them by name. */
function runningNamed(scenarios: readonly string[]): string {
  return scenariosNamed(scenarios, 'running ');
}

/** The `scenarios`, a few of them by name, each said to be `which` (`running `, or nothing). */
function scenariosNamed(scenarios: readonly string[], which: string): string {
  if (scenarios.length === 1) return `${which}scenario ${scenarios[0]}`;
  const more = scenarios.length > NAMED_SCENARIOS ? ` and ${scenarios.length - NAMED_SCENARIOS} more` : '';
  return `the ${which}scenarios ${scenarios.slice(0, NAMED_SCENARIOS).join(', ')}${more}`;
}

/** An entry's lifecycle as answers show it: ticking, ended, or ended by its sink (see {@link statusOf}). */
export type Status = 'running' | 'stopped' | 'failed';

/** Thrown once the registry drains (by {@link EntryRegistry.start}, and `POST /events`): the server is going away. */
export class DrainingError extends Error {
  constructor() {
    super('svc-server is shutting down: it flushes its scenarios and takes no new scenarios or events');
    this.name = 'DrainingError';
  }
}

/** Thrown by {@link EntryRegistry.start} when a file's entries would take the running ones past `maxEntries`. */
export class TooManyEntriesError extends Error {
  constructor(max: number, running: number, adding: number) {
    super(
      `too many scenarios: this server runs at most ${countOf(max, 'entry', 'entries')} at once (--max-entries), ${running} run now and this file has ${adding}; none of its entries started. Stop some (DELETE /scenarios/{id}), or start the server with a higher --max-entries`,
    );
    this.name = 'TooManyEntriesError';
  }
}

/**
 * The entries a server runs: started from a posted file (all its entries together, as one file
 * run), listed, stopped and forgotten. An entry whose duration ends stays listed as `stopped`,
 * with its final statistics, until it is deleted or a start needs its room. Once {@link stopAll} began it drains: it
 * starts nothing more (an entry started then would outlive the flush), and readiness says so.
 */
export class EntryRegistry {
  private readonly entries = new Map<string, StartedEntry>();
  private stopping = false;
  private started = 0;
  private removed = 0;
  /**
   * Entries started whose run has not ended, in the order they started: those listed and those {@link remove} took out,
   * until their stop's flush ended (their sinks still write). What `maxEntries` bounds.
   */
  private readonly live = new Set<StartedEntry>();
  /** The listed entries that ended by themselves, in the order they ended: the first give way to new starts. */
  private readonly ended = new Set<StartedEntry>();
  private readonly scrapeBudget: ScrapeBudget;
  /** The entries {@link remove} stopped: an `after` entry that waited for one says so at its end. */
  private readonly deleted = new WeakSet<StartedEntry>();
  /** Per compile in flight ({@link reading}): the entries whose `file` sinks wrote while it read its files. */
  private readonly readings = new Set<Set<StartedEntry>>();
  /** The last start {@link inTurn} was given, which the next waits for. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: RegistryOptions = {}) {
    this.scrapeBudget = options.scrapeBudget ?? new ScrapeBudget();
  }

  /** True from the moment {@link stopAll} is called: the server stops taking work. */
  get draining(): boolean {
    return this.stopping;
  }

  /**
   * Starts every entry of a compiled file together (clock groups, phase offsets and `after`
   * triggers wired by startEntries); throws, with nothing left running, when one cannot start,
   * a {@link TooManyEntriesError} when they would take the running entries past `maxEntries` (none starts),
   * and a {@link DrainingError} once the registry drains. The entries listed, running and ended, stay within
   * `maxEntries` too once the caller kept the start and called {@link makeRoom}. `ids` gives entries the ids they had
   * before a restart (`--state`), and then their `file` sinks append to their files; the others get a new UUID. `gone`: entries deleted before the restart,
   * which others may still name (see {@link FileRunOptions.gone}). `file.inputs`: the files read to compile it.
   */
  start(
    file: ScenarioFile & { readonly inputs?: readonly Input[] },
    ids: ReadonlyMap<string, string> = new Map(),
    gone?: FileRunOptions['gone'],
  ): StartedEntry[] {
    if (this.stopping) throw new DrainingError();
    const max = this.options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    if (this.live.size + file.scenarios.length > max)
      throw new TooManyEntriesError(max, this.live.size, file.scenarios.length);
    const { startEntries } = require('../runtime/file-run.js') as typeof import('../runtime/file-run.js');
    const { labelCycle } = require('../runtime/chain/labels.js') as typeof import('../runtime/chain/labels.js');
    const { prometheusFace } = require('../compile/span-metrics.js') as typeof import('../compile/span-metrics.js');
    const idOf = new Map(file.scenarios.map((entry) => [entry.id, ids.get(entry.id) ?? randomUUID()]));
    const taken = [...idOf.values()].find((id) => this.entries.has(id));
    if (taken !== undefined) throw new Error(`scenario id ${taken} is already running`);
    // The scrape is Prometheus' format: span metrics sent over OTLP show there as Prometheus names them.
    const faces = new Map(file.scenarios.map((entry) => [entry.id, prometheusFace(entry)]));
    const scrapes = new Map(
      file.scenarios.map((entry) => [
        entry.id,
        new ScrapeBuffer(
          { name: faces.get(entry.id)!.name ?? entry.id, type: entry.metric_type, help: entry.help },
          this.scrapeBudget,
          labelCycle(entry),
        ),
      ]),
    );
    const { logger } = this.options;
    const fileRun = startEntries(file.scenarios, {
      ...this.options,
      // Every path a sink names here was confined below the file root (launch.ts). Entries started again after a
      // restart (`ids`, from --state) go on with their files: emptied as a new run's are, a rolled pod lost all it wrote.
      sinkDeps: { realPaths: true, appendFiles: ids.size > 0 },
      gone,
      hooks: (entry) => {
        const face = faces.get(entry.id)!;
        const scrape = scrapes.get(entry.id)!;
        return {
          onSamples: (batch) => scrape.record(face.rows(batch)),
          ...(logger && { onDelivery: sinkHealthLog(() => logger.child(logFields(idOf.get(entry.id)!, entry))) }),
        };
      },
    });
    // The entries of the file that `after` entries wait for, by entry id: their end is what ends such a wait.
    const watchedIds = new Set(file.scenarios.flatMap(({ after }) => (after ? [after.ref] : [])));
    const watchedOf = new Map<string, StartedEntry>();
    const inputs = file.inputs ?? [];
    return fileRun.runs.map((run) => {
      const started: StartedEntry = {
        id: idOf.get(run.entry.id)!,
        name: run.entry.name ?? run.entry.id,
        run,
        scrape: scrapes.get(run.entry.id)!,
        startedAt: run.stats.startedAt,
        seq: this.started++,
        tickingSince: () => fileRun.startedAt(run.entry.id),
        inputs,
      };
      this.live.add(started);
      if (run.entry.sink.type === 'file') for (const wrote of this.readings) wrote.add(started);
      void run.done.then((outcome) => {
        this.live.delete(started);
        started.outcome = outcome;
        started.scrape.end();
        if (statusOf(started) === 'failed') {
          const error = outcome.error?.message ?? run.stats.lastSinkError;
          const { totalEvents, droppedEvents } = run.stats;
          // Its counts too: a failed entry is forgotten as an ended one is, and its statistics with it.
          this.options.logger?.error(
            {
              ...logFields(started.id, run.entry),
              sink_error: error,
              total_events: totalEvents,
              dropped_events: droppedEvents,
            },
            `scenario failed: ${outcome.error ? '' : 'its sink delivered nothing: '}${error}`,
          );
        }
        // remove() takes an entry out of the map before stopping it: an entry still there ended by itself.
        if (this.listed(started) && !this.stopping) {
          if (logger && statusOf(started) === 'stopped') {
            const watched =
              run.entry.after && started.tickingSince() === undefined ? watchedOf.get(run.entry.after.ref) : undefined;
            if (!watched) logEnded(logger, started);
            // It waited for `watched`, which ended first: its end says how (its outcome is settled by then).
            else void watched.run.done.then((end) => logEnded(logger, started, this.watchedEnd(watched, end)));
          }
          this.ended.add(started);
          this.options.onEnded?.(started);
        }
      });
      this.entries.set(started.id, started);
      if (watchedIds.has(run.entry.id)) watchedOf.set(run.entry.id, started);
      return started;
    });
  }

  get(id: string): StartedEntry | undefined {
    return this.entries.get(id);
  }

  list(): StartedEntry[] {
    return [...this.entries.values()];
  }

  /**
   * At most `limit` entries started after the one numbered `after` ({@link StartedEntry.seq}; none: from the
   * first), in the order they were started, and whether more follow. Entries started or removed between two
   * pages neither shift nor repeat the others.
   */
  page(after: number | undefined, limit: number): { entries: StartedEntry[]; more: boolean } {
    const entries: StartedEntry[] = [];
    // The map keeps insertion order, which is seq order: skip to the first entry past `after`.
    for (const started of this.entries.values()) {
      if (after !== undefined && started.seq <= after) continue;
      if (entries.length === limit) return { entries, more: true };
      entries.push(started);
    }
    return { entries, more: false };
  }

  /** How `watched`, which an `after` entry waited for, ended: `outcome` is its run's. */
  private watchedEnd(watched: StartedEntry, outcome: EntryOutcome): WatchedEnd {
    return this.deleted.has(watched) ? 'deleted' : outcome.error ? 'failed' : 'ended';
  }

  /** Stops an entry (flushing its sink), forgets it (its scrape ring too) and returns it; undefined for an unknown id. */
  async remove(id: string): Promise<StartedEntry | undefined> {
    const started = this.entries.get(id);
    if (!started) return undefined;
    this.forget(started);
    this.deleted.add(started);
    // Its series may be in an exposition built while it ran. An ended entry forgotten by makeRoom is not counted:
    // ending took its series out already (ScrapeBuffer.end), so what was built stays valid.
    this.removed++;
    started.outcome = await started.run.stop();
    started.scrape.release();
    return started;
  }

  /**
   * Forgets the entries that ended first until those listed are within `maxEntries`: kept until deleted, the ended
   * entries of a client posting short scenarios grew the server without bound (about 30 KiB each). Called once a
   * start is kept, not by {@link start}: a start rolled back (its POST answered 500) leaves the ended ones listed.
   */
  makeRoom(): void {
    const max = this.options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    for (const started of this.ended) {
      if (this.entries.size <= max) return;
      this.forget(started);
      started.scrape.release();
      this.options.logger?.info(
        logFields(started.id, started.run.entry),
        `scenario forgotten: it had ended, and the scenarios listed were at --max-entries (${max}): a new one took its place`,
      );
    }
  }

  /** Takes an entry out of the list (and of the ended ones that give way to starts). */
  private forget(started: StartedEntry): void {
    this.entries.delete(started.id);
    this.ended.delete(started);
  }

  /**
   * Entries removed so far ({@link remove}), counted as soon as one is (before its stop's flush): what was built from
   * the entries before (an exposition of their latest values) may show series no longer there. Ended entries
   * forgotten to make room are not counted: they showed no series since they ended.
   */
  get removals(): number {
    return this.removed;
  }

  /** The entries that have not ended (those listed of the {@link unflushed}). */
  unended(): StartedEntry[] {
    return [...this.live].filter((started) => this.listed(started));
  }

  /** The entries whose sinks have not flushed: those running, and those being deleted until their flush ended. */
  unflushed(): StartedEntry[] {
    return [...this.live];
  }

  /** Whether `started` is still listed: one {@link remove} took out is not, though it runs until its flush ended. */
  private listed(started: StartedEntry): boolean {
    return this.entries.get(started.id) === started;
  }

  /**
   * The files the scenarios running now read, each once: a sink writing over one would leave them without it when
   * they are compiled again (`--state`, at the next start), or a catalog scenario without its CSV.
   */
  reads(): ReadFile[] {
    // The entries of a file share its inputs: those still running are named as its readers, not those ended.
    const readers = new Map<readonly Input[], string[]>();
    for (const started of this.unended()) {
      if (started.inputs.length === 0) continue;
      const scenarios = readers.get(started.inputs) ?? [];
      scenarios.push(`${started.id} (${started.run.entry.id})`);
      readers.set(started.inputs, scenarios);
    }
    const reads = new Map<string, ReadFile>();
    for (const [inputs, scenarios] of readers)
      for (const { path, file } of inputs)
        if (!reads.has(path)) reads.set(path, { path, what: `${file} that ${readersOf(scenarios)}` });
    return [...reads.values()];
  }

  /**
   * The files the `file` sinks of the scenarios running now write, each once, by the real path they were confined to
   * (launch.ts): a scenario reading one would read lines still being written, and lose them when it is compiled
   * again. A scenario being deleted writes until its stop's flush ended, its last bytes on disk. `wrote`: the
   * writers a file's compile saw ({@link reading}); those ended since still count, as what it read may end in a cut
   * line.
   */
  writes(wrote: readonly StartedEntry[] = []): ReadFile[] {
    return [
      ...filesOf(this.writing(), (started) => (this.listed(started) ? '' : ', being deleted,'), writersOf),
      ...filesOf(
        wrote.filter((started) => !this.live.has(started)),
        () => '',
        pastWritersOf,
      ),
    ];
  }

  /** The entries whose `file` sinks write now ({@link unflushed}). */
  private writing(): StartedEntry[] {
    return this.unflushed().filter((started) => started.run.entry.sink.type === 'file');
  }

  /**
   * Runs `compile`, which reads a file's inputs (a csv_replay file…), and returns what it returns with the entries
   * whose `file` sinks wrote meanwhile: running as it began, or started before it ended. Given to {@link writes} at
   * the file's turn, they refuse it even if they ended by then.
   */
  async reading<T>(compile: () => Promise<T>): Promise<{ compiled: T; wrote: readonly StartedEntry[] }> {
    const wrote = new Set(this.writing());
    this.readings.add(wrote);
    try {
      return { compiled: await compile(), wrote: [...wrote] };
    } finally {
      this.readings.delete(wrote);
    }
  }

  /**
   * Runs `start`, a file's checks against the scenarios running then its start, once those asked before it are done,
   * and returns what it returns: checked while another was, each missed what the other started (a POST reading a file
   * and one writing it both started).
   */
  inTurn<T>(start: () => Promise<T>): Promise<T> {
    const started = this.turn.then(start);
    this.turn = started.catch(() => undefined);
    return started;
  }

  /** Starts draining, stops every entry and waits until every sink flushed, those of entries being deleted too. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    const deleting = [...this.live].filter((started) => !this.listed(started)).map((started) => started.run.done);
    await Promise.all([...[...this.entries.keys()].map((id) => this.remove(id)), ...deleting]);
  }
}

/**
 * The files `writers`, entries with `file` sinks, write, each once, with what writes them: `named` says who, each
 * writer as `<scenario id> (<entry id>)<note(writer)>`.
 */
function filesOf(
  writers: readonly StartedEntry[],
  note: (started: StartedEntry) => string,
  named: (scenarios: readonly string[]) => string,
): ReadFile[] {
  const files = new Map<string, string[]>();
  for (const started of writers) {
    const { sink, id } = started.run.entry;
    if (sink.type !== 'file') continue;
    const scenarios = files.get(sink.path) ?? [];
    scenarios.push(`${started.id} (${id})${note(started)}`);
    files.set(sink.path, scenarios);
  }
  return [...files].map(([path, scenarios]) => ({ path, what: `the file that ${named(scenarios)}` }));
}

/**
 * `running` until the entry ended; then `failed` when an error stopped it (a sink error under
 * `on_sink_error: fail`) or when its sink failed and never delivered anything (the rule that
 * makes a CLI run exit 1), else `stopped`.
 */
export function statusOf(started: StartedEntry): Status {
  if (!started.outcome) return 'running';
  return started.outcome.error || started.run.stats.neverDelivered() ? 'failed' : 'stopped';
}

/**
 * Logs an entry that ended by itself and not `failed` (which has its error line) with its counts: its statistics
 * leave with it (a DELETE, a start that needs its room, the process's exit), the log stays. `watchedEnd`: an
 * `after` entry that never started, how the entry it waited for ended (the line says it never started, and why).
 */
function logEnded(logger: Logger, started: StartedEntry, watchedEnd?: WatchedEnd): void {
  if (warnUndelivered(logger, started, 'ended')) return;
  const { totalEvents } = started.run.stats;
  const after = started.run.entry.after;
  const never = after && watchedEnd ? afterNeverHeld(after, watchedEnd) : undefined;
  logger.info(
    {
      ...logFields(started.id, started.run.entry),
      total_events: totalEvents,
      dropped_events: 0,
      ...(never && { never_started: never }),
    },
    `scenario ended: ${countOf(totalEvents, 'event')}${never ? `; it never started (${never})` : ''}`,
  );
}

/** Why events were dropped with no sink error (a `dropped` delivery): the only sink that drops so is stdout. */
const NOBODY_READING = 'no sink error: nobody was left to take them, as when the reader of stdout goes away';

/**
 * Warns that `started`, which `how` (`ended`, `stopped`), did not deliver some of its events, as far as its
 * statistics know; false, logging nothing, when it delivered them all.
 */
export function warnUndelivered(logger: Logger, started: StartedEntry, how: string): boolean {
  const { totalEvents, droppedEvents, lastSinkError } = started.run.stats;
  if (droppedEvents === 0) return false;
  logger.warn(
    {
      ...logFields(started.id, started.run.entry),
      total_events: totalEvents,
      dropped_events: droppedEvents,
      sink_error: lastSinkError,
    },
    `scenario ${how}: ${undelivered(droppedEvents, totalEvents)} (${lastSinkError === undefined ? NOBODY_READING : `last sink error: ${lastSinkError}`})`,
  );
  return true;
}

/**
 * Warns that `started` was still flushing when a signal ended the process: the events its sink still held are lost.
 * Returns how many.
 */
export function warnUnflushed(logger: Logger, started: StartedEntry): number {
  const { stats, entry } = started.run;
  const held = stats.heldEvents();
  logger.warn(
    { ...logFields(started.id, entry), total_events: stats.totalEvents, held_events: held },
    `scenario not flushed: ${undelivered(held, stats.totalEvents, 'still in its sink')}`,
  );
  return held;
}

/** What every log line about a started entry carries (`scenario` is its id, as the HTTP API names it). */
function logFields(id: string, entry: Entry) {
  return { scenario: id, entry: entry.id, name: entry.name ?? entry.id };
}

/**
 * Logs an entry's sink health as it changes, not per batch: a warning at the first failure of
 * a streak, a line when deliveries resume; a warning at the first of a streak of partial refusals
 * (counted in `receiver_rejected`, which the rest of the streak only adds to); and each warning of the sink.
 * `childLogger` makes the entry's logger.
 */
function sinkHealthLog(childLogger: () => Logger): (delivery: Delivery) => void {
  let failures = 0;
  // Made at the first line to log: ten thousand healthy entries hold no logger each.
  let entryLogger: Logger | undefined;
  const logger = () => (entryLogger ??= childLogger());
  return (delivery) => {
    if (delivery.kind === 'failed' && delivery.refusal !== undefined) {
      if (delivery.refusal === 1)
        logger().warn(
          { sink_error: delivery.error.message },
          `receiver refusing part of the data (counted in receiver_rejected): ${delivery.error.message}`,
        );
    } else if (delivery.kind === 'failed') {
      if (failures++ === 0)
        logger().warn({ sink_error: delivery.error.message }, `sink failing: ${delivery.error.message}`);
    } else if (delivery.kind === 'warning') {
      logger().warn({ sink_warning: delivery.message }, delivery.message);
    } else if (delivery.kind === 'delivered' && failures > 0) {
      logger().info(`sink delivering again after ${countOf(failures, 'failure')}`);
      failures = 0;
    }
  };
}
