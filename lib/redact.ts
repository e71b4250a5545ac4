/**
 * Secrets masked wherever a configuration or a message about one is shown: dry-run and verbose
 * output, warnings, logs, API responses, validation messages (design.md §4). What counts as a
 * secret: the userinfo of a URL (the password, or a lone user name, which is often a token), the
 * values of URL query parameters that name a credential (`?token=`, `?api_key=`, InfluxDB's `?p=`), the values of
 * secret-bearing headers, and fields named `password` (SASL).
 */

/** What a secret is shown as. */
export const MASK = '***';

/**
 * Header names whose values are credentials: `Cookie` (a session) and anything naming auth (`Authorization`,
 * `X-Auth`, `Authentication`), a token, key, secret, password, credential or signature, as query parameters do; and
 * the OTLP backends' credential headers whose names say none of those: Honeycomb's `x-honeycomb-team` (its API key,
 * the example of OTEL_EXPORTER_OTLP_HEADERS in OpenTelemetry's docs) and a DSN (`uptrace-dsn`: a URL holding a token).
 */
const SECRET_HEADER = /auth|^cookie$|token|key|secret|passw|credential|signature|^x-honeycomb-team$|dsn/i;

/** `scheme://userinfo@`: the userinfo ends at the last `@` before the path, as URL parsers split it. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^/?#\s]*)@/gi;

/**
 * `user:password@host` without a scheme (an address of a tcp, broker or gRPC sink written as a URL would be), at
 * the start of a word: a host and port hold no `@`, so what comes before one is a credential.
 */
const BARE_USERINFO = /(^|[\s"'(=])([^\s"'(=:/@]+):([^\s"'/@]+)@(?=[\w.[-])/g;

/**
 * Query parameter names whose values are credentials: a token, key, secret, password, signature or credential, and
 * the short names services give them (`sig` of a shared access signature, InfluxDB 1.x's `p`, `pwd`, `auth`).
 */
const SECRET_PARAM = /token|key|secret|passw|signature|credential|^(sig|p|pwd|auth)$/i;

/** `?name=value` or `&name=value` of a URL's query: the value ends at the next parameter, the fragment or a blank. */
const QUERY_PARAM = /([?&])([^=&#\s"'?]+)=([^&#\s"']*)/g;

/** Where `value` ends before the punctuation of a sentence around it (`?api_key=k3y: HTTP 401`, `(…?token=t0k).`). */
function beforePunctuation(value: string): number {
  let end = value.length;
  while (end > 0 && ':;,.)'.includes(value[end - 1]!)) end--;
  return end;
}

/** `Bearer <token>` and `Basic <credentials>` in free text, as headers are written in messages. */
const AUTH_SCHEME = /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi;

/** True for a header whose value must never be shown. */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

/**
 * True for the field `key` of a mapping whose parent field is `parent`, when its value is a secret
 * (`password`, secret headers).
 */
export function isSecretField(key: string, parent: string | undefined): boolean {
  return /passw/i.test(key) || (parent === 'headers' && isSecretHeader(key));
}

/** True for a URL query parameter whose value must never be shown (`token`, `api_key`, `p`). */
function isSecretParam(name: string): boolean {
  return SECRET_PARAM.test(decodeURIComponentSafe(name));
}

/**
 * `text` with URL credentials and `Bearer`/`Basic` credentials masked: `http://admin:***@host`, `?token=***`,
 * `Bearer ***`.
 */
export function redactText(text: string): string {
  return text
    .replace(QUERY_PARAM, (whole, lead: string, name: string, value: string) => {
      const end = beforePunctuation(value);
      return end > 0 && isSecretParam(name) ? `${lead}${name}=${MASK}${value.slice(end)}` : whole;
    })
    .replace(URL_USERINFO, (_, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return `${scheme}${colon < 0 ? MASK : `${userinfo.slice(0, colon)}:${MASK}`}@`;
    })
    .replace(BARE_USERINFO, (_, before: string, user: string) => `${before}${user}:${MASK}@`)
    .replace(AUTH_SCHEME, (_, scheme: string) => `${scheme} ${MASK}`);
}

/**
 * A copy of `config` fit to show: every string with its URL credentials masked, the values of
 * secret-bearing headers (under a `headers` key) and of `password` fields replaced by {@link MASK}.
 */
export function redactConfig<T>(config: T): T {
  return redactValue(config, undefined) as T;
}

function redactValue(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, undefined));
  // Errors keep their identity for their own serializer (see the server's logger), which masks their text.
  if (value === null || typeof value !== 'object' || value instanceof Error) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, field]) => [name, isSecretField(name, key) ? MASK : redactValue(field, name)]),
  );
}

/** Shorter values are not looked for in text: masking every `ab` of a message would hide more than a secret. */
const MIN_ECHOED_SECRET = 4;

/**
 * The credentials a sink sends, as a receiver may echo them in an answer (a collector quoting the request's
 * `Authorization`): the values of its secret headers and the credentials of a `Bearer`/`Basic` value alone, the
 * userinfo (also as the Basic credentials made of it) and secret query parameters of its URL, as written and
 * decoded, and `others` as they are (a SASL password).
 */
export function sentSecrets(
  headers: Readonly<Record<string, string>> = {},
  url?: URL,
  others: readonly string[] = [],
): string[] {
  const values = Object.entries(headers)
    .filter(([name]) => isSecretHeader(name))
    .flatMap(([, value]) => [value, value.replace(/^\s*(bearer|basic)\s+/i, '')]);
  // As written (the raw query, not URLSearchParams, which decodes) and decoded.
  const params = [...(url?.search.matchAll(QUERY_PARAM) ?? [])].filter(([, , name]) => isSecretParam(name!));
  const inUrl = (url ? [url.username, url.password, ...params.map(([, , , value]) => value!)] : []).flatMap((part) => [
    part,
    decodeURIComponentSafe(part),
  ]);
  // The userinfo also goes out encoded, as the Basic `Authorization` the client makes of it.
  const basic = url && (url.username || url.password) ? [basicCredentials(url)] : [];
  return [...new Set([...values, ...inUrl, ...basic, ...others].map((value) => value.trim()))]
    .filter((value) => value.length >= MIN_ECHOED_SECRET)
    .sort((a, b) => b.length - a.length);
}

/**
 * The credentials of `url`'s userinfo as a Basic `Authorization` carries them: `user:password`, decoded, in base64
 * (what Node's http client sends for a URL with userinfo).
 */
export function basicCredentials(url: URL): string {
  return Buffer.from(`${decodeURIComponentSafe(url.username)}:${decodeURIComponentSafe(url.password)}`).toString(
    'base64',
  );
}

/**
 * What a receiver answered, fit to show: credentials masked as in {@link redactText}, and every credential of
 * `secrets` (see {@link sentSecrets}) the answer repeats replaced by {@link MASK}.
 */
export function redactAnswer(text: string, secrets: readonly string[]): string {
  let shown = text;
  // Longest first: a header's value is masked whole before the token within it.
  for (const secret of secrets) shown = shown.split(secret).join(MASK);
  return redactText(shown);
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
