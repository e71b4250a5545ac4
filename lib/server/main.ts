import type { AddressInfo } from 'node:net';
import { Builtins, Cli, Command, Option, UsageError, type BaseContext } from 'clipanion';
import { pino } from 'pino';
import { createLogger } from './logger.js';
import { createApp } from './app.js';
import { logLevelOf } from './log-level.js';
import { ScenarioRegistry } from './registry.js';
import { program, runProgram } from '../cli/program.js';

/** `svc-server [--port N] [--bind ADDRESS] [--api-key KEY]`. */
class ServeCommand extends Command {
  static override usage = Command.Usage({
    description: 'Serve the svc HTTP API: start, inspect, scrape and stop scenarios; emit single events',
    details: 'Prints {"svc_server":{"port":N}} on stdout once listening; logs (pino JSON) go to stderr. SIGTERM/SIGINT stop every scenario, flush every sink, then exit 0.',
    examples: [['Listen on a free port, with a key', 'SVC_API_KEY=secret $0 --port 0']],
  });

  port = Option.String('--port', '8080', { description: 'Port (0: any free port)' });
  bind = Option.String('--bind', '0.0.0.0', { description: 'Bind address' });
  apiKey = Option.String('--api-key', { description: 'Require Authorization: Bearer <key> (also SVC_API_KEY)' });

  async execute(): Promise<number> {
    const port = Number(this.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      // On stderr: stdout carries only the start-up line.
      this.context.stderr.write(this.cli.error(new UsageError(`--port: expected a port from 0 to 65535, got "${this.port}"`)));
      return 2;
    }
    const logger = createLogger(logLevelOf(process.env), pino.destination(2));
    const registry = new ScenarioRegistry();
    const app = createApp({ registry, logger, apiKey: this.apiKey ?? process.env.SVC_API_KEY });
    const server = app.listen(port, this.bind);
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    const bound = (server.address() as AddressInfo).port;
    this.context.stdout.write(`${JSON.stringify({ svc_server: { port: bound } })}\n`);
    logger.info({ port: bound, bind: this.bind, auth: Boolean(this.apiKey ?? process.env.SVC_API_KEY) }, 'svc-server listening');

    const signal = await new Promise<string>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
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
