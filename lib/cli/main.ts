import { Cli } from 'clipanion';
import type { SvcContext } from './context.js';
import { CatalogListCommand } from './commands/catalog-list.js';
import { CatalogShowCommand } from './commands/catalog-show.js';
import { HelpCommand } from './commands/help.js';
import { LogsCommand } from './commands/logs.js';
import { MetricsCommand } from './commands/metrics.js';
import { NewCommand } from './commands/new.js';
import { PlotCommand } from './commands/plot.js';
import { RunCommand } from './commands/run.js';
import { SchemaCommand } from './commands/schema.js';
import { TestCommand } from './commands/test.js';
import { VersionCommand } from './commands/version.js';
import { program, runProgram } from './program.js';
import { colourDepth } from './terminal.js';

/**
 * Runs the `svc` command line on `argv` and resolves to its exit code (0 ok, 1 runtime or validation error, 2
 * usage error).
 */
export async function main(argv: readonly string[], context: SvcContext): Promise<number> {
  const cli = program<SvcContext>('svc', 'svc, synthetic telemetry generator', context);
  cli.register(RunCommand);
  cli.register(TestCommand);
  cli.register(PlotCommand);
  cli.register(MetricsCommand);
  cli.register(LogsCommand);
  cli.register(NewCommand);
  cli.register(CatalogListCommand);
  cli.register(CatalogShowCommand);
  cli.register(SchemaCommand);
  cli.register(HelpCommand);
  cli.register(VersionCommand);

  // A lone `svc -v` is the version; before a command it stays the short `--verbose` of the commands that declare
  // it (clipanion reads options before the path), and elsewhere it is an unknown flag like any other.
  const args = argv.length === 1 && argv[0] === '-v' ? ['--version'] : argv;
  return runProgram(cli, args, context);
}

/** Entry point of `bin/svc`. */
export async function runCli(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2), { ...Cli.defaultContext, colorDepth: colourDepth(process.env) });
}
