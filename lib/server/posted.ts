import type { Context } from 'koa';
import { ConfigError } from '../language/problems.js';
import { loadScenario } from '../config/load.js';
import { parseText } from '../config/parse.js';
import { planScenario } from '../compile/plan.js';
import type { ScenarioFile } from '../config/types.js';
import type { PlannedScenario } from '../compile/plan.js';
import type { Variables } from '../config/interpolate.js';
import type { LocateFile } from '../config/csv-replay.js';
import type { PackReadOptions } from '../config/pack.js';
import { LOCAL_YAML_BUDGET } from '../language/limits.js';
import { catalogRef, noCatalogError, type Catalog } from '../catalog/index.js';
import type { ServerDeps } from './deps.js';
import { HttpError } from './http-error.js';
import { bodyText, JSON_TYPES, YAML_TYPES } from './body.js';
import { catalogFiles, confineReadFile } from './file-root.js';
import type { BodyFormat } from './state.js';

/*
 * What posted bodies become: a compiled scenario file, or the JSON document of an event. The
 * routes import this module on the first request that posts one (it pulls in the parser, the
 * codecs and the kind registries), so that an idle server does not carry them.
 */

/**
 * A v2 file or a flat entry, as YAML or JSON by Content-Type, or `@name` of a scenario of the
 * server's catalog; packs resolve in the catalog too. The CSV files of csv_replay generators are
 * read below the file root for a body, beside the file for a catalog scenario. 400 when
 * unparseable, 422 when invalid.
 */
export async function parseScenario(ctx: Context, deps: ServerDeps): Promise<PostedScenario> {
  // A chunked body has no Content-Length: it is a body all the same, and its type is the problem, not its absence.
  if ((ctx.request.length || ctx.get('Transfer-Encoding')) && !ctx.is([...JSON_TYPES, ...YAML_TYPES])) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      `Content-Type ${ctx.get('Content-Type') || '(none)'}: send text/yaml or application/json`,
    );
  }
  const text = bodyText(ctx);
  if (!text)
    throw new HttpError(
      400,
      'empty_body',
      'the request has no body: send a scenario file or a flat entry as YAML or JSON',
    );
  const format = ctx.is(JSON_TYPES) ? 'json' : 'yaml';
  return { file: await compileBody(text, format, deps), text, format };
}

/** A posted scenario: its compiled file, and the body as posted (what `--state` keeps to start it again). */
export interface PostedScenario {
  readonly file: PlannedScenario;
  readonly text: string;
  readonly format: BodyFormat;
}

/**
 * The compiled file of a body's text, as {@link parseScenario} answers it (400 unparseable, 422 invalid); a
 * body kept by `--state` is compiled again by it when the server restarts.
 */
export async function compileBody(
  text: string,
  format: BodyFormat,
  { catalog, variables, fileRoot }: ServerDeps,
): Promise<PlannedScenario> {
  const { file, ...options } = refusingInvalid(() => loadBody(text, format, catalog, variables ?? {}, fileRoot));
  const { origin } = options;
  return planScenario(file, { ...options, catalog }).catch((error: unknown) => {
    // A CSV's or pack file's problems name its place in it; its path is the error's origin, kept in the detail.
    if (error instanceof ConfigError && error.origin !== origin)
      throw new HttpError(422, 'validation_failed', error.message);
    throw refusal(error);
  });
}

/** `run()`, with a ConfigError answered as 400 (unparseable) or 422 (invalid). */
function refusingInvalid<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw refusal(error);
  }
}

/** The answer to a ConfigError: 400 when unparseable, 422 when invalid; any other error as it is. */
function refusal(error: unknown): unknown {
  if (!(error instanceof ConfigError)) return error;
  const detail = error.problems.map((p) => p.message).join('; ') || error.message;
  if (error.kind === 'syntax') return new HttpError(400, 'malformed_body', detail);
  // Validation refuses the transports this build lacks (lib/config/entry.ts), with the same message as the CLI.
  const unbuilt = error.problems.every((p) => p.code === 'feature_not_built');
  return new HttpError(422, unbuilt ? 'feature_not_built' : 'validation_failed', detail);
}

/**
 * The scenario a body holds, or the catalog's that a body of `@name` names (and its file, which a file sink may not
 * write over), where its csv_replay and pack files are, and how a pack file is parsed: a body's as the body (the server's budget and variables), a catalog
 * scenario's as the catalog's files.
 */
function loadBody(
  text: string,
  format: BodyFormat,
  catalog: Catalog | undefined,
  variables: Variables,
  fileRoot: string | undefined,
): { file: ScenarioFile; origin: string; path?: string; locate: LocateFile; packOptions: PackReadOptions } {
  const reference = text.trim();
  const name = catalogRef(reference);
  if (name === undefined) {
    return {
      file: loadScenario(text, { origin: 'request body', format, variables }),
      origin: 'request body',
      locate: (file, kind) => confineReadFile(file, kind, fileRoot),
      packOptions: { variables },
    };
  }
  if (!catalog) throw noCatalogError(reference, 'SVC_CATALOG');
  const { file, path } = catalog.scenario(name);
  return {
    file,
    origin: path,
    path,
    locate: catalogFiles(catalog, path),
    packOptions: { yamlBudget: LOCAL_YAML_BUDGET },
  };
}

/** The JSON document of a request: 415 for another media type, 400 when it is not JSON (or nests too deep). */
export function jsonBody(ctx: Context): unknown {
  if (!ctx.is(JSON_TYPES))
    throw new HttpError(
      415,
      'unsupported_media_type',
      `Content-Type ${ctx.get('Content-Type') || '(none)'}: send application/json`,
    );
  try {
    return parseText(bodyText(ctx) ?? '', 'json', 'request body');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new HttpError(
      400,
      'malformed_body',
      `request body is not valid: ${error.problems.map((problem) => problem.message).join('; ')}`,
    );
  }
}
