import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { temporaryDirectory } from '../directories.js';
import { buildGoProgram } from '../go-build.js';

/**
 * Renders chart/ with render.go (Go text/template and sprig, as Helm renders), built once per test
 * process: `go build` in GOPATH mode against Debian's sprig and yaml.v3 packages (.ci/run installs them).
 */

const run = promisify(execFile);
const SOURCE = new URL('./render.go', import.meta.url).pathname;
const CHART = new URL('../../../chart', import.meta.url).pathname;

/** A rendered Kubernetes object. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
  };
  readonly spec?: any;
  readonly data?: Record<string, string>;
  readonly [field: string]: unknown;
}

export interface Rendered {
  /** Template path (`templates/deployment.yaml`) -> rendered text. */
  readonly manifests: Readonly<Record<string, string>>;
  /** Every non-empty YAML document of every manifest, parsed. */
  readonly objects: readonly Manifest[];
  readonly notes: string;
  /** values.yaml with the overrides merged, as the templates saw them. */
  readonly values: Record<string, any>;
  /** The one object of `kind` (and `name`, when given); throws when there is not exactly one. */
  one(kind: string, name?: string): Manifest;
  kinds(): string[];
}

export interface RenderOptions {
  readonly release?: string;
  readonly namespace?: string;
}

let built: Promise<string> | undefined;

/** Builds the renderer (once); rejects, saying what to install, when Go or the packages are missing. */
export function buildRenderer(): Promise<string> {
  built ??= buildGoProgram(SOURCE, 'golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev', 'chart renderer');
  return built;
}

/** Renders the chart with `values` merged over values.yaml; rejects with the renderer's message (a `fail`, `required` or template error). */
export async function renderChart(
  values: object = {},
  { release = 'demo', namespace = 'telemetry' }: RenderOptions = {},
): Promise<Rendered> {
  const binary = await buildRenderer();
  const valuesFile = join(temporaryDirectory('svc-chart-values-'), 'values.yaml');
  // JSON is YAML: the override reaches the renderer exactly as written here.
  writeFileSync(valuesFile, JSON.stringify(values));
  let stdout: string;
  try {
    ({ stdout } = await run(
      binary,
      ['-chart', CHART, '-values', valuesFile, '-name', release, '-namespace', namespace],
      { maxBuffer: 16 << 20 },
    ));
  } catch (error) {
    throw new Error(((error as { stderr?: string }).stderr ?? String(error)).trim());
  }
  const output = JSON.parse(stdout) as {
    manifests: Record<string, string>;
    notes: string;
    values: Record<string, any>;
  };
  const objects = Object.entries(output.manifests).flatMap(([path, text]) => parseManifest(path, text));
  const ofKind = (kind: string, name?: string) =>
    objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  return {
    ...output,
    objects,
    one(kind, name) {
      const found = ofKind(kind, name);
      if (found.length !== 1)
        throw new Error(`expected one ${kind}${name ? ` named ${name}` : ''}, rendered ${found.length}`);
      return found[0]!;
    },
    kinds: () => objects.map((o) => o.kind).sort(),
  };
}

/** The documents of one rendered template, as Helm splits them (empty ones dropped); a YAML error fails. */
function parseManifest(path: string, text: string): Manifest[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length) throw new Error(`${path}: not valid YAML: ${document.errors[0]!.message}\n${text}`);
    const object = document.toJS() as Manifest | null;
    if (object === null) return [];
    if (
      typeof object.kind !== 'string' ||
      typeof object.apiVersion !== 'string' ||
      typeof object.metadata?.name !== 'string'
    ) {
      throw new Error(`${path}: a document without kind, apiVersion or metadata.name:\n${text}`);
    }
    return [object];
  });
}
