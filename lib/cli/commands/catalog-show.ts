import { Command, Option } from 'clipanion';
import { SvcCommand } from './svc-command.js';
import { valueFlag } from '../flags.js';

/** `svc catalog show @name [--catalog <dir>]`: a catalog file or built-in pack, as written. */
export class CatalogShowCommand extends SvcCommand {
  // `svc show`: the reference tool's name of the command.
  static override paths = [['catalog', 'show'], ['show']];
  static override usage = Command.Usage({
    category: 'Catalog',
    description: 'Print a catalog scenario or pack file, or a built-in pack, as written',
    details:
      'The name is looked up among the built-in packs first, then in the catalog. An invalid file is printed with its problems on stderr, and the exit code is 1.',
    examples: [
      ['A scenario of the examples catalog', '$0 catalog show @checkout-incident --catalog examples/catalog'],
      ['A built-in pack', '$0 catalog show @node_cpu'],
    ],
  });

  name = Option.String({ name: '@name' });
  catalog = valueFlag('--catalog', '<dir>', 'Catalog directory');

  async execute(): Promise<number> {
    const { showCatalogItem } = await import('../catalog-output.js');
    const output = await showCatalogItem(this.name, this.catalog, this.context.env);
    this.context.stdout.write(output.stdout);
    if (output.stderr) this.context.stderr.write(output.stderr);
    return output.failed ? 1 : 0;
  }
}
