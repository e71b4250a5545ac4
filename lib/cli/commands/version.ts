import { Builtins } from 'clipanion';

/** `svc version`, `svc -V`, and clipanion's `-v`, `--version`. */
export class VersionCommand extends Builtins.VersionCommand {
  static override paths = [['version'], ['-V'], ['-v'], ['--version']];
}
