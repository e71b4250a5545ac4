import { Builtins } from 'clipanion';

/** `svc version`, `svc -V`, `svc --version`, and a lone `svc -v` (mapped in main). */
export class VersionCommand extends Builtins.VersionCommand {
  static override paths = [['version'], ['-V'], ['--version']];
}
