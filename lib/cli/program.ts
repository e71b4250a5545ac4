import { Cli, type BaseContext, type CommandClass } from 'clipanion';
import { withValues } from './flags.js';
import { coloursAllowed } from './terminal.js';
import { bindNegativeNumbers, explainRefusal, type CommandShape } from './usage-errors.js';

import { VERSION } from '../version.js';

/**
 * A clipanion program of svc's (`svc`, `svc-server`): svc's version; colours only where
 * {@link coloursAllowed} says so (never without `context`); help that writes what each flag takes
 * (`--rate <n>`, where clipanion writes `--rate #0`); usage errors that name the mistake.
 */
export function program<C extends BaseContext>(
  binaryName: string,
  binaryLabel: string,
  context?: BaseContext,
): SvcCli<C> {
  return new SvcCli<C>({
    binaryName,
    binaryLabel,
    binaryVersion: VERSION,
    enableColors: context !== undefined && coloursAllowed(context),
  });
}

export class SvcCli<C extends BaseContext> extends Cli<C> {
  /**
   * Why `argv` was refused, naming the mistake, then the usage of the command meant; clipanion's own message
   * when the mistake is not found.
   */
  refusal(argv: readonly string[], error: unknown): string {
    const refusal = explainRefusal(this.shapes(), argv, this.binaryName);
    if (!refusal) return this.error(error);
    return `${this.format().error('Usage Error')}: ${refusal.message}\n${refusal.command ? `\n${this.usage(refusal.command)}` : ''}`;
  }

  /** `argv` as clipanion is to read it: `--rate -3` is `--rate=-3` ({@link bindNegativeNumbers}). */
  arguments(argv: readonly string[]): readonly string[] {
    return bindNegativeNumbers(this.shapes(), argv);
  }

  /** What each command accepts, one shape per path: a command may have several (`svc catalog list` and `svc list`). */
  private shapes(): CommandShape<CommandClass<C>>[] {
    return [...this.registrations].flatMap(([command, { builder }]) =>
      pathsOf(builder).map((path) => ({
        command,
        path,
        options: builder.options,
        positionals: [
          ...builder.arity.leading.map((name) => `<${name}>`),
          ...(Array.isArray(builder.arity.extra) ? builder.arity.extra.map((name) => `[${name}]`) : ['...']),
          ...builder.arity.trailing.map((name) => `<${name}>`),
        ],
      })),
    );
  }

  /**
   * Clipanion's definitions, one for each path a command answers to (clipanion's hold only the first of each
   * command's paths): `svc help lst` suggests `list`, a path `svc catalog list` also has.
   */
  override definitions(opts?: { colored?: boolean }): ReturnType<Cli<C>['definitions']> {
    const documented = [...this.registrations].filter(([command]) => command.usage !== undefined);
    return super.definitions(opts).flatMap((definition, i) =>
      pathsOf(documented[i]![1].builder).map((path) => ({
        ...definition,
        path: [this.binaryName, ...path].join(' '),
      })),
    );
  }

  protected override getUsageByIndex(n: number, opts?: { detailed?: boolean; inlineOptions?: boolean }) {
    const { usage, options } = super.getUsageByIndex(n, opts);
    return {
      usage: withValues(usage),
      options: options.map((option) => ({ ...option, definition: withValues(option.definition) })),
    };
  }
}

/**
 * Runs `argv` through `cli` and resolves to the exit code: 2 for a usage error, printed on stderr
 * (clipanion would use stdout, which carries event data) with the usage of the command meant, else
 * the command's own — a command that caught its failure sets `failure`, since clipanion answers 0
 * after a caught error.
 */
export async function runProgram<C extends BaseContext>(
  cli: SvcCli<C>,
  argv: readonly string[],
  context: C,
): Promise<number> {
  const args = cli.arguments(argv);
  let command: ReturnType<typeof cli.process>;
  try {
    command = cli.process([...args], context);
  } catch (error) {
    context.stderr.write(cli.refusal(args, error));
    return 2;
  }
  const code = await cli.run(command, context);
  return (command as { failure?: number }).failure ?? code;
}

/** The paths a command answers to; a command without any is the default one, reached by no words. */
function pathsOf(builder: { readonly paths: readonly (readonly string[])[] }): readonly (readonly string[])[] {
  return builder.paths.length ? builder.paths : [[]];
}
