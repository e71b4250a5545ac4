import { closest } from '../language/problems.js';
import { valueNameOf } from './flags.js';

/** What a command accepts, from its clipanion definition. */
export interface CommandShape<C = unknown> {
  readonly command: C;
  readonly path: readonly string[];
  readonly options: readonly { readonly names: readonly string[]; readonly arity: number }[];
  /** Positional arguments as usage writes them: `<required>`, `[optional]`, or `...` for any number. */
  readonly positionals: readonly string[];
}

/** Why a command line was refused, in words, and the command it was meant for (whose usage follows). */
export interface Refusal<C = unknown> {
  readonly message: string;
  readonly command?: C;
}

/**
 * Explains a command line that clipanion refused. Clipanion's own error lists every candidate
 * usage without naming the mistake once the candidates disagree (a flag after the file: "Command
 * not found; did you mean one of: 0. svc run … 1. svc run …"), so the mistake is found again here,
 * from the commands' definitions: an unknown command or flag (with the closest valid one), a flag
 * without its value, a value for a flag that takes none, an argument too many or missing. Undefined
 * when none of these is found.
 */
export function explainRefusal<C>(
  commands: readonly CommandShape<C>[],
  argv: readonly string[],
  binaryName: string,
): Refusal<C> | undefined {
  const meant = commandMeant(commands, argv);
  if (!meant)
    return unknownCommand(
      byWords(commands).filter(({ path }) => path.length > 0),
      argv,
      binaryName,
    );
  const { shape, args, words } = meant;
  const message = explainArguments(shape, args, words, binaryName);
  return message === undefined ? undefined : { message, command: shape.command };
}

/**
 * `argv` with each negative number that follows a flag taking a value bound to it (`--rate -3` is
 * `--rate=-3`), so that the flag's own check names the mistake (`--rate: expected a number greater than
 * 0, got -3`) at the first try: clipanion takes any word beginning with `-` for a flag, and refuses
 * `--rate -3` as a flag without its value. No flag of svc's is a dash and a digit, so such a word is
 * never a flag; after `--` every word is an argument and is left as it is.
 */
export function bindNegativeNumbers(commands: readonly CommandShape[], argv: readonly string[]): readonly string[] {
  const shape = commandMeant(commands, argv)?.shape;
  if (!shape) return argv;
  const bound: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return [...bound, ...argv.slice(i)];
    const value = argv[i + 1];
    const takesValue = shape.options.some(({ names, arity }) => arity > 0 && names.includes(arg));
    if (takesValue && value !== undefined && isNegativeNumber(value)) {
      bound.push(`${arg}=${value}`);
      i++;
    } else bound.push(arg);
  }
  return bound;
}

/**
 * The command `argv` is meant for (the one whose words it holds, the longest), `argv` without
 * those words, and where in that they stood (`args[words]` followed them); undefined when no
 * command's words are there.
 */
function commandMeant<C>(
  commands: readonly CommandShape<C>[],
  argv: readonly string[],
): { shape: CommandShape<C>; args: readonly string[]; words: number } | undefined {
  const candidates = byWords(commands);
  // Flags may stand before the command's words (`svc --dry-run run f.yaml`, as the reference tool
  // writes its global flags), which clipanion takes: they are the command's flags like the others.
  const lead = Math.max(
    0,
    argv.findIndex((arg) => !isFlag(arg)),
  );
  const shape = candidates
    .filter(({ path }) => path.every((word, i) => argv[lead + i] === word))
    .sort((a, b) => b.path.length - a.path.length)[0];
  return shape && { shape, args: [...argv.slice(0, lead), ...argv.slice(lead + shape.path.length)], words: lead };
}

/** Commands reached by words (`run`, `catalog list`), or the default one (no words); not `-h` and the like. */
function byWords<C>(commands: readonly CommandShape<C>[]): CommandShape<C>[] {
  return commands.filter(({ path }) => !path[0]?.startsWith('-'));
}

function unknownCommand<C>(
  commands: readonly CommandShape<C>[],
  argv: readonly string[],
  binaryName: string,
): Refusal<C> | undefined {
  const first = argv[0];
  if (first === undefined) return undefined;
  // Where a command's name goes: a number is no flag, and `svc -3` has no flag before it that could take it.
  if (isNegativeNumber(first)) return { message: commandNameExpected(first, binaryName, binaryName) };
  if (isFlag(first))
    return { message: `unknown flag ${first} (${binaryName} help lists the commands and their flags)` };
  // The words before the first flag: a command's words stand together (a flag's value is not a subcommand).
  const flag = argv.findIndex(isFlag);
  return {
    message: unknownCommandMessage(
      commands.map(({ path }) => path.join(' ')),
      flag < 0 ? argv : argv.slice(0, flag),
      binaryName,
    ),
  };
}

/**
 * `unknown command "<words>"`, with the closest of `commands` (`run`, `catalog list`) to the words given, each
 * compared with as many words as it has; `prefix` goes before the suggestion (`svc`, `svc help`). Words that
 * only begin commands (`catalog`, which `svc help` lists as `catalog list` and `catalog show`) name those, and the
 * word after them, if any, as an unknown subcommand.
 */
export function unknownCommandMessage(commands: readonly string[], words: readonly string[], prefix: string): string {
  const tried = (length: number) => words.slice(0, length).join(' ');
  const suggestion = closest((candidate) => tried(candidate.split(' ').length), commands);
  const binaryName = prefix.split(' ')[0];
  if (suggestion)
    return `unknown command "${tried(suggestion.split(' ').length)}"; did you mean ${prefix} ${suggestion}?`;
  const group = subcommandsOf(commands, words);
  if (group) {
    const members = group.members.map((command) => `${prefix} ${command}`).join(' or ');
    const next = words[group.name.split(' ').length];
    return next === undefined
      ? `${binaryName} ${group.name} needs a subcommand: ${members}`
      : `unknown subcommand "${next}" of ${binaryName} ${group.name}: ${members}`;
  }
  return `unknown command "${words[0]}" (${binaryName} help lists the commands)`;
}

/** The longest run of leading `words` that begins commands without being one (`catalog`), and those commands. */
function subcommandsOf(
  commands: readonly string[],
  words: readonly string[],
): { name: string; members: readonly string[] } | undefined {
  for (let length = words.length; length > 0; length--) {
    const name = words.slice(0, length).join(' ');
    const members = commands.filter((command) => command.startsWith(`${name} `));
    if (members.length > 0) return { name, members };
  }
  return undefined;
}

function explainArguments<C>(
  shape: CommandShape<C>,
  args: readonly string[],
  words: number,
  binaryName: string,
): string | undefined {
  const command = [binaryName, ...shape.path].join(' ');
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!isFlag(arg)) {
      positionals.push(arg);
      continue;
    }
    // Not a flag (none of svc's is a dash and a digit) but a value that no flag before it took:
    // clipanion takes it for a flag, and the closest flag to `-3` is `-o`, which is no help.
    // The word before the first after the command's words is a command word (`svc --dry-run run -3`).
    if (isNegativeNumber(arg))
      return strayNumber(shape, arg, i === words ? undefined : args[i - 1], command, binaryName);
    const bound = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = bound > 0 ? arg.slice(0, bound) : arg;
    const option = shape.options.find(({ names }) => names.includes(name));
    if (!option) {
      if (isBatch(shape, arg)) continue;
      const suggestion = closest(
        name,
        shape.options.flatMap(({ names }) => names),
      );
      return `unknown flag ${name} for ${command}${suggestion ? `; did you mean ${suggestion}?` : ` (${command} --help lists its flags)`}`;
    }
    if (option.arity === 0) {
      if (bound > 0) return `${name} takes no value (got "${arg.slice(bound + 1)}")`;
      continue;
    }
    if (bound > 0) continue;
    const value = args[i + 1];
    if (value === undefined || isFlag(value)) return `${name} needs a value: ${name} ${valueNameOf(name)}`;
    i++;
  }
  const required = shape.positionals.filter((p) => p.startsWith('<'));
  const limit = argumentLimit(shape);
  if (positionals.length > limit)
    return `unexpected argument "${positionals[limit]}": ${command} takes ${takes(shape)}`;
  if (positionals.length < required.length)
    return `missing ${required[positionals.length]}: ${command} ${shape.positionals.join(' ')}`;
  return undefined;
}

/** How many arguments `shape` takes: Infinity for any number (`...`). */
function argumentLimit(shape: CommandShape): number {
  return shape.positionals.includes('...') ? Infinity : shape.positionals.length;
}

/** The arguments `shape` takes, in words: `no argument`, `one [scenario-file]`. */
function takes(shape: CommandShape): string {
  const limit = argumentLimit(shape);
  if (limit === 0) return 'no argument';
  return `${limit === 1 ? 'one' : limit} ${shape.positionals.join(' ')}`;
}

/**
 * `-3` where no flag before it takes a value ({@link bindNegativeNumbers} binds it to one that does): the flag taking
 * none before it, else what the command takes there. `svc help`'s arguments are the words of a command.
 */
function strayNumber(
  shape: CommandShape,
  arg: string,
  before: string | undefined,
  command: string,
  binaryName: string,
): string {
  if (shape.path.join(' ') === 'help') return commandNameExpected(arg, command, binaryName);
  const unexpected = `unexpected argument "${arg}"`;
  if (shape.options.some(({ names, arity }) => arity === 0 && before !== undefined && names.includes(before)))
    return `${unexpected}: ${before} before it takes no value`;
  if (shape.options.some(({ arity }) => arity > 0))
    return `${unexpected}: ${command} takes a negative number only as the value of a flag before it`;
  return `${unexpected}: ${command} takes ${takes(shape)}`;
}

/** `arg` where `command` (`svc`, `svc help`) takes the name of a command. */
function commandNameExpected(arg: string, command: string, binaryName: string): string {
  return `unexpected argument "${arg}": ${command} takes a command name (${binaryName} help lists the commands)`;
}

/** `-3`, `-0.5`, `-.5`, `-1e3`; also a relative time (`-1h30m`), which a flag's own check reads. */
function isNegativeNumber(arg: string): boolean {
  return /^-\.?\d/.test(arg);
}

/** `-` alone is an argument (standard input), not a flag. */
function isFlag(arg: string): boolean {
  return arg.startsWith('-') && arg !== '-';
}

/** `-ab`: short boolean flags written together, as clipanion accepts them. */
function isBatch(shape: CommandShape, arg: string): boolean {
  return (
    /^-[a-zA-Z]{2,}$/.test(arg) &&
    [...arg.slice(1)].every((c) => shape.options.some(({ names, arity }) => arity === 0 && names.includes(`-${c}`)))
  );
}
