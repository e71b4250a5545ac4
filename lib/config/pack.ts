/**
 * Pack files: a `name`, a `description`, optional `shared_labels`, and the `metrics` an entry with
 * `pack: <name>` expands into (lib/compile); `version: 2` and `kind: composable` when given (the reference
 * tool's pack files have neither: `metrics` without `scenarios` is what makes a pack file).
 * Validated like scenario files: every problem is collected, each one `<place>: <field>: <problem>`.
 */
import * as t from 'io-ts';
import {
  Codec,
  decodeFields,
  didYouMean,
  invalidType,
  matching,
  oneOf,
  string,
  strict,
} from '../language/combinators.js';
import {
  METRIC_ID_PATTERN,
  METRIC_TYPES_OF,
  catalogMetadata,
  catalogName,
  fileFields,
  labels,
  metricName,
} from '../language/fields.js';
import { packMetricGenerator } from '../language/aliases.js';
import { basename, extname } from 'node:path';
import { formatOf, parseText, type Format } from './parse.js';
import { originOf, readTextFile } from './read.js';
import type { Variables } from './interpolate.js';
import { LOCAL_YAML_BUDGET, type YamlBudget } from '../language/limits.js';
import {
  ConfigError,
  TOP,
  describe,
  isMapping,
  issuesOf,
  problemAt,
  show,
  type Problem,
} from '../language/problems.js';
import type { LocateFile } from './csv-replay.js';
import type { PackFile, PackMetric, ScenarioFile } from './types.js';

const kind = new Codec<'composable'>(
  'kind',
  (u, c) =>
    typeof u !== 'string'
      ? invalidType(u, c, 'the string composable')
      : u === 'composable'
        ? t.success('composable')
        : t.failure(u, c, `expected composable (a pack file), got ${show(u)}`),
  'a pack file has kind composable',
  () => ({ const: 'composable', description: 'A pack is a composable file.' }),
);

const packMetric = strict(
  'pack metric',
  {
    name: metricName.describe(
      'The metric name; also the key of overrides.<name> and the suffix of the expanded id <entry id>.<name>.',
    ),
  },
  {
    id: matching(METRIC_ID_PATTERN, 'an id').describe(
      'Tells apart metrics of one name: the expanded id is <entry id>.<name>.<id>, and overrides.<name>.<id> changes this metric alone.',
    ),
    generator: packMetricGenerator,
    labels: labels.describe('Labels of this metric; they win over shared_labels.'),
    metric_type: oneOf(METRIC_TYPES_OF.metrics).describe('Default counter for a step generator, gauge otherwise.'),
    help: string.describe('The text of the # HELP line.'),
  },
);

export const packFields = {
  version: fileFields.version,
  kind,
  name: catalogName.describe('What entries write as pack: <name>; built-in packs of the same name are found first.'),
  ...catalogMetadata(),
  shared_labels: labels.describe("Labels on every metric of the pack; a metric's own labels win."),
  // Metrics are kept raw: each one is validated on its own, so every problem is reported.
  metrics: new Codec<unknown[]>(
    'metrics',
    (u, c) => {
      if (!Array.isArray(u)) return invalidType(u, c, 'a list of metrics');
      return u.length ? t.success(u) : t.failure(u, c, 'expected at least one metric, got an empty list');
    },
    undefined,
    (child) => ({
      type: 'array',
      minItems: 1,
      items: child(packMetric),
      description: 'The metrics an entry with pack: <name> expands into, one entry each.',
    }),
  ),
};

export const REQUIRED_PACK_FIELDS: readonly (keyof typeof packFields)[] = ['name', 'description', 'metrics'];

/** A parsed document that is a pack file rather than a scenario file: it has `metrics` and no `scenarios`. */
export function isPackDocument(document: unknown): boolean {
  return isMapping(document) && Object.hasOwn(document, 'metrics') && !Object.hasOwn(document, 'scenarios');
}

export interface LoadPackOptions {
  /** Names the text in messages: a file path, `built-in pack node_cpu`, ... */
  readonly origin: string;
  readonly format?: Format;
  /** What a YAML parse may cost; default: the tight budget of svc-server (lib/language/limits.ts). */
  readonly yamlBudget?: YamlBudget;
  /** The variables `${NAME}` of the text names (lib/config/interpolate.ts); none: the text is taken as written. */
  readonly variables?: Variables;
}

/** Pack text -> validated `PackFile`; throws a ConfigError listing every problem. */
export function loadPack(text: string, options: LoadPackOptions): PackFile {
  return decodePack(
    parseText(text, options.format ?? formatOf(options.origin), options.origin, options.yamlBudget, options.variables),
    options.origin,
  );
}

/** Reads and loads a pack file: the operator's own, with the local YAML budget (as {@link loadScenarioFile}). */
export async function loadPackFile(path: string, variables?: Variables): Promise<PackFile> {
  return loadPack(await readTextFile(path, 'pack file'), {
    origin: path,
    yamlBudget: LOCAL_YAML_BUDGET,
    ...(variables && { variables }),
  });
}

/**
 * A `pack:` that is a file path rather than a name, as the reference tool tells them apart: it holds a `/` or
 * starts with `.` (`./packs/redis.yaml`, `/etc/svc/redis.yaml`).
 */
export function isPackPath(reference: string): boolean {
  return reference.includes('/') || reference.startsWith('.');
}

/** The default id of an entry whose pack is a file: the file's name without extension (`redis`). */
export function packPathId(reference: string): string {
  return basename(reference, extname(reference)) || reference;
}

/** How a pack file named by path is parsed. */
export type PackReadOptions = Omit<LoadPackOptions, 'origin' | 'format'>;

/** A pack file an entry names by its path, and the path it was read from. */
export interface PackAtPath {
  readonly pack: PackFile;
  readonly path: string;
}

/**
 * The pack files `file`'s entries name by path, each read once, by the path as written: found by `locate`
 * (beside the scenario file, or below a server's file root), then loaded with `options`.
 */
export async function readPackFiles(
  file: ScenarioFile,
  locate: LocateFile,
  options: PackReadOptions = {},
): Promise<ReadonlyMap<string, PackAtPath>> {
  const references = new Set(
    file.scenarios.flatMap(({ pack }) => (pack !== undefined && isPackPath(pack) ? [pack] : [])),
  );
  const read = await Promise.all(
    [...references].map(async (reference) => {
      const source = await locate(reference, 'pack');
      const path = originOf(source);
      const pack = loadPack(await readTextFile(source, 'pack file'), { ...options, origin: path });
      return [reference, { pack, path }] as const;
    }),
  );
  return new Map(read);
}

/** A parsed document -> validated `PackFile`. */
export function decodePack(document: unknown, origin: string): PackFile {
  const result = validatePack(document);
  if (!result.pack) throw new ConfigError('invalid', origin, result.problems);
  return result.pack;
}

function validatePack(document: unknown): { pack?: PackFile; problems: Problem[] } {
  if (!isMapping(document)) {
    return {
      problems: [
        problemAt(TOP, {
          path: [],
          message: `invalid type: expected a mapping (a pack file), got ${describe(document)}`,
        }),
      ],
    };
  }
  const context = [{ key: '', type: t.unknown, actual: document }];
  const { value, errors } = decodeFields(packFields, REQUIRED_PACK_FIELDS, document, context, (key, known) =>
    key === 'scenarios' ? 'a pack file lists metrics, not scenarios' : didYouMean(key, known),
  );
  const problems = issuesOf(errors).map((issue) => problemAt(TOP, issue));

  const metrics: PackMetric[] = [];
  (value.metrics ?? []).forEach((raw, i) => {
    const named = isMapping(raw) && typeof raw.name === 'string' && raw.name !== '' ? ` (${raw.name})` : '';
    const place = { path: ['metrics', i], label: `metrics[${i}]${named}` };
    if (!isMapping(raw)) {
      problems.push(
        problemAt(place, { path: [], message: `invalid type: expected a mapping (a metric), got ${describe(raw)}` }),
      );
      return;
    }
    const decoded = packMetric.validate(raw, [{ key: '', type: t.unknown, actual: raw }]);
    if (decoded._tag === 'Left') {
      problems.push(...issuesOf(decoded.left).map((issue) => problemAt(place, issue)));
      return;
    }
    const metric = decoded.right;
    const noise = metric.generator?.noise;
    const twin = metric.id === undefined ? -1 : metrics.findIndex((m) => m.name === metric.name && m.id === metric.id);
    if (twin >= 0)
      problems.push(
        problemAt(place, {
          path: ['id'],
          message: `metrics[${twin}] of the same name has the id ${show(metric.id)} too: give each its own`,
        }),
      );
    metrics.push({
      name: metric.name,
      ...(metric.id !== undefined && { id: metric.id }),
      generator: metric.generator?.generator ?? { type: 'constant', value: 0 },
      labels: metric.labels ?? {},
      ...(noise && { jitter: noise.amount, ...(noise.seed !== undefined && { jitter_seed: noise.seed }) }),
      ...(metric.metric_type !== undefined && { metric_type: metric.metric_type }),
      ...(metric.help !== undefined && { help: metric.help }),
    });
  });

  if (problems.length) return { problems };
  return {
    pack: {
      version: 2,
      kind: 'composable',
      name: value.name!,
      description: value.description!,
      ...(value.category !== undefined && { category: value.category }),
      ...(value.tags !== undefined && { tags: value.tags }),
      shared_labels: value.shared_labels ?? {},
      metrics,
    },
    problems: [],
  };
}
