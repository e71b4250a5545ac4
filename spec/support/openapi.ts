/**
 * Answers of the API checked against docs/openapi.json, as a client generated from it reads them: the status must
 * be one the operation lists, the Content-Type one of its media types, a JSON body valid by its schema, and every
 * field of an object the server answers named by the document (an object schema with `properties` is taken as
 * closed), so that a field a generated model would drop fails too. The document's OpenAPI 3.0 schemas become JSON
 * Schema (`nullable` a union with null) checked by ajv in strict mode.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { OPENAPI } from '../../lib/server/routes/openapi.js';

type Schema = Record<string, unknown>;
interface Operation {
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: Schema }> }>;
}
/** What a response of light-my-request (or any client) gives to check. */
export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

const document = OPENAPI as unknown as {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, Operation['responses'][string]> };
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ajv = new Ajv({
  strict: true,
  allowUnionTypes: true,
  allErrors: true,
  formats: {
    uuid: UUID,
    'date-time': (text: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text),
    binary: true,
  },
});
const definitions = Object.fromEntries(
  Object.entries(document.components.schemas).map(([name, schema]) => [name, jsonSchema(schema)]),
);
const validators = new Map<Schema, ValidateFunction>();

/**
 * Every way `answer` to `method url` departs from the document: empty when it matches. A request no operation of
 * the document takes is not checked: an unknown route or method answers 404 or 405, the web console its files.
 */
export function openapiProblems(method: string, url: string, answer: Answer): string[] {
  const found = operationOf(method, url);
  if (!found) return [];
  const { path, operation } = found;
  const where = `${method} ${path} ${answer.statusCode}`;
  const listed = operation.responses[String(answer.statusCode)];
  if (!listed) return [`${where}: status not listed (${Object.keys(operation.responses).join(', ')})`];
  const response = listed.$ref ? document.components.responses[listed.$ref.split('/').pop()!]! : listed;
  if (method === 'HEAD') return answer.body ? [`${where}: a body`] : [];
  if (!response.content) return answer.body ? [`${where}: a body where the document gives none`] : [];
  const type = String(answer.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim();
  const media = response.content[type];
  if (!media) return [`${where}: Content-Type ${type || '(none)'}, not ${Object.keys(response.content).join(' or ')}`];
  if (type !== 'application/json') return [];
  const validate = validatorOf(media.schema);
  return validate(JSON.parse(answer.body))
    ? []
    : validate.errors!.map(
        (error) => `${where}: ${error.instancePath || '(body)'} ${error.message} ${JSON.stringify(error.params)}`,
      );
}

/** The operation of the document that takes `method url`: its path template with `{id}` matching one segment. */
function operationOf(method: string, url: string): { path: string; operation: Operation } | undefined {
  const pathname = new URL(url, 'http://svc').pathname;
  for (const [path, item] of Object.entries(document.paths)) {
    const template = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const operation = item[method.toLowerCase()] as Operation | undefined;
    if (operation && template.test(pathname)) return { path, operation };
  }
  return undefined;
}

function validatorOf(schema: Schema): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile({ ...(jsonSchema(schema) as Schema), definitions })));
  return validate;
}

/** An OpenAPI 3.0 schema as JSON Schema: `nullable` as a union with null, references into `definitions`, objects closed. */
function jsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const { nullable, ...rest } = schema as Schema;
  const converted: Schema = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === '$ref') converted.$ref = String(value).replace('#/components/schemas/', '#/definitions/');
    else if (key === 'properties')
      converted.properties = Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, jsonSchema(v)]));
    else converted[key] = jsonSchema(value);
  }
  // A field the document does not name is one a generated client drops.
  if (converted.properties && converted.additionalProperties === undefined) converted.additionalProperties = false;
  if (nullable) {
    converted.type = [converted.type, 'null'];
    if (converted.enum) converted.enum = [...(converted.enum as unknown[]), null];
  }
  return converted;
}
