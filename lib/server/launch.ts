import type { Entry, ScenarioFile } from '../config/types.js';
import type { ServerDeps } from './deps.js';
import { confineSink, type OwnDirectory } from './file-root.js';
import type { EntryRegistry, StartedEntry } from './registry.js';
import { sinkWarnings } from './warnings.js';
import { encoderSinkDeps } from '../encoders/kinds/index.js';
import { mixedEncodingRefusal, writtenFiles, type FileWriter } from '../sinks/core/shared-files.js';
import { HttpError } from './http-error.js';
import { entryWarnings } from '../compile/warnings.js';
import type { EntryPlan } from '../compile/index.js';
import { sameFileIn, statedOnce, type ReadFile } from '../sinks/core/open-check.js';
import { statIfAny } from '../real-file.js';
import type { Input } from '../compile/plan.js';
import { duplicateSeriesWarnings, fileWriters, seriesWriter, type SeriesWriter } from '../compile/duplicate-series.js';

/**
 * Where every entry of a server writes besides its sink: the aggregate scrape shows each series once, so two
 * entries writing one series there show a mix.
 */
const AGGREGATE_SCRAPE = 'svc-server GET /scenarios/metrics';

/**
 * What a file is compared with before it starts: the entries running on the server, the files starting with it
 * (`--autostart`: the writers of those before it, the files all of them read), and its clock.
 */
export interface Neighbours {
  readonly registry?: Pick<EntryRegistry, 'unended' | 'reads' | 'writes'>;
  /**
   * The entries whose `file` sinks wrote while its files were read ({@link EntryRegistry.reading}): one ended by its
   * check refuses it all the same.
   */
  readonly wrote?: readonly StartedEntry[];
  /** The writers of the files started before it, named for their file (`cpu (@web)`). */
  readonly before?: readonly SeriesWriter[];
  /** What they are, in a warning: `the entries running` unless said (--autostart's have not started). */
  readonly are?: string;
  /** The files read by the files starting with it (`--autostart`), which its `file` sinks may not write over. */
  readonly reads?: readonly ReadFile[];
  readonly now: number;
}

/**
 * A compiled file as this server runs it: the files its sinks name confined below the file root, with the advisory
 * warnings about its sinks and entries.
 */
export interface PreparedScenario {
  /** With the files read to compile it, which the registry keeps while it runs ({@link EntryRegistry.reads}). */
  readonly file: ScenarioFile & { readonly inputs?: readonly Input[] };
  readonly warnings: readonly EntryWarning[];
  /** Its entries' series writers, to compare the files started after it with. */
  readonly writers: readonly SeriesWriter[];
}

/** An advisory warning about one entry of a file: `text` names the entry, `entry` is its id, for the log. */
export interface EntryWarning {
  readonly entry: string;
  readonly text: string;
}

/**
 * Readies a compiled file, posted or autostarted, for this server: the files its sinks name (a `file` sink's
 * path, a `broker` sink's `tls.ca_cert`) confined below the file root (422 otherwise), a `file` sink onto a file it
 * reads (its `inputs`, lib/compile/plan.ts), a running scenario reads or one starting with it reads, into the
 * server's `own` directories, or onto a file another of its entries writes with an encoding that cannot share it
 * ({@link mixedFileRefusal}) refused (422 `file_sink_cannot_open`), as is, the other way, a file it reads that a
 * running scenario's `file` sink writes, or wrote as it was read (422 `file_being_written`), every sink and entry
 * checked for advisory warnings, its entries' series compared with each other's and with those of the entries running
 * (lib/compile/duplicate-series.ts).
 */
export async function prepareScenario(
  file: ScenarioFile & { readonly plans?: readonly EntryPlan[]; readonly inputs?: readonly Input[] },
  fileRoot: string | undefined,
  neighbours: Neighbours,
  own: readonly OwnDirectory[] = [],
): Promise<PreparedScenario> {
  // Looked at once, whether compared with the files running sinks write or with its own sinks' files.
  const inputs = statedOnce(file.inputs ?? []);
  // The files running sinks write are looked up only for a scenario reading files, which alone could read one.
  const written =
    inputs.length > 0 && (await writtenInput(inputs, neighbours.registry?.writes(neighbours.wrote) ?? []));
  if (written) throw new HttpError(422, 'file_being_written', written);
  // The files other scenarios read (running, or starting with it) are looked up only for a file sink, which alone
  // could write over one.
  const writesFiles = file.scenarios.some(({ sink }) => sink.type === 'file');
  const reads = writesFiles
    ? [...inputs, ...statedOnce([...(neighbours.registry?.reads() ?? []), ...(neighbours.reads ?? [])])]
    : [];
  const scenarios = await Promise.all(
    file.scenarios.map(async (entry) => ({
      ...entry,
      sink: await confineSink(entry.sink, fileRoot, `${entry.id}: `, reads, own, encoderSinkDeps(entry.encoder.type)),
    })),
  );
  const mixed = mixedFileRefusal(fileSinkWriters(file.scenarios, scenarios));
  if (mixed) throw new HttpError(422, 'file_sink_cannot_open', mixed);
  const { now } = neighbours;
  const writers = fileWriters({ ...file, scenarios }, now);
  const duplicates = duplicateSeriesWarnings(writers, {
    running: [...(neighbours.registry ? runningWriters(neighbours.registry) : []), ...(neighbours.before ?? [])],
    shared: AGGREGATE_SCRAPE,
    runningAre: neighbours.are,
  });
  const warnings = scenarios.flatMap((entry) =>
    [
      ...sinkWarnings(entry.id, entry.sink),
      ...entryWarnings(entry, { now, backfill: false }, scenarios).map((warning) => `${entry.id}: ${warning}`),
      ...duplicates.filter(({ name }) => name === entry.id).map(({ warning }) => `${entry.id}: ${warning}`),
    ].map((text) => ({ entry: entry.id, text })),
  );
  return { file: { ...file, scenarios }, warnings, writers };
}

/**
 * Why a scenario cannot read one of `inputs`, the files read to compile it, if it cannot: it is one of `written`, the
 * files running scenarios' `file` sinks write (the other way of a sink onto a file read, {@link confineSink}). What
 * it read was a file still growing, its last line perhaps cut, and compiled again (`--state`) it would read another.
 */
async function writtenInput(inputs: readonly Input[], written: readonly ReadFile[]): Promise<string | undefined> {
  if (written.length === 0) return undefined;
  const writes = statedOnce(written);
  for (const input of inputs) {
    const read = await (input.stats ?? statIfAny(input.path));
    const writer = read && (await sameFileIn(read, writes));
    if (writer)
      return `${input.file}: cannot read it: it is ${writer.what}, which reading would take still growing, its last line perhaps cut. Read a copy, or start this scenario once nothing writes it`;
  }
  return undefined;
}

/**
 * The `file` sinks of a file's entries: the paths `posted` name, the files their `confined` sinks write, and what
 * each entry writes, the entry named `name(id)`: its id unless said (`cpu (@web)` among --autostart's files).
 */
export function fileSinkWriters(
  posted: readonly Entry[],
  confined: readonly Entry[],
  name = (id: string) => id,
): FileWriter[] {
  return confined.flatMap((entry, i) => {
    const named = posted[i]!.sink;
    return entry.sink.type === 'file' && named.type === 'file'
      ? [{ id: name(entry.id), path: named.path, file: entry.sink.path, encoding: encoderSinkDeps(entry.encoder.type) }]
      : [];
  });
}

/**
 * Why entries starting together (one POST's, or --autostart's) cannot, if they cannot: some write one file with
 * encodings that cannot share it ({@link mixedEncodingRefusal}), the detail of a 422 `file_sink_cannot_open`
 * naming them; refused before they start rather than by one of them failing as its sink opens. Grouped by the files
 * written, named by the path posted, as the other refusals of a path.
 */
export function mixedFileRefusal(writers: readonly FileWriter[]): string | undefined {
  for (const { path, writers: encodings } of writtenFiles(writers)) {
    const why = mixedEncodingRefusal(encodings);
    if (why) return `${[...encodings.keys()].join(', ')}: sink.path: cannot open ${path}: ${why}`;
  }
  return undefined;
}

/**
 * The writers of running entries, made once each (and again once it began ticking): a POST compares with them,
 * and the lists they rotate stay indexed between POSTs (lib/compile/duplicate-series.ts).
 */
const runningWriterOf = new WeakMap<
  StartedEntry,
  { readonly ticking: number | undefined; readonly writer?: SeriesWriter }
>();

/** The writers of the entries a server runs, named with their scenario id; from when each began ticking, if it did. */
function runningWriters(registry: Pick<EntryRegistry, 'unended'>): SeriesWriter[] {
  return registry.unended().flatMap((started) => {
    const ticking = started.tickingSince();
    const made = runningWriterOf.get(started);
    if (made && made.ticking === ticking) return made.writer ?? [];
    const { id, run, startedAt } = started;
    const { entry } = run;
    const at = ticking === undefined ? entry.phase_offset : ticking - startedAt;
    const start = at === undefined ? { atLeast: 0 } : { at, atLeast: at };
    const writer = seriesWriter(entry, start, startedAt, `${entry.id} (scenario ${id})`);
    runningWriterOf.set(started, { ticking, writer });
    return writer ?? [];
  });
}

/**
 * Starts a prepared file, logging its start and its warnings, each with the scenario id of its entry (among a
 * thousand running, the entry id alone does not say which); throws as {@link EntryRegistry.start} does.
 * `ids` and `gone`: the scenario ids its entries had before a restart (`--state`), and its entries deleted since.
 */
export function launchScenario(
  { registry, logger }: Pick<ServerDeps, 'registry' | 'logger'>,
  { file, warnings }: PreparedScenario,
  ids?: ReadonlyMap<string, string>,
  gone?: ReadonlySet<string>,
): StartedEntry[] {
  const started = registry.start(file, ids, gone);
  logger.info({ scenarios: started.map(({ id, name }) => ({ id, name })) }, 'scenario started');
  for (const { entry, text } of warnings)
    logger.warn({ scenario: started.find((one) => one.run.entry.id === entry)?.id, entry }, text);
  return started;
}
