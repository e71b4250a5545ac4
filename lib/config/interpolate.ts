/**
 * Environment interpolation of a scenario or pack text, before it is parsed: `${NAME}` is the
 * variable's value, `${NAME:-default}` its value or, when unset or empty, the default, and `$$` a
 * literal `$`. A `$` followed by anything else stays as written. The expanded text is bounded like
 * any text (MAX_TEXT_BYTES), checked as it grows.
 */
import { MAX_TEXT_BYTES } from '../language/limits.js';
import { ConfigError, show } from '../language/problems.js';

/** The variables a text may name: the environment of svc, or the `SVC_ENV_` ones of svc-server. */
export type Variables = Readonly<Record<string, string | undefined>>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `text` with its variables expanded from `variables`; a `syntax` ConfigError naming the line of the first problem. */
export function interpolate(text: string, variables: Variables, origin: string): string {
  if (!text.includes('$')) return text;
  const parts: string[] = [];
  let bytes = 0;
  const push = (part: string): void => {
    bytes += Buffer.byteLength(part);
    if (bytes > MAX_TEXT_BYTES)
      throw refusal(
        origin,
        text,
        0,
        `the text is larger than ${MAX_TEXT_BYTES} bytes once its variables are expanded; the limit is 1 MiB`,
        false,
      );
    parts.push(part);
  };
  let from = 0;
  for (let at = text.indexOf('$'); at >= 0; at = text.indexOf('$', from)) {
    const next = text[at + 1];
    if (next === '$') {
      push(text.slice(from, at + 1));
      from = at + 2;
    } else if (next === '{') {
      const close = text.indexOf('}', at + 2);
      const newline = text.indexOf('\n', at + 2);
      if (close < 0 || (newline >= 0 && newline < close))
        throw refusal(origin, text, at, 'unclosed ${: write ${NAME}, or $$ for a literal $');
      const body = text.slice(at + 2, close);
      const dash = body.indexOf(':-');
      const name = dash < 0 ? body : body.slice(0, dash);
      if (!NAME.test(name))
        throw refusal(
          origin,
          text,
          at,
          `invalid variable name ${show(name)}: a name is letters, digits and _, not starting with a digit`,
        );
      const value = variables[name];
      if (dash >= 0) push(text.slice(from, at) + (value ? value : body.slice(dash + 2)));
      else if (value === undefined)
        throw refusal(
          origin,
          text,
          at,
          `environment variable ${name} is not set (give it a value, or a default: \${${name}:-value})`,
        );
      else push(text.slice(from, at) + value);
      from = close + 1;
    } else {
      push(text.slice(from, at + 1));
      from = at + 1;
    }
  }
  push(text.slice(from));
  return parts.join('');
}

/** A problem of the text at `offset`, on its line (of the text as written). */
function refusal(origin: string, text: string, offset: number, message: string, withLine = true): ConfigError {
  const line = text.slice(0, offset).split('\n').length;
  return new ConfigError('syntax', origin, [{ path: '', message: withLine ? `line ${line}: ${message}` : message }]);
}
