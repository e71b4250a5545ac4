/**
 * Decode-only io-ts building blocks whose every failure carries a user-facing message.
 * io-ts' own `type`/`exact` ignore or strip unknown fields and its unions report one error per
 * branch; the scenario language needs unknown fields rejected and one precise message per fault.
 */
import * as t from 'io-ts';
import { isRight } from 'fp-ts/lib/Either.js';
import { MAX_PATH_CHARS } from './limits.js';
import { closest, describe, isMapping, show } from './problems.js';

/** A JSON Schema (draft 2020-12) node. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * How a codec writes its JSON Schema: `child` writes a codec it is made of (a `$ref` to a shared
 * definition where that codec is {@link Codec.define}d). The same codecs that validate a file
 * describe it, so the schema (lib/config/schema.ts) cannot drift from validation.
 */
export type SchemaOf = (child: (codec: AnyCodec) => JsonSchema) => JsonSchema;

/**
 * A decoder from unknown input; `hint` completes "missing required field" (for example the allowed
 * values); `schema` is what it accepts, as JSON Schema; `definition` names it under `$defs`.
 */
export class Codec<A> extends t.Type<A, unknown, unknown> {
  constructor(
    name: string,
    validate: t.Validate<unknown, A>,
    readonly hint?: string,
    readonly schema: SchemaOf = () => ({}),
    readonly definition?: string,
  ) {
    super(
      name,
      (u): u is A => isRight(validate(u, [])),
      validate,
      (a) => a,
    );
  }

  /** This codec with `text` as its description: what an editor shows for the field. */
  describe(text: string): Codec<A> {
    return new Codec<A>(this.name, this.validate, this.hint, (child) => ({ ...child(this), description: text }));
  }

  /** This codec, written once in the schema's `$defs` as `name` and referred to wherever it is used. */
  define(name: string): Codec<A> {
    return new Codec<A>(this.name, this.validate, this.hint, this.schema, name);
  }

  /** The same decoder with another schema (a codec whose input is rewritten before it decodes, as aliases are). */
  withSchema(schema: SchemaOf): Codec<A> {
    return new Codec<A>(this.name, this.validate, this.hint, schema, this.definition);
  }
}

/** The schema of `codec` under `child`, with `extra` keywords beside it. */
export function refined(codec: AnyCodec, extra: JsonSchema): SchemaOf {
  return (child) => ({ ...child(codec), ...extra });
}

// biome-ignore lint/suspicious/noExplicitAny: a codec of any output, as a record of codecs holds them (unknown would make every field's output unknown).
export type AnyCodec = t.Type<any, unknown, unknown>;
export type Props = Record<string, AnyCodec>;
export type Decoded<P extends Props> = { [K in keyof P]: t.TypeOf<P[K]> };

export function invalidType<A>(u: unknown, c: t.Context, expected: string): t.Validation<A> {
  return t.failure(u, c, `invalid type: expected ${expected}, got ${describe(u)}`);
}

/** An error located at `path` (field names, list indexes) inside the value `u` decoded under context `c`. */
export function errorAt(
  u: unknown,
  c: t.Context,
  path: string | readonly (string | number)[],
  message: string,
): t.ValidationError {
  let value = u;
  let context = c;
  for (const key of typeof path === 'string' ? [path] : path) {
    value = (value as Record<string | number, unknown> | undefined)?.[key];
    context = t.appendContext(context, String(key), t.unknown, value);
  }
  return { value, context, message };
}

/** Always a failure, so it fits any validation type. */
export function failAt(
  u: unknown,
  c: t.Context,
  path: string | readonly (string | number)[],
  message: string,
): t.Validation<never> {
  return t.failures([errorAt(u, c, path, message)]);
}

export const string = new Codec<string>(
  'string',
  (u, c) => (typeof u === 'string' ? t.success(u) : invalidType(u, c, 'a string')),
  undefined,
  () => ({ type: 'string' }),
);

/**
 * A string passing `test`; `schema` says as much of the test as JSON Schema can (required: an editor shows no error
 * for what the test refuses and the schema does not say; `{}` where it can say nothing).
 */
export function stringWhere(test: (s: string) => boolean, expected: string, schema: JsonSchema): Codec<string> {
  return andThen<string, string>(string, (s, u, c) =>
    test(s) ? t.success(s) : t.failure(u, c, `expected ${expected}, got ${show(s)}`),
  ).withSchema(refined(string, schema));
}

export const nonEmptyString = stringWhere((s) => s.length > 0, 'a non-empty string', { minLength: 1 });

/** A path a scenario names: longer than the system opens, it could only fail later, quoting the whole of it. */
export const filePath = stringWhere(
  (s) => s.length > 0 && s.length <= MAX_PATH_CHARS,
  `a path of 1 to ${MAX_PATH_CHARS} characters`,
  { minLength: 1, maxLength: MAX_PATH_CHARS },
);

/** A string matching `pattern` (written without anchors, as it appears in messages). */
export function matching(pattern: string, what: string): Codec<string> {
  const anchored = `^(?:${pattern})$`;
  const re = new RegExp(anchored);
  return stringWhere((s) => re.test(s), `${what} matching ${pattern}`, { pattern: anchored });
}

/**
 * `codec`'s strings of at most `max` characters; a longer one is refused with its length. `schema`: the codec's
 * with `maxLength` beside it, unless given (where the codec takes more than strings).
 */
export function charsUpTo(
  codec: Codec<string>,
  max: number,
  what: string,
  schema: SchemaOf = refined(codec, { maxLength: max }),
): Codec<string> {
  return andThen<string, string>(codec, (s, u, c) =>
    s.length <= max
      ? t.success(s)
      : t.failure(u, c, `expected ${what} of at most ${max} characters, got ${s.length} characters`),
  ).withSchema(schema);
}

export const number = new Codec<number>(
  'number',
  (u, c) => {
    if (typeof u !== 'number') return invalidType(u, c, 'a number');
    return Number.isFinite(u) ? t.success(u) : t.failure(u, c, `expected a finite number, got ${show(u)}`);
  },
  undefined,
  () => ({ type: 'number' }),
);

/**
 * A number passing `test`; `schema` says as much of the test as JSON Schema can (required, as
 * {@link stringWhere}'s). `expected` may depend on the number refused.
 */
export function numberWhere(
  test: (n: number) => boolean,
  expected: string | ((n: number) => string),
  schema: JsonSchema,
): Codec<number> {
  return andThen<number, number>(number, (n, u, c) =>
    test(n)
      ? t.success(n)
      : t.failure(u, c, `expected ${typeof expected === 'string' ? expected : expected(n)}, got ${show(n)}`),
  ).withSchema(refined(number, schema));
}

/**
 * `codec`, no greater than `max` (`unit` follows the number in the message). A number above `max` is told so
 * before `codec` judges it: past 2^53 an integer codec would call 9007199254740993 "not an integer".
 */
export function atMost(codec: Codec<number>, max: number, unit = ''): Codec<number> {
  return new Codec<number>(
    codec.name,
    (u, c) =>
      typeof u === 'number' && Number.isFinite(u) && u > max
        ? t.failure(u, c, `expected at most ${max}${unit}, got ${show(u)}`)
        : codec.validate(u, c),
    codec.hint,
  ).withSchema(refined(codec, { maximum: max }));
}

/** `codec`, no less than `min`. */
export function atLeast(codec: Codec<number>, min: number, unit = ''): Codec<number> {
  return andThen<number, number>(codec, (n, u, c) =>
    n >= min ? t.success(n) : t.failure(u, c, `expected at least ${min}${unit}, got ${show(n)}`),
  ).withSchema(refined(codec, { minimum: min }));
}

export const positive = numberWhere((n) => n > 0, 'a number greater than 0', { exclusiveMinimum: 0 });
/** A share or a probability: a number from 0 to 1. */
export const unitInterval = atMost(atLeast(number, 0), 1);

export const nonNegative = numberWhere((n) => n >= 0, 'a number greater than or equal to 0', { minimum: 0 });
/**
 * Past 2^53 a double holds no exact integer, so such a number is refused: "expected an integer" would read
 * false of 1e300 or a 64-bit seed, so the message gives the range instead.
 */
const beyondSafe = (n: number) => Number.isInteger(n) && !Number.isSafeInteger(n);
export const integer = numberWhere(
  Number.isSafeInteger,
  (n) => (beyondSafe(n) ? `an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}` : 'an integer'),
  // JSON Schema's integer is any whole number (1e300 too): the range says what a double holds exactly.
  { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
);
export const positiveInteger = numberWhere(
  (n) => Number.isSafeInteger(n) && n > 0,
  (n) => (beyondSafe(n) && n > 0 ? `an integer from 1 to ${Number.MAX_SAFE_INTEGER}` : 'an integer greater than 0'),
  { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
);

export const boolean = new Codec<boolean>(
  'boolean',
  (u, c) => (typeof u === 'boolean' ? t.success(u) : invalidType(u, c, 'a boolean')),
  undefined,
  () => ({
    type: 'boolean',
  }),
);

export function oneOf<const V extends string>(values: readonly V[]): Codec<V> {
  const allowed = values.join(', ');
  return new Codec<V>(
    allowed,
    (u, c) => {
      if (typeof u !== 'string') {
        // YAML and JSON read an unquoted 2.0 as the number 2: name the quoted value it was meant as.
        const meant = typeof u === 'number' ? values.find((v) => Number(v) === u) : undefined;
        const quote = meant === undefined ? '' : ` as a quoted string ("${meant}"; unquoted it is read as a number)`;
        return invalidType(u, c, `one of ${allowed}${quote}`);
      }
      return (values as readonly string[]).includes(u)
        ? t.success(u as V)
        : t.failure(u, c, `expected one of ${allowed}, got ${show(u)}`);
    },
    `allowed: ${allowed}`,
    () => ({ enum: [...values] }),
  );
}

/**
 * Feeds a successful decode to `next`, which may refine, check across fields or fill defaults; the schema
 * stays `codec`'s.
 */
export function andThen<A, B>(
  codec: t.Type<A, unknown, unknown>,
  next: (a: A, u: unknown, c: t.Context) => t.Validation<B>,
): Codec<B> {
  return new Codec<B>(
    codec.name,
    (u, c) => {
      const decoded = codec.validate(u, c);
      return isRight(decoded) ? next(decoded.right, u, c) : decoded;
    },
    codec instanceof Codec ? codec.hint : undefined,
    (child) => child(codec),
  );
}

/** A list of `item`; `max` bounds its length, checked before any item is. */
export function list<A>(
  item: t.Type<A, unknown, unknown>,
  options: { nonEmpty?: boolean; max?: number } = {},
): Codec<A[]> {
  const schema: SchemaOf = (child) => ({
    type: 'array',
    items: child(item),
    ...(options.nonEmpty && { minItems: 1 }),
    ...(options.max !== undefined && { maxItems: options.max }),
  });
  return new Codec<A[]>(
    `list of ${item.name}`,
    (u, c) => {
      if (!Array.isArray(u)) return invalidType(u, c, 'a list');
      if (options.nonEmpty && u.length === 0) return t.failure(u, c, 'expected a non-empty list, got an empty list');
      if (options.max !== undefined && u.length > options.max)
        return t.failure(u, c, `expected at most ${options.max} items, got ${u.length}`);
      const values: A[] = [];
      const errors: t.Errors = [];
      u.forEach((element, i) => {
        const decoded = item.validate(element, t.appendContext(c, String(i), item, element));
        if (isRight(decoded)) values.push(decoded.right);
        else errors.push(...decoded.left);
      });
      return errors.length ? t.failures(errors) : t.success(values);
    },
    undefined,
    schema,
  );
}

/** A mapping with free keys checked by `key` (errors land on the key's path) and values by `value`. */
export function record<A>(
  key: t.Type<string, unknown, unknown>,
  value: t.Type<A, unknown, unknown>,
): Codec<Record<string, A>> {
  return new Codec<Record<string, A>>(
    `mapping of ${value.name}`,
    (u, c) => {
      if (!isMapping(u)) return invalidType(u, c, 'a mapping');
      const entries: [string, A][] = [];
      const errors: t.Errors = [];
      for (const [k, v] of Object.entries(u)) {
        const checkedKey = key.validate(k, t.appendContext(c, k, key, k));
        const decoded = value.validate(v, t.appendContext(c, k, value, v));
        if (!isRight(checkedKey)) errors.push(...checkedKey.left);
        if (isRight(decoded)) entries.push([k, decoded.right]);
        else errors.push(...decoded.left);
      }
      // fromEntries defines own properties, so a `__proto__` key stays a plain key.
      return errors.length ? t.failures(errors) : t.success(Object.fromEntries(entries));
    },
    undefined,
    (child) => ({ type: 'object', propertyNames: child(key), additionalProperties: child(value) }),
  );
}

/** Unknown fields of one mapping that get a hint. */
const HINTED_UNKNOWN_FIELDS = 20;

/** Completes "unknown field" for a key: by default, the closest field that is known there. */
export type UnknownFieldHint = (key: string, known: readonly string[]) => string | undefined;

/** Known fields a hint lists when none is close to the key: a few read at a glance, more would bury the message. */
const LISTED_FIELDS = 8;

export const didYouMean: UnknownFieldHint = (key, known) => {
  const near = closest(key, known);
  if (near) return `did you mean ${near}?`;
  return known.length > 0 && known.length <= LISTED_FIELDS ? `allowed: ${known.join(', ')}` : undefined;
};

/**
 * Fields decoded before by the same codecs: `raw` as written, `value` as decoded (the defaults of a file, which every
 * entry lacking them gets).
 */
export interface DecodedBefore {
  readonly raw: Readonly<Record<string, unknown>>;
  readonly value: Readonly<Record<string, unknown>>;
}

/**
 * Decodes the fields of mapping `u` one by one: unknown fields and missing `required` ones are
 * errors; `value` holds every field that decoded, so callers can go on checking the others. A field whose raw
 * value is the very one `before` decoded takes its decoded value without a second decode: a list of 100,000 label
 * values in `defaults` was decoded again for every entry, seconds of a server's event loop for one POST.
 */
export function decodeFields<P extends Props>(
  props: P,
  required: readonly (keyof P & string)[],
  u: Record<string, unknown>,
  c: t.Context,
  hint: UnknownFieldHint = didYouMean,
  before?: DecodedBefore,
): { value: Partial<Decoded<P>>; errors: t.Errors } {
  const entries: [string, unknown][] = [];
  const errors: t.Errors = [];
  let unknown = 0;
  for (const [key, raw] of Object.entries(u)) {
    const codec = Object.hasOwn(props, key) ? props[key] : undefined;
    if (!codec) {
      // A mapping full of unknown fields is the wrong document, not a typo: hints for the first few only.
      const more = unknown++ < HINTED_UNKNOWN_FIELDS ? hint(key, Object.keys(props)) : undefined;
      errors.push(errorAt(u, c, key, `unknown field${more ? ` (${more})` : ''}`));
      continue;
    }
    if (before && Object.hasOwn(before.value, key) && before.raw[key] === raw) {
      entries.push([key, before.value[key]]);
      continue;
    }
    const decoded = codec.validate(raw, t.appendContext(c, key, codec, raw));
    if (isRight(decoded)) entries.push([key, decoded.right]);
    else errors.push(...decoded.left);
  }
  for (const key of required) {
    if (Object.hasOwn(u, key)) continue;
    const hint = props[key] instanceof Codec ? props[key].hint : undefined;
    errors.push(errorAt(u, c, key, `missing required field${hint ? ` (${hint})` : ''}`));
  }
  return { value: Object.fromEntries(entries) as Partial<Decoded<P>>, errors };
}

/** A mapping with exactly these fields: unknown fields are errors, not stripped. */
export function strict<R extends Props, O extends Props = Record<never, never>>(
  name: string,
  required: R,
  optional: O = {} as O,
): Codec<Decoded<R> & Partial<Decoded<O>>> {
  const props: Props = { ...required, ...optional };
  return new Codec(
    name,
    (u, c) => {
      if (!isMapping(u)) return invalidType(u, c, 'a mapping');
      const { value, errors } = decodeFields(props, Object.keys(required), u, c);
      return errors.length ? t.failures(errors) : t.success(value as Decoded<R> & Partial<Decoded<O>>);
    },
    undefined,
    (child) => objectSchema(props, Object.keys(required), child),
  );
}

/** The schema of a mapping that has `field`: a condition of rules between fields. */
export function hasField(field: string): JsonSchema {
  return { type: 'object', required: [field] };
}

/** JSON Schema's `if`/`then`/`else`, for codecs whose files the linter keeps free of `then` (a thenable elsewhere). */
export function conditional(condition: JsonSchema, then: JsonSchema, otherwise?: JsonSchema): JsonSchema {
  return { if: condition, then, ...(otherwise && { else: otherwise }) };
}

/** A mapping of exactly the fields `props`, `required` among them. */
export function objectSchema(
  props: Props,
  required: readonly string[],
  child: (codec: AnyCodec) => JsonSchema,
): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(props).map(([key, codec]) => [key, child(codec)])),
    ...(required.length && { required: [...required] }),
    additionalProperties: false,
  };
}

/**
 * A mapping whose `type` field picks the variant codec; each variant lists `type` among its own
 * fields. `aliases` maps other names of a variant (the names other tools use) to its own: the
 * decoded value carries the variant's own name.
 */
export function tagged<V extends Record<string, AnyCodec>>(
  what: string,
  variants: V,
  aliases: Readonly<Record<string, keyof V & string>> = {},
): Codec<t.TypeOf<V[keyof V]>> {
  const type = oneOf(Object.keys(variants));
  const canonical = (u: unknown): unknown => (typeof u === 'string' && Object.hasOwn(aliases, u) ? aliases[u] : u);
  const schema = taggedSchema(variants, aliases);
  return new Codec(
    what,
    (u, c) => {
      if (!isMapping(u)) {
        const named = canonical(u);
        return typeof named === 'string' && Object.hasOwn(variants, named)
          ? t.failure(u, c, `invalid type: expected a mapping such as {type: ${u}}, got ${describe(u)}`)
          : invalidType(u, c, 'a mapping');
      }
      if (!Object.hasOwn(u, 'type')) return failAt(u, c, 'type', `missing required field (${type.hint})`);
      const named = canonical(u.type);
      if (typeof named !== 'string' || !Object.hasOwn(variants, named))
        return failAt(u, c, 'type', unknownTypeMessage(named, Object.keys(variants), aliases));
      return variants[named]!.validate(named === u.type ? u : { ...u, type: named }, c);
    },
    undefined,
    schema,
  );
}

/**
 * `expected one of <types> (or <alias> for <type>, …), got "<typed>"`, with the closest type or alias when the typed
 * one is a typo of it: the aliases are accepted as `type` (and by `--sink`/`--encoder`, POST /events), so the message
 * names them. A `type` that is no string at all (`type: 3`) gets the same list, as an invalid type.
 */
export function unknownTypeMessage(
  typed: unknown,
  types: readonly string[],
  aliases: Readonly<Record<string, string>>,
): string {
  const names = Object.keys(aliases);
  const also = names.length > 0 ? ` (or ${names.map((alias) => `${alias} for ${aliases[alias]}`).join(', ')})` : '';
  const expected = `expected one of ${types.join(', ')}${also}`;
  // A missing type (POST /events reads `sink: {}` here) reads "got nothing", not as a wrong type.
  if (typeof typed !== 'string' && typed !== undefined) return `invalid type: ${expected}, got ${describe(typed)}`;
  const near = typeof typed === 'string' ? closest(typed, [...types, ...names]) : undefined;
  return `${expected}, got ${show(typed)}${near ? `; did you mean ${near}?` : ''}`;
}

/**
 * The schema of a mapping whose `type` picks a variant: the types (aliases too) as an enum, and
 * per type the variant's own fields (`if` the type is this one, `then` that variant), so that an
 * editor checks and completes the fields of the variant written.
 */
export function taggedSchema(
  variants: Readonly<Record<string, AnyCodec>>,
  aliases: Readonly<Record<string, string>> = {},
): SchemaOf {
  return (child) => {
    const namesOf = (type: string) => [type, ...Object.keys(aliases).filter((alias) => aliases[alias] === type)];
    return {
      type: 'object',
      required: ['type'],
      properties: { type: { enum: Object.keys(variants).flatMap(namesOf) } },
      allOf: Object.entries(variants).map(([type, variant]) => {
        const names = namesOf(type);
        const fields = child(variant) as { properties?: Record<string, JsonSchema> };
        return {
          if: {
            type: 'object',
            properties: { type: names.length > 1 ? { enum: names } : { const: type } },
            required: ['type'],
          },
          then: fields.properties ? { ...fields, properties: { ...fields.properties, type: {} } } : fields,
        };
      }),
    };
  };
}
