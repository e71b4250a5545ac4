import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import type { Manifest } from './chart-render/index.js';

/**
 * Kubernetes objects type-checked against the API of Kubernetes 1.28 as the official JavaScript client generated
 * it: `@kubernetes/client-node` 0.20.0 (devDependency alias `kubernetes-client-node-v1.28`), whose models say
 * "The version of the OpenAPI document: release-1.28". Each object becomes an object literal assigned to the
 * model class of its kind, and the TypeScript compiler checks the assignment: the excess-property check of object
 * literals finds unknown fields at every depth, a non-optional property a missing required field, assignability
 * a wrong type. An object with problems gets at least one, not always all: the compiler reports one problem where
 * several fields of one object literal are wrong. The models have no enums (such a field takes any string), no
 * formats, and one `number` for integers and floats. Where they are stricter than the API server, they refuse
 * what it would accept, never the other way round: quantities are strings (the server also takes numbers),
 * timestamps `Date`s, and three models name fields other than JSON does (`_default`, `_enum`, `_continue`,
 * `x_kubernetes_*` in V1JSONSchemaProps, V1LimitRangeItem and V1ListMeta, none of them in the chart's objects).
 */

const MODELS = join(
  dirname(createRequire(import.meta.url).resolve('kubernetes-client-node-v1.28/package.json')),
  'dist/gen/model',
);

/** The model class of each `apiVersion kind` the chart renders: the client names them `V<version><Kind>`. */
const MODEL_OF: Readonly<Record<string, string>> = {
  'v1 ConfigMap': 'V1ConfigMap',
  'v1 PersistentVolumeClaim': 'V1PersistentVolumeClaim',
  'v1 Service': 'V1Service',
  'apps/v1 Deployment': 'V1Deployment',
  'apps/v1 StatefulSet': 'V1StatefulSet',
  'autoscaling/v2 HorizontalPodAutoscaler': 'V2HorizontalPodAutoscaler',
  'networking.k8s.io/v1 Ingress': 'V1Ingress',
  'policy/v1 PodDisruptionBudget': 'V1PodDisruptionBudget',
};

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  lib: ['lib.es5.d.ts'],
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
};

/** The file the objects are written into; it exists only for the compiler host. */
const OBJECTS_FILE = join(MODELS, 'chart-objects.ts');

const host = ts.createCompilerHost(OPTIONS);
// Parsing the models and what they import (the whole client, through IntOrString's module) takes about a
// second: each file is parsed once per test process, not once per program.
const parsed = new Map<string, ts.SourceFile | undefined>();
const readSourceFile = host.getSourceFile.bind(host);
host.getSourceFile = (name, ...rest) => {
  if (!parsed.has(name)) parsed.set(name, readSourceFile(name, ...rest));
  return parsed.get(name);
};

/** The problems of each object against the Kubernetes 1.28 models: `Kind name: field.path: message`. */
export function kubernetes128Problems(objects: readonly Manifest[]): string[] {
  const models = new Set<string>();
  const declarations = objects.map((object, i) => {
    const model = MODEL_OF[`${object.apiVersion} ${object.kind}`];
    if (model === undefined) throw new Error(`Kubernetes 1.28: no model for ${object.apiVersion} ${object.kind}`);
    models.add(model);
    return `export const object${i}: ${model} = ${JSON.stringify(object)};`;
  });
  const imports = [...models].map(
    (model) => `import type { ${model} } from './${model[0]!.toLowerCase()}${model.slice(1)}';`,
  );
  const source = ts.createSourceFile(OBJECTS_FILE, [...imports, ...declarations].join('\n'), ts.ScriptTarget.ES2022);
  const program = ts.createProgram([OBJECTS_FILE], OPTIONS, {
    ...host,
    getSourceFile: (name, ...rest) => (name === OBJECTS_FILE ? source : host.getSourceFile(name, ...rest)),
    fileExists: (name) => name === OBJECTS_FILE || host.fileExists(name),
  });
  const declared = source.statements
    .filter(ts.isVariableStatement)
    .map((statement) => statement.declarationList.declarations[0]!);
  return ts.getPreEmitDiagnostics(program, source).map((diagnostic) => {
    const at = diagnostic.start ?? -1;
    const i = declared.findIndex((declaration) => declaration.pos <= at && at < declaration.end);
    const message = readable(ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '));
    // Outside the objects, the check itself is broken (a model not found): no object is to blame.
    if (i < 0) throw new Error(`Kubernetes 1.28 models: ${message}`);
    const { kind, metadata } = objects[i]!;
    return `${kind} ${metadata.name}: ${fieldPath(declared[i]!.initializer!, at) || '(the object)'}: ${message}`;
  });
}

/**
 * The path of the field a diagnostic points at, `spec.template.spec.containers[0].name`: the compiler reports a
 * wrong type or an unknown field at the field's name, a missing field at the name of the object that lacks it.
 */
function fieldPath(object: ts.Expression, at: number): string {
  let path = '';
  let node = object;
  for (;;) {
    if (ts.isObjectLiteralExpression(node)) {
      const field = node.properties.find((property) => property.pos <= at && at < property.end);
      if (field === undefined || !ts.isPropertyAssignment(field)) return path;
      const name = (field.name as ts.StringLiteral).text;
      path = path ? `${path}.${name}` : name;
      if (at < field.name.end) return path;
      node = field.initializer;
    } else if (ts.isArrayLiteralExpression(node)) {
      const index = node.elements.findIndex((element) => element.pos <= at && at < element.end);
      if (index < 0) return path;
      path += `[${index}]`;
      node = node.elements[index]!;
    } else {
      return path;
    }
  }
}

/** The compiler's message without the quotes of JSON's property names or the full type of the object literal. */
function readable(message: string): string {
  return message.replace(/'(["'])(.*?)\1'/g, "'$2'").replace(/ in type '\{.*\}'(?= but required)/, '');
}
