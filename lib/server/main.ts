import { bodyVariables } from './body.js';
import type { AddressInfo } from 'node:net';
import { Builtins, Cli, Command, UsageError, type BaseContext } from 'clipanion';
import type { Logger } from 'pino';
import { pino } from './packages.js';
import { endBySignal, firstStopSignal } from '../runtime/first-stop-signal.js';
import { DEFAULT_FLUSH_TIMEOUT } from '../sinks/core/sink-core.js';
import { describeError } from '../sinks/core/errors.js';
import { createLogger, logged } from './logger.js';
import { createApp } from './app.js';
import { realFileRoot, rootHolding } from './file-root.js';
import { isLoopback } from './loopback.js';
import { servesLocalNamesOnly } from './middleware/host.js';
import { apiKeyProblem } from './middleware/auth.js';
import { logLevelOf } from './log-level.js';
import { DEFAULT_MAX_ENTRIES, EntryRegistry, type StartedEntry, warnUndelivered, warnUnflushed } from './registry.js';
import type { PreparedScenario } from './launch.js';
import type { Catalog } from '../catalog/index.js';
import { parseShard } from './shard.js';
import { ScenarioStore } from './state.js';
import { DEFAULT_HTTP_LIMITS, HTTP_LIMIT_FLAGS, limitedServer, type HttpLimits } from './http-limits.js';
import { gentleClose } from './gentle-close.js';
import type { Shard } from '../../operators/labels.js';
import { flagNumber, valueFlag } from '../cli/flags.js';
import { program, runProgram } from '../cli/program.js';
import { countOf } from '../format.js';

/** What svc-server runs with, from its flags and `SVC_` environment variables. */
interface Settings {
  readonly port: number;
  readonly bind: string;
  readonly apiKey?: string;
  readonly fileRoot?: string;
  readonly catalog?: Catalog;
  readonly autostart: readonly string[];
  readonly shard?: Shard;
  readonly state?: ScenarioStore;
  readonly maxEntries: number;
  readonly limits: HttpLimits;
}

/** The port without --port. */
const DEFAULT_PORT = 8080;

/** How long a stop waits for the scenarios' flushes: the sinks' own flush deadline, and 5 s more for the last writes. */
const STOP_GRACE_MS = DEFAULT_FLUSH_TIMEOUT + 5_000;
/** How long an exit after the grace waits for its last log lines to reach stderr (a stderr nobody reads). */
const LAST_LINES_MS = 1_000;

/**
 * `svc-server [--port N] [--bind ADDRESS] [--api-key KEY] [--file-root DIR] [--catalog DIR] [--autostart @a,@b] [--shard I/N]
 * [--state DIR] [--max-entries N]`.
 */
class ServeCommand extends Command {
  static override usage = Command.Usage({
    description: 'Serve the svc HTTP API: start, inspect, scrape and stop scenarios; emit single events',
    details:
      'Prints {"svc_server":{"port":N}} on stdout once listening, then starts the --autostart scenarios; logs (pino JSON) go to stderr. GET /health answers liveness, GET /health?ready readiness (503 while starting the --autostart and --state scenarios, and once draining). SIGTERM/SIGINT stop every scenario (and a start still under way), flush every sink, then exit 0 (1 when a flush is not done 15 s after); a second signal ends it at once, logging what the sinks still held.',
    examples: [
      ['Listen on a free port of 127.0.0.1, with a key', 'SVC_API_KEY=secret $0 --port 0'],
      [
        'Listen on every interface; file sinks may write below /var/lib/svc',
        'SVC_API_KEY=secret $0 --bind 0.0.0.0 --file-root /var/lib/svc',
      ],
      ['Start two catalog scenarios at boot', '$0 --catalog /scenarios --autostart @checkout,@search'],
      [
        'Emit the second third of their series (three servers emit the whole)',
        '$0 --catalog /scenarios --autostart @checkout --shard 1/3',
      ],
    ],
  });

  port = valueFlag('--port', '<port>', `Port (0: any free port; default ${DEFAULT_PORT})`);
  bind = valueFlag('--bind', '<address>', 'Bind address (also SVC_BIND; default 127.0.0.1)');
  apiKey = valueFlag('--api-key', '<key>', 'Require Authorization: Bearer <key> (also SVC_API_KEY)');
  fileRoot = valueFlag(
    '--file-root',
    '<dir>',
    'Let file sinks of requests write below DIR (also SVC_FILE_ROOT; default: refused)',
  );
  catalog = valueFlag(
    '--catalog',
    '<dir>',
    'Catalog directory: pack: <name> and bodies of @name resolve there (also SVC_CATALOG)',
  );
  autostart = valueFlag(
    '--autostart',
    '<@a,@b>',
    'Catalog scenarios to start at boot (also SVC_AUTOSTART; needs --catalog)',
  );
  shard = valueFlag(
    '--shard',
    '<i/n>',
    "Emit only this server's share of every scenario's series: ORDINAL/COUNT (also SVC_SHARD)",
  );
  state = valueFlag(
    '--state',
    '<dir>',
    'Keep scenarios started through the API in DIR and start them again on restart (also SVC_STATE_DIR)',
  );
  maxEntries = valueFlag(
    '--max-entries',
    '<n>',
    `Most scenario entries running at once; a POST /scenarios past it gets 429 (also SVC_MAX_ENTRIES; default ${DEFAULT_MAX_ENTRIES})`,
  );
  headersTimeout = limitFlag('headersTimeoutMs');
  requestTimeout = limitFlag('requestTimeoutMs');
  keepAliveTimeout = limitFlag('keepAliveTimeoutMs');
  maxRequestsPerSocket = limitFlag('maxRequestsPerSocket');
  maxConnections = limitFlag('maxConnections');

  async execute(): Promise<number> {
    let settings: Settings;
    let autostarts: PreparedScenario[];
    let logger: Logger;
    try {
      logger = createLogger(this.logLevel(), pino.destination(2));
      settings = await this.settings(logger);
    } catch (error) {
      // On stderr: stdout carries only the start-up line.
      this.context.stderr.write(this.cli.error(error as Error));
      return 2;
    }
    try {
      // Only a server with a catalog loads the parser at start-up; others load it with their first POST.
      autostarts = settings.catalog
        ? await (await import('./autostart.js')).prepareAutostart(
            settings.autostart,
            settings.catalog,
            settings.fileRoot,
            settings.state,
          )
        : [];
      const entries = autostarts.reduce((sum, { file }) => sum + file.scenarios.length, 0);
      if (entries > settings.maxEntries)
        throw new Error(
          `--autostart: its scenarios have ${entries} entries, more than --max-entries ${settings.maxEntries}: raise --max-entries or start fewer`,
        );
    } catch (error) {
      this.context.stderr.write(`error: ${(error as Error).message}\n`);
      return 1;
    }
    const { port, bind, apiKey, fileRoot, catalog, shard, state, maxEntries } = settings;
    const registry = new EntryRegistry({
      logger,
      shard,
      maxEntries,
      // The store logs a failure to write: nobody else is waiting for it.
      onEnded: state && ((started) => void state.forget(started.id).catch(() => undefined)),
    });
    let starting = true;
    const deps = {
      registry,
      logger,
      apiKey,
      loopbackOnly: servesLocalNamesOnly(bind, apiKey),
      fileRoot,
      catalog,
      state,
      variables: bodyVariables(process.env),
      starting: () => starting,
    };
    // Loaded before listening: see lib/server/restore.ts.
    const restore = state && (await import('./restore.js'));
    const server = limitedServer(createApp(deps).callback(), settings.limits);
    const closeServer = gentleClose(server);
    server.listen(port, bind);
    try {
      await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    } catch (error) {
      const bindName = this.bind === undefined && process.env.SVC_BIND !== undefined ? 'SVC_BIND' : '--bind';
      this.context.stderr.write(`error: ${listenProblem(error as NodeJS.ErrnoException, port, bind, bindName)}\n`);
      return 1;
    }
    const address = server.address() as AddressInfo;
    this.context.stdout.write(`${JSON.stringify({ svc_server: { port: address.port } })}\n`);
    // Before the scenarios start: a stop signal while they do stops the start (the registry drains) and flushes.
    const stopSignal = firstStopSignal();
    // After the start-up line (a stdout sink writes there too); readiness answers 503 `starting` until they run.
    const startUp = (async () => {
      if (autostarts.length) {
        const { launchScenario } = await import('./launch.js');
        for (const prepared of autostarts) launchScenario({ registry, logger }, prepared);
      }
      if (state && restore) await restore.restoreScenarios(state, deps);
      registry.makeRoom();
    })();
    let signal: NodeJS.Signals | undefined;
    try {
      signal = await Promise.race([startUp.then(() => undefined), stopSignal]);
    } catch (error) {
      logger.error({ err: error }, `--autostart: could not start a scenario: ${(error as Error).message}`);
      await this.shutDown(registry, closeServer, logger);
      return 1;
    }
    if (signal === undefined) {
      starting = false;
      logger.info(
        {
          port: address.port,
          bind,
          auth: Boolean(apiKey),
          file_root: fileRoot ?? null,
          catalog: catalog?.dir ?? null,
          shard: shard ? `${shard.index}/${shard.count}` : null,
          state: state?.dir ?? null,
          max_entries: maxEntries,
          ...settings.limits,
        },
        'svc-server listening',
      );
      if (!apiKey && !isLoopback(address.address)) {
        logger.warn(
          { bind },
          `UNPROTECTED: svc-server listens on ${bind}, reachable from other machines, without an API key: anyone who reaches it can start scenarios and send data through its sinks. Set --api-key (or SVC_API_KEY), or bind 127.0.0.1.`,
        );
      }
      signal = await stopSignal;
    }
    logger.info({ signal }, 'stopping: flushing every scenario');
    // A start cut short ends at its next scenario, which the draining registry refuses: wait for it too.
    await Promise.all([this.shutDown(registry, closeServer, logger), startUp.catch(() => undefined)]);
    return 0;
  }

  /**
   * Drains (readiness turns 503), stops every scenario and flushes it, closes the server once the requests that
   * arrived are answered (within the grace), then logs what the scenarios did not deliver. A flush that has not ended {@link STOP_GRACE_MS}
   * after the stop is given up (the other sinks give up theirs after 10 s; a stdout nobody reads has no deadline):
   * the log says so and the process exits 1 once those lines are out, as a write pending on a pipe nobody reads holds one of node's
   * threads, and the process with it, for ever. A stop signal meanwhile ends the process at once, as the signal does,
   * once the log says what the sinks still held; so does one while the requests left are answered.
   */
  private async shutDown(
    registry: EntryRegistry,
    closeServer: (withinMs: number) => Promise<void>,
    logger: Logger,
  ): Promise<void> {
    const start = Date.now();
    // Taken before the stop: the registry forgets each entry as its stop begins. A second signal names those a DELETE
    // is flushing too, whose events are lost with the process; the rest of the stop tells of the scenarios it stopped.
    const running = registry.unended();
    const unflushed = registry.unflushed();
    // Until the process ends: a signal once the flush is over, while the requests left are answered, quits too.
    const again = firstStopSignal();
    let grace: NodeJS.Timeout | undefined;
    const flushed = await Promise.race([
      registry.stopAll().then(() => true),
      new Promise<false>((resolve) => {
        grace = setTimeout(() => resolve(false), STOP_GRACE_MS);
      }),
      again,
    ]);
    clearTimeout(grace);
    if (typeof flushed === 'string') {
      logUnflushed(logger, unflushed, flushed);
      return quitBy(flushed, logger);
    }
    if (!flushed) {
      logUndelivered(logger, running);
      logger.error(
        `stopped without every flush: a destination took nothing for ${STOP_GRACE_MS / 1000} s after the stop (a stdout nobody reads?); what it held is lost`,
      );
      await logged(logger, LAST_LINES_MS);
      process.exit(1);
    }
    // Every scenario is stopped: what is left is answering the requests that arrived (within the grace left).
    const signal = await Promise.race([
      closeServer(Math.max(0, STOP_GRACE_MS - (Date.now() - start))).then(() => undefined),
      again,
    ]);
    if (signal) {
      logger.error(
        { signal },
        `${signal} during the stop, its flush over: quitting at once; the requests left get no answer`,
      );
      return quitBy(signal, logger);
    }
    logStopped(logger, running);
    logger.flush();
  }

  /** The log level of the environment ({@link logLevelOf}); a UsageError naming SVC_LOG_LEVEL when it names none. */
  private logLevel(): string {
    try {
      return logLevelOf(process.env);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }

  /** The HTTP limits: each flag, else its environment variable, else the default; a UsageError naming a wrong one. */
  private limits(): HttpLimits {
    const limits = { ...DEFAULT_HTTP_LIMITS };
    for (const { key, flag, env, min, max } of HTTP_LIMIT_FLAGS) {
      const given = (this as unknown as Record<string, string | undefined>)[fieldOf(flag)];
      const text = given ?? process.env[env];
      if (text === undefined) continue;
      const expected = `an integer from ${min} to ${max}`;
      limits[key] = flagNumber(given === undefined ? env : flag, text, { integer: true, min, max, expected });
    }
    if (limits.headersTimeoutMs > limits.requestTimeoutMs)
      throw new UsageError(
        `--headers-timeout (${limits.headersTimeoutMs}) must not exceed --request-timeout (${limits.requestTimeoutMs})`,
      );
    return limits;
  }

  /** The flags, each falling back on its environment variable; a UsageError naming the flag when one is wrong. */
  private async settings(logger: Logger): Promise<Settings> {
    const port = flagNumber('--port', this.port ?? String(DEFAULT_PORT), {
      integer: true,
      min: 0,
      max: 65535,
      expected: 'a port from 0 to 65535',
    });
    const fileRootDir = directorySetting('--file-root', this.fileRoot, 'SVC_FILE_ROOT');
    const catalogDir = directorySetting('--catalog', this.catalog, 'SVC_CATALOG');
    const autostart = this.autostart ?? process.env.SVC_AUTOSTART;
    const shard = this.shard ?? process.env.SVC_SHARD;
    const stateDir = directorySetting('--state', this.state, 'SVC_STATE_DIR');
    const maxEntriesText = this.maxEntries ?? process.env.SVC_MAX_ENTRIES;
    // A million entries is about 20 GiB of heap: past it a number is a typo, not a machine.
    const maxEntries =
      maxEntriesText === undefined
        ? DEFAULT_MAX_ENTRIES
        : flagNumber(this.maxEntries === undefined ? 'SVC_MAX_ENTRIES' : '--max-entries', maxEntriesText, {
            integer: true,
            min: 1,
            max: 1_000_000,
            expected: 'an integer from 1 to 1000000',
          });
    const limits = this.limits();
    const apiKey = this.apiKey ?? process.env.SVC_API_KEY;
    const keyProblem = apiKey === undefined ? undefined : apiKeyProblem(apiKey);
    if (keyProblem) throw new UsageError(`${this.apiKey === undefined ? 'SVC_API_KEY' : '--api-key'}: ${keyProblem}`);
    try {
      const fileRoot = fileRootDir && (await realFileRoot(fileRootDir.dir, fileRootDir.setting));
      const catalog =
        catalogDir &&
        (await (
          await import('../catalog/index.js')
        ).Catalog.open(catalogDir.dir, process.env, catalogDir.setting, await rootHolding(catalogDir.dir, fileRoot)));
      const names =
        autostart === undefined || autostart.trim() === ''
          ? []
          : (await import('./autostart.js')).autostartNames(autostart, catalog);
      return {
        port,
        bind: this.bind ?? process.env.SVC_BIND ?? '127.0.0.1',
        apiKey,
        fileRoot,
        catalog,
        autostart: names,
        ...(shard !== undefined && { shard: parseShard(shard, this.shard === undefined ? 'SVC_SHARD' : '--shard') }),
        ...(stateDir && { state: await ScenarioStore.open(stateDir.dir, logger, stateDir.setting) }),
        maxEntries,
        limits,
      };
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
}

/**
 * The last word on the scenarios a stop ended, whose statistics leave with the process: a warning for each that
 * did not deliver all it made (retries given up, a stall, a flush out of time), and the totals on `stopped`.
 */
function logStopped(logger: Logger, stopped: readonly StartedEntry[]): void {
  const { events, dropped } = logUndelivered(logger, stopped);
  logger.info(
    { scenarios: stopped.length, total_events: events, dropped_events: dropped },
    dropped
      ? `stopped: ${dropped} of the ${countOf(events, 'event')} of ${countOf(stopped.length, 'scenario')} ${dropped === 1 ? 'was' : 'were'} not delivered`
      : 'stopped',
  );
}

/** Ends the process by `signal` once the lines just logged are out (within {@link LAST_LINES_MS}). */
async function quitBy(signal: NodeJS.Signals, logger: Logger): Promise<void> {
  await logged(logger, LAST_LINES_MS);
  endBySignal(signal);
}

/**
 * Before a `signal` during the stop's flush ends the process: warns of each scenario of `stopping` still flushing with
 * the events its sink still held, then says what they add up to.
 */
function logUnflushed(logger: Logger, stopping: readonly StartedEntry[], signal: NodeJS.Signals): void {
  let held = 0;
  for (const started of stopping) if (!started.outcome) held += warnUnflushed(logger, started);
  logger.error(
    { signal, held_events: held },
    `${signal} during the stop's flush: quitting at once; ${countOf(held, 'event')} still in the sinks ${held === 1 ? 'is' : 'are'} lost`,
  );
}

/**
 * Warns of each scenario of `stopped` that did not deliver some of its events, as far as its statistics know
 * (a flush given up at the grace's end loses what it held uncounted); returns the events and drops of them all.
 */
function logUndelivered(logger: Logger, stopped: readonly StartedEntry[]): { events: number; dropped: number } {
  let events = 0;
  let dropped = 0;
  for (const started of stopped) {
    events += started.run.stats.totalEvents;
    dropped += started.run.stats.droppedEvents;
    warnUndelivered(logger, started, 'stopped');
  }
  return { events, dropped };
}

/** A directory the operator gave, and how: the flag or its environment variable, which its errors name. */
interface DirectorySetting {
  readonly dir: string;
  /** `--state`, or `SVC_STATE_DIR` when the flag was not given: the one the operator has to fix. */
  readonly setting: string;
}

/**
 * A directory flag, else its environment variable; a UsageError naming the one given when it is empty (a variable
 * set from an unset one, `SVC_STATE_DIR=$DIR`): it named no directory, and the errors of the empty path named none.
 */
function directorySetting(flag: string, given: string | undefined, env: string): DirectorySetting | undefined {
  const dir = given ?? process.env[env];
  const setting = given === undefined ? env : flag;
  if (dir === '')
    throw new UsageError(`${setting} is empty: give a directory${given === undefined ? `, or unset ${env}` : ''}`);
  return dir === undefined ? undefined : { dir, setting };
}

/** Why the server could not listen on `bind`:`port`, naming the setting to change (`bindName`: --bind or SVC_BIND). */
function listenProblem(error: NodeJS.ErrnoException, port: number, bind: string, bindName: string): string {
  const at = bind.includes(':') ? `[${bind}]:${port}` : `${bind}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `--port ${port}: ${at} is already in use (another svc-server?): stop that process, or give another port (--port 0 takes a free one)`;
    case 'EACCES':
      return `--port ${port}: this user may not listen on ${at} (ports below 1024 need privileges): give a port from 1024`;
    case 'EADDRNOTAVAIL':
      return `${bindName} ${bind}: no network interface of this machine has that address: give one of its addresses, 127.0.0.1, or 0.0.0.0 for every interface`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return `${bindName} ${bind}: cannot resolve that host name: give an IP address of this machine, 127.0.0.1, or 0.0.0.0 for every interface`;
    default:
      return `cannot listen on ${at}: ${describeError(error)}`;
  }
}

/** The command's field of a limit flag: `--headers-timeout` → `headersTimeout`. */
function fieldOf(flag: string): string {
  return flag.slice(2).replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
}

/** The option of an HTTP limit, described with its environment variable and default. */
function limitFlag(key: keyof HttpLimits) {
  const { flag, env, description } = HTTP_LIMIT_FLAGS.find((limit) => limit.key === key)!;
  // The timeouts' keys end in Ms; the other limits are counts.
  return valueFlag(
    flag,
    key.endsWith('Ms') ? '<ms>' : '<n>',
    `${description} (also ${env}; default ${DEFAULT_HTTP_LIMITS[key]})`,
  );
}

/** Entry point of `bin/svc-server`. */
export async function runServer(
  argv: readonly string[] = process.argv.slice(2),
  context: BaseContext = Cli.defaultContext,
): Promise<void> {
  const cli = program('svc-server', 'svc-server, the svc HTTP API');
  cli.register(ServeCommand);
  cli.register(Builtins.VersionCommand);
  process.exitCode = await runProgram(cli, argv, context);
}
