/** What `svc catalog list` and `svc catalog show` print (loaded lazily by those commands). */
import { isPair, isScalar, parseDocument, stringify, visit } from 'yaml';
import { BUILTIN_PACK_DOCUMENTS, builtinPack, builtinPackNames } from '../compile/builtin-packs.js';
import { Catalog, catalogRef, type CatalogItem } from '../catalog/index.js';
import { ConfigError } from '../language/problems.js';
import { isSecretField, MASK, redactText } from '../redact.js';
import type { Variables } from '../config/interpolate.js';

/** One row of `svc catalog list`. */
export interface ListedItem {
  readonly name: string;
  readonly kind: CatalogItem['kind'];
  /** The file, or `built-in`. */
  readonly source: string;
  readonly description: string | null;
  readonly category: string | null;
  readonly tags: readonly string[];
  /** Entries of a scenario file, metrics of a pack; null for an invalid file. */
  readonly size: number | null;
  /** True for a catalog pack that a built-in pack of the same name hides (built-in packs are looked up first). */
  readonly shadowed: boolean;
  /** Why an invalid file cannot be used. */
  readonly problems: readonly string[];
}

export interface Output {
  readonly stdout: string;
  readonly stderr?: string;
  /** Exit 1: the item shown cannot be used. */
  readonly failed?: boolean;
}

/** The built-in packs and every file of the catalog, as a table or as JSON. */
/** What `svc catalog list` shows: JSON or a table, only items of `kind` and carrying every tag of `tags` when given. */
export interface ListOptions {
  readonly json: boolean;
  readonly variables?: Variables;
  readonly kind?: CatalogItem['kind'];
  readonly tags?: readonly string[];
}

/** The kinds of catalog items, as `--kind` takes them. */
export const ITEM_KINDS: readonly CatalogItem['kind'][] = ['runnable', 'composable', 'pack', 'invalid'];

export async function listCatalog(dir: string | undefined, options: ListOptions): Promise<Output> {
  const { json, variables, kind, tags = [] } = options;
  const catalog = dir === undefined ? undefined : await Catalog.open(dir, variables);
  const builtins = builtinPackNames();
  const items: ListedItem[] = [
    ...(catalog?.items ?? []).map((item) => ({
      name: item.name,
      kind: item.kind,
      source: item.path,
      description: item.description === undefined ? null : redactText(item.description),
      category: item.category ?? null,
      tags: item.tags ?? [],
      size: item.size ?? null,
      shadowed: item.kind === 'pack' && builtins.includes(item.name),
      problems: item.problems ?? [],
    })),
    ...builtins.map((name) => {
      const pack = builtinPack(name)!;
      const metadata = { category: pack.category ?? null, tags: pack.tags ?? [] };
      return {
        name,
        kind: 'pack' as const,
        source: 'built-in',
        description: pack.description,
        ...metadata,
        size: pack.metrics.length,
        shadowed: false,
        problems: [],
      };
    }),
  ].filter((item) => (kind === undefined || item.kind === kind) && tags.every((tag) => item.tags.includes(tag)));
  const note = catalog
    ? undefined
    : 'no --catalog given: built-in packs only (give --catalog <dir> to list a catalog)\n';
  if (json)
    return { stdout: `${JSON.stringify({ catalog: dir ?? null, items }, null, 2)}\n`, ...(note && { stderr: note }) };

  const rows = [
    ['NAME', 'KIND', 'SIZE', 'SOURCE', 'DESCRIPTION'],
    ...items.map((item) => [
      item.name,
      item.kind,
      item.size === null
        ? '-'
        : `${item.size} ${item.kind === 'pack' ? 'metric' : 'entr'}${item.kind === 'pack' ? (item.size === 1 ? '' : 's') : item.size === 1 ? 'y' : 'ies'}`,
      item.source,
      item.kind === 'invalid'
        ? (item.problems[0] ?? '')
        : `${item.description ?? ''}${item.shadowed ? ' (hidden by the built-in pack of that name)' : ''}`,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const table = rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
  return { stdout: `${table.join('\n')}\n`, ...(note && { stderr: note }) };
}

/** The definition of a catalog file or built-in pack, `@name` or `name`: a header, then the file as written. */
export async function showCatalogItem(ref: string, dir: string | undefined, variables?: Variables): Promise<Output> {
  const name = catalogRef(ref) ?? ref;
  if (Object.hasOwn(BUILTIN_PACK_DOCUMENTS, name)) {
    return {
      stdout: `# built-in pack ${name} (svc catalog list shows every pack)\n${stringify(BUILTIN_PACK_DOCUMENTS[name])}`,
    };
  }
  const catalog = dir === undefined ? undefined : await Catalog.open(dir, variables);
  const item = catalog?.find(name);
  if (!catalog || !item) {
    const where = catalog
      ? `in the catalog ${catalog.dir} (it has: ${catalog.items.map((i) => i.name).join(', ') || 'no files'}) nor among the built-in packs`
      : `among the built-in packs (${builtinPackNames().join(', ')}), and no --catalog was given`;
    throw new ConfigError('unreadable', `@${name}`, [
      { path: '', message: `nothing named "${name}" ${where}; check the name, or give --catalog <dir>` },
    ]);
  }
  const header = redactText(`# ${item.path}: ${item.kind}${item.description ? `, ${item.description}` : ''}\n`);
  const text = redactYaml(catalog.text(name)!);
  const body = text.endsWith('\n') ? text : `${text}\n`;
  if (item.kind === 'invalid') return { stdout: header + body, stderr: `${item.problems!.join('\n')}\n`, failed: true };
  return { stdout: header + body };
}

/** A catalog file as written (comments kept), with its secrets masked: passwords, secret headers, URL credentials. */
function redactYaml(text: string): string {
  const document = parseDocument(text);
  if (document.errors.length) return redactText(text);
  visit(document, {
    Pair(_, pair, path) {
      const parent = path.at(-2);
      const parentKey = isPair(parent) && isScalar(parent.key) ? String(parent.key.value) : undefined;
      if (isScalar(pair.key) && isScalar(pair.value) && isSecretField(String(pair.key.value), parentKey))
        pair.value.value = MASK;
    },
    Scalar(_, scalar) {
      if (typeof scalar.value === 'string') scalar.value = redactText(scalar.value);
    },
  });
  // Comments are kept as written: a URL or a Bearer token in one is masked as in free text.
  return redactText(document.toString());
}
