import { Command, Option, UsageError } from 'clipanion';
import { unknownCommandMessage } from '../usage-errors.js';
import { SvcCommand } from './svc-command.js';

/** `svc help [command…]` (also `svc -h`, `svc --help`): the commands, or the help of one. */
export class HelpCommand extends SvcCommand {
  static override paths = [['help'], ['-h'], ['--help']];
  static override usage = Command.Usage({
    description: 'List the commands, or show the help of one',
    examples: [['The flags of svc run', '$0 help run']],
  });

  command = Option.Rest({ name: 'command' });

  async execute(): Promise<number> {
    if (this.command.length === 0) {
      this.context.stdout.write(this.cli.usage());
      return 0;
    }
    const help = [...this.command, '--help'];
    // Every path a command answers to is asked for as typed, and suggested from (SvcCli.definitions has them all).
    if (!answers(() => this.cli.process(help))) {
      const { binaryName } = this.cli;
      const commands = this.cli
        .definitions()
        .map(({ path }) => path.slice(binaryName.length + 1))
        .filter((path) => path !== '' && !path.startsWith('-'));
      throw new UsageError(unknownCommandMessage(commands, this.command, `${binaryName} help`));
    }
    return this.cli.run(help);
  }
}

/** Whether clipanion resolves the command line to a command (it throws when no command takes it). */
function answers(resolve: () => unknown): boolean {
  try {
    resolve();
    return true;
  } catch {
    return false;
  }
}
