import type { AddressInfo } from 'node:net';
import { Builtins, Cli, Command, Option, UsageError, type BaseContext } from 'clipanion';
import { pino } from 'pino';
import { firstValueFrom } from 'rxjs';
import { stopSignals } from '../runtime/stop-signals.js';
import { createLogger } from './logger.js';
import { createApp } from './app.js';
import { realFileRoot } from './file-root.js';
import { isLoopback } from './loopback.js';
import { logLevelOf } from './log-level.js';
import { EntryRegistry } from './registry.js';
import { flagNumber } from '../cli/flags.js';
import { program, runProgram } from '../cli/program.js';

/** `svc-server [--port N] [--bind ADDRESS] [--api-key KEY] [--file-root DIR]`. */
class ServeCommand extends Command {
  static override usage = Command.Usage({
    description: 'Serve the svc HTTP API: start, inspect, scrape and stop scenarios; emit single events',
    details: 'Prints {"svc_server":{"port":N}} on stdout once listening; logs (pino JSON) go to stderr. SIGTERM/SIGINT stop every scenario, flush every sink, then exit 0.',
    examples: [
      ['Listen on a free port of 127.0.0.1, with a key', 'SVC_API_KEY=secret $0 --port 0'],
      ['Listen on every interface; file sinks may write below /var/lib/svc', 'SVC_API_KEY=secret $0 --bind 0.0.0.0 --file-root /var/lib/svc'],
    ],
  });

  port = Option.String('--port', '8080', { description: 'Port (0: any free port)' });
  bind = Option.String('--bind', { description: 'Bind address (also SVC_BIND; default 127.0.0.1)' });
  apiKey = Option.String('--api-key', { description: 'Require Authorization: Bearer <key> (also SVC_API_KEY)' });
  fileRoot = Option.String('--file-root', { description: 'Let file sinks of requests write below DIR (also SVC_FILE_ROOT; default: refused)' });

  async execute(): Promise<number> {
    let port: number;
    try {
      port = flagNumber('--port', this.port, { integer: true, min: 0, max: 65535, expected: 'a port from 0 to 65535' });
    } catch (error) {
      // On stderr: stdout carries only the start-up line.
      this.context.stderr.write(this.cli.error(error as Error));
      return 2;
    }
    const bind = this.bind ?? process.env.SVC_BIND ?? '127.0.0.1';
    const apiKey = this.apiKey ?? process.env.SVC_API_KEY;
    const fileRootDir = this.fileRoot ?? process.env.SVC_FILE_ROOT;
    let fileRoot: string | undefined;
    try {
      fileRoot = fileRootDir === undefined ? undefined : await realFileRoot(fileRootDir);
    } catch (error) {
      this.context.stderr.write(this.cli.error(new UsageError((error as Error).message)));
      return 2;
    }
    const logger = createLogger(logLevelOf(process.env), pino.destination(2));
    const registry = new EntryRegistry({ logger });
    const app = createApp({ registry, logger, apiKey, fileRoot });
    const server = app.listen(port, bind);
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    const address = server.address() as AddressInfo;
    this.context.stdout.write(`${JSON.stringify({ svc_server: { port: address.port } })}\n`);
    logger.info({ port: address.port, bind, auth: Boolean(apiKey), file_root: fileRoot ?? null }, 'svc-server listening');
    if (!apiKey && !isLoopback(address.address)) {
      logger.warn(
        { bind },
        `UNPROTECTED: svc-server listens on ${bind}, reachable from other machines, without an API key: anyone who reaches it can start scenarios and send data through its sinks. Set --api-key (or SVC_API_KEY), or bind 127.0.0.1.`,
      );
    }

    const signal = await firstValueFrom(stopSignals());
    logger.info({ signal }, 'stopping: flushing every scenario');
    await registry.stopAll();
    await new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    logger.info('stopped');
    logger.flush();
    return 0;
  }
}

/** Entry point of `bin/svc-server`. */
export async function runServer(argv: readonly string[] = process.argv.slice(2), context: BaseContext = Cli.defaultContext): Promise<void> {
  const cli = program('svc-server', 'svc-server, the svc HTTP API');
  cli.register(ServeCommand);
  cli.register(Builtins.VersionCommand);
  process.exitCode = await runProgram(cli, argv, context);
}
