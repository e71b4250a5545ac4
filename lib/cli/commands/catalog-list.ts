import { Command, Option } from 'clipanion';
import { SvcCommand } from './svc-command.js';
import { flagChoice, listFlag, valueFlag } from '../flags.js';

/** `svc catalog list [--catalog <dir>] [--json]`: the scenario and pack files of a catalog, and the built-in packs. */
export class CatalogListCommand extends SvcCommand {
  // `svc list`: the reference tool's name of the command.
  static override paths = [['catalog', 'list'], ['list']];
  static override usage = Command.Usage({
    category: 'Catalog',
    description: 'List the scenario and pack files of a catalog, and the built-in packs',
    details:
      'Every .yaml, .yml and .json file below the directory is a catalog entry, named by its top-level `name` or else its file name. Scenario files run as `svc run @name`; pack files are used by entries as `pack: <name>` (built-in packs are looked up first). Invalid files are listed with their first problem.',
    examples: [
      ['The catalog of the examples', '$0 catalog list --catalog examples/catalog'],
      ['As JSON', '$0 catalog list --catalog examples/catalog --json'],
      [
        'Only the runnable scenarios tagged incident',
        '$0 catalog list --catalog examples/catalog --kind runnable --tag incident',
      ],
    ],
  });

  catalog = valueFlag('--catalog', '<dir>', 'Catalog directory (without it: the built-in packs only)');
  json = Option.Boolean('--json', false, {
    description:
      'Print JSON: {catalog, items: [{name, kind, source, description, category, tags, size, shadowed, problems}]}',
  });
  kind = valueFlag('--kind', '<kind>', 'Only items of this kind: runnable, composable, pack or invalid');
  tag = listFlag('--tag', '<tag>', 'Only items with this tag; repeatable, every tag given must be there');

  async execute(): Promise<number> {
    const { listCatalog, ITEM_KINDS } = await import('../catalog-output.js');
    const kind = this.kind === undefined ? undefined : flagChoice('--kind', this.kind, ITEM_KINDS);
    const output = await listCatalog(this.catalog, {
      json: this.json,
      variables: this.context.env,
      ...(kind && { kind }),
      ...(this.tag && { tags: this.tag }),
    });
    this.context.stdout.write(output.stdout);
    if (output.stderr) this.context.stderr.write(output.stderr);
    return 0;
  }
}
