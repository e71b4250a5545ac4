import { Command } from 'clipanion';
import { outputFileOf, valueFlag } from '../flags.js';
import { SvcCommand } from './svc-command.js';

/** `svc schema [-o FILE]`: the JSON Schema of scenario and pack files, for editors and other checkers. */
export class SchemaCommand extends SvcCommand {
  static override paths = [['schema']];
  static override usage = Command.Usage({
    description: 'Print the JSON Schema (draft 2020-12) of scenario and pack files',
    details:
      'The schema is written by the codecs that validate files, so it follows svc exactly; the package ships it as schema/scenario.schema.json. ' +
      "Editors using yaml-language-server (VS Code's YAML extension, Neovim, Helix, ...) check and complete a file whose first line is `# yaml-language-server: $schema=<path or URL of the schema>`. " +
      'Rules across fields and entries stay with `svc run --dry-run`.',
    examples: [
      ['Print it', '$0 schema'],
      ['Write it beside your scenarios', '$0 schema -o scenario.schema.json'],
    ],
  });

  output = valueFlag('-o,--output', '<file>', 'Write the schema to this file instead of stdout');

  async execute(): Promise<number> {
    const [{ scenarioSchema }, { writeOutputFile }] = await Promise.all([
      import('../../config/schema.js'),
      import('../output-file.js'),
    ]);
    const text = `${JSON.stringify(scenarioSchema(), null, 2)}\n`;
    const file = outputFileOf(this.output);
    if (file !== undefined) await writeOutputFile('-o', file, text);
    else await this.print(text);
    return 0;
  }
}
