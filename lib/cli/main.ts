import { createRequire } from 'node:module';
import { Builtins, Cli } from 'clipanion';
import type { SvcContext } from './context.js';
import { LogsCommand } from './commands/logs.js';
import { MetricsCommand } from './commands/metrics.js';
import { RunCommand } from './commands/run.js';
import { ScenarioCommand } from './commands/scenario-command.js';

const { version } = createRequire(import.meta.url)('svc/package.json') as { version: string };

/** Runs the `svc` command line on `argv` and resolves to its exit code (0 ok, 1 runtime or validation error, 2 usage error). */
export async function main(argv: readonly string[], context: SvcContext): Promise<number> {
  const cli = new Cli<SvcContext>({ binaryName: 'svc', binaryLabel: 'svc, synthetic telemetry generator', binaryVersion: version, enableColors: false });
  cli.register(RunCommand);
  cli.register(MetricsCommand);
  cli.register(LogsCommand);
  cli.register(Builtins.HelpCommand);
  cli.register(Builtins.VersionCommand);

  let command;
  try {
    command = cli.process([...argv], context);
  } catch (error) {
    // Clipanion would print parse errors on stdout; stdout carries event data, so use stderr.
    context.stderr.write(cli.error(error, { colored: false }));
    return 2;
  }
  const code = await cli.run(command, context);
  return command instanceof ScenarioCommand && command.failure !== undefined ? command.failure : code;
}

/** Entry point of `bin/svc`. */
export async function runCli(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2), Cli.defaultContext);
}
