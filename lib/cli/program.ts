import { createRequire } from 'node:module';
import { Cli, type BaseContext } from 'clipanion';

/** svc's version, from its package.json. */
export const VERSION = (createRequire(import.meta.url)('svc/package.json') as { version: string }).version;

/** A clipanion program of svc's (`svc`, `svc-server`): no colours, svc's version. */
export function program<C extends BaseContext>(binaryName: string, binaryLabel: string): Cli<C> {
  return new Cli<C>({ binaryName, binaryLabel, binaryVersion: VERSION, enableColors: false });
}

/**
 * Runs `argv` through `cli` and resolves to the exit code: 2 for a parse error (printed on stderr:
 * clipanion would use stdout, which carries event data), else the command's own — a command that
 * caught its failure sets `failure`, since clipanion answers 0 after a caught error.
 */
export async function runProgram<C extends BaseContext>(cli: Cli<C>, argv: readonly string[], context: C): Promise<number> {
  let command;
  try {
    command = cli.process([...argv], context);
  } catch (error) {
    context.stderr.write(cli.error(error, { colored: false }));
    return 2;
  }
  const code = await cli.run(command, context);
  return (command as { failure?: number }).failure ?? code;
}
