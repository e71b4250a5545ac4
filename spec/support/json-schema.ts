/**
 * A small JSON Schema (2020-12, and draft-07 as Helm charts write it) checker for the keywords
 * svc's schemas use: type, const, enum, required, properties, additionalProperties,
 * propertyNames, pattern, minItems, items, oneOf, minimum, maximum, exclusiveMinimum and local $ref. It returns the paths that fail, enough to keep a published
 * schema and the validator in lib/config from drifting apart. Unknown keywords throw.
 */
type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(['$schema', '$id', '$defs', 'definitions', 'title', 'description', 'default']);

export function schemaErrors(schema: Schema, value: unknown, root: Schema = schema, path = '$'): string[] {
  const errors: string[] = [];
  const fail = (what: string) => errors.push(`${path}: ${what}`);
  for (const [keyword, rule] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    switch (keyword) {
      case '$ref': {
        const target = String(rule).replace(/^#\//, '').split('/').reduce<unknown>((node, key) => (node as Schema)[key], root);
        errors.push(...schemaErrors(target as Schema, value, root, path));
        break;
      }
      case 'type':
        if (!hasType(value, rule as string)) fail(`expected ${rule}`);
        break;
      case 'const':
        if (value !== rule) fail(`expected ${JSON.stringify(rule)}`);
        break;
      case 'enum':
        if (!(rule as unknown[]).includes(value)) fail(`expected one of ${JSON.stringify(rule)}`);
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(rule as string, 'u').test(value)) fail(`does not match ${rule}`);
        break;
      case 'minimum':
        if (typeof value === 'number' && !(value >= (rule as number))) fail(`expected at least ${rule}`);
        break;
      case 'maximum':
        if (typeof value === 'number' && !(value <= (rule as number))) fail(`expected at most ${rule}`);
        break;
      case 'exclusiveMinimum':
        if (typeof value === 'number' && !(value > (rule as number))) fail(`expected more than ${rule}`);
        break;
      case 'minItems':
        if (Array.isArray(value) && value.length < (rule as number)) fail(`expected at least ${rule} items`);
        break;
      case 'items':
        if (Array.isArray(value)) value.forEach((item, i) => errors.push(...schemaErrors(rule as Schema, item, root, `${path}[${i}]`)));
        break;
      case 'required':
        if (isObject(value)) for (const key of rule as string[]) if (!Object.hasOwn(value, key)) fail(`missing ${key}`);
        break;
      case 'properties':
        if (isObject(value)) {
          for (const [key, sub] of Object.entries(rule as Record<string, Schema>)) {
            if (Object.hasOwn(value, key)) errors.push(...schemaErrors(sub, value[key], root, `${path}.${key}`));
          }
        }
        break;
      case 'additionalProperties':
        if (isObject(value)) {
          const known = Object.keys((schema.properties as Schema | undefined) ?? {});
          for (const key of Object.keys(value).filter((k) => !known.includes(k))) {
            if (rule === false) fail(`unknown property ${key}`);
            else errors.push(...schemaErrors(rule as Schema, value[key], root, `${path}.${key}`));
          }
        }
        break;
      case 'propertyNames':
        if (isObject(value)) for (const key of Object.keys(value)) errors.push(...schemaErrors(rule as Schema, key, root, `${path}[${JSON.stringify(key)}]`));
        break;
      case 'oneOf': {
        const matching = (rule as Schema[]).filter((sub) => schemaErrors(sub, value, root, path).length === 0).length;
        if (matching !== 1) fail(`expected exactly one alternative to match, ${matching} did`);
        break;
      }
      default:
        throw new Error(`schemaErrors: unsupported keyword ${keyword}`);
    }
  }
  return errors;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    default:
      return typeof value === type;
  }
}
