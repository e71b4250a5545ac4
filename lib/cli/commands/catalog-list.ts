import { Command, Option } from 'clipanion';
import type { SvcContext } from '../context.js';
import { valueFlag } from '../flags.js';

/** `svc catalog list [--catalog <dir>] [--json]`: the scenario and pack files of a catalog, and the built-in packs. */
export class CatalogListCommand extends Command<SvcContext> {
  static override paths = [['catalog', 'list']];
  static override usage = Command.Usage({
    category: 'Catalog',
    description: 'List the scenario and pack files of a catalog, and the built-in packs',
    details:
      'Every .yaml, .yml and .json file below the directory is a catalog entry, named by its top-level `name` or else its file name. Scenario files run as `svc run @name`; pack files are used by entries as `pack: <name>` (built-in packs are looked up first). Invalid files are listed with their first problem.',
    examples: [
      ['The catalog of the examples', '$0 catalog list --catalog examples/catalog'],
      ['As JSON', '$0 catalog list --catalog examples/catalog --json'],
    ],
  });

  catalog = valueFlag('--catalog', '<dir>', 'Catalog directory (without it: the built-in packs only)');
  json = Option.Boolean('--json', false, { description: 'Print JSON: {catalog, items: [{name, kind, source, description, size, shadowed, problems}]}' });

  async execute(): Promise<number> {
    try {
      const { listCatalog } = await import('../catalog-output.js');
      const output = await listCatalog(this.catalog, this.json, this.context.env);
      this.context.stdout.write(output.stdout);
      if (output.stderr) this.context.stderr.write(output.stderr);
      return 0;
    } catch (error) {
      this.context.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
}
