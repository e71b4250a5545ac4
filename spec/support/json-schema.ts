/**
 * JSON Schema checks for the specs, done by ajv: the draft the schema names in `$schema` (draft-07,
 * as Helm charts write it, or 2020-12) picks ajv's class, in strict mode so a keyword ajv does not
 * know, or one that cannot apply where it is written, fails the spec instead of being ignored.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

type Schema = Record<string, unknown>;

// strictRequired off: an `if` may test that a key is present (`required`) without describing it,
// as the scenario schema tells a scenario file, a pack file and a single entry apart.
const OPTIONS = { strict: true, strictRequired: false, allErrors: true } as const;

const AJV_BY_DIALECT: Record<string, () => Ajv | Ajv2020> = {
  'http://json-schema.org/draft-07/schema#': () => new Ajv(OPTIONS),
  'https://json-schema.org/draft/2020-12/schema': () => new Ajv2020(OPTIONS),
};

// One ajv per schema: two parses of a schema with an `$id` would collide in a shared instance.
const compiled = new WeakMap<Schema, ValidateFunction>();

/**
 * Every way `value` breaks `schema`, one `"<instancePath>: <message>"` line per ajv error
 * (`instancePath` is a JSON Pointer, empty for the document itself); none when it is valid.
 * The schema is compiled once per schema object.
 */
export function schemaErrors(schema: Schema, value: unknown): string[] {
  const validate = compiled.get(schema) ?? compileSchema(schema);
  return validate(value) ? [] : validate.errors!.map(describe);
}

/**
 * Where and by which keyword `value` breaks `schema`: one `"<instancePath> <keyword>"` per ajv error,
 * with the missing field of `required` and `dependentRequired` (`"/scenarios/0 required rate"`);
 * a false schema (an unknown field, or one a rule refuses at its key) is `false schema`. None when valid.
 */
export function schemaErrorPlaces(schema: Schema, value: unknown): string[] {
  const validate = compiled.get(schema) ?? compileSchema(schema);
  return validate(value)
    ? []
    : validate.errors!.map(({ instancePath, keyword, params }) => {
        const missing = (params as { missingProperty?: string }).missingProperty;
        return `${instancePath} ${keyword}${missing === undefined ? '' : ` ${missing}`}`;
      });
}

function compileSchema(schema: Schema): ValidateFunction {
  const createAjv = AJV_BY_DIALECT[String(schema.$schema)];
  if (!createAjv) throw new Error(`schemaErrors: no ajv for $schema ${String(schema.$schema)}`);
  const validate = createAjv().compile(schema);
  compiled.set(schema, validate);
  return validate;
}

function describe(error: ErrorObject): string {
  // ajv leaves the offending key out of the message of additionalProperties and propertyNames.
  const params = error.params as { additionalProperty?: string; propertyName?: string };
  const key = error.propertyName ?? params.propertyName ?? params.additionalProperty;
  return `${error.instancePath}: ${error.message}${key === undefined ? '' : ` (${JSON.stringify(key)})`}`;
}
