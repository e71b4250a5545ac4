import { Command, Option, UsageError } from 'clipanion';
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
    const path = [this.cli.binaryName, ...this.command].join(' ');
    if (!this.cli.definitions().some((definition) => definition.path === path)) {
      throw new UsageError(
        `unknown command "${this.command.join(' ')}" (${this.cli.binaryName} help lists the commands)`,
      );
    }
    return this.cli.run([...this.command, '--help']);
  }
}
