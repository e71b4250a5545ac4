import { hostname as osHostname } from 'node:os';
import { SYSLOG_FACILITIES } from '../language/fields.js';
import { logLines, type TextLogEncoder } from './log-lines.js';
import { isoMillisecondsText } from '../protocols/epoch-text.js';

export interface SyslogOptions {
  /** HOSTNAME field; default: this machine's host name. */
  readonly hostname?: string;
  /** APP-NAME field; default `svc`. */
  readonly app_name?: string;
  /** Facility name (RFC 5424 table: kern, user, … local7); default `user`. */
  readonly facility?: string;
}

/** RFC 5424 severity codes of svc's severities (trace has none of its own: debug). */
const SEVERITY_CODES: Readonly<Record<string, number>> = { trace: 7, debug: 7, info: 6, warn: 4, error: 3, fatal: 2 };

const NO_DATA = Buffer.from('- ');
const SPACE = Buffer.from(' ');
const LF = Buffer.from('\n');
/** A lone surrogate (in a `u` regexp a pair is one character, not a surrogate). */
const LONE_SURROGATE = /\p{Cs}/u;

/** Private Enterprise Number used in SD-IDs (RFC 5424 §7.2.2 example number). */
export const ENTERPRISE_NUMBER = 32473;

/**
 * Syslog encoder, RFC 5424, one message per line (LF framing, or octet counting by the sink):
 * `<PRI>1 TIMESTAMP HOSTNAME APP-NAME - - [labels@32473 k="v" …][fields@32473 k="v" …] MSG`, and
 * `[trace@32473 span_id="…" trace_id="…"]` after them when the record names a span.
 * PRI = facility × 8 + severity code. Labels and the record's fields are structured data
 * (values escape `"`, `\` and `]`); an empty element is left out, and `-` stands for none.
 * A line feed inside the message or a structured-data value is written as `\n` so one record stays one line.
 */
export function syslog(options: SyslogOptions = {}): TextLogEncoder {
  const facility = SYSLOG_FACILITIES.indexOf((options.facility ?? 'user') as (typeof SYSLOG_FACILITIES)[number]);
  if (facility < 0) throw new RangeError(`unknown syslog facility "${options.facility}"`);
  const header = ` ${nil(options.hostname ?? osHostname())} ${nil(options.app_name ?? 'svc')} - - `;
  const iso = isoMillisecondsText();
  return logLines({
    series: (series) => element('labels', series.labels),
    head: (ms, severity) =>
      `<${facility * 8 + SEVERITY_CODES[Object.hasOwn(SEVERITY_CODES, severity) ? severity : 'info']!}>1 ${iso(ms)}${header}`,
    // Whole messages only when a piece has a line feed (its CR may end the piece before) or a lone surrogate
    // (that may pair across).
    messagePiece: (text) => (text.includes('\n') || LONE_SURROGATE.test(text) ? undefined : text),
    message: oneLine,
    fieldValue: escapeParam,
    fields: (names) => ({
      before: names.map((name, k) => `${k === 0 ? `[fields@${ENTERPRISE_NUMBER}` : '"'} ${paramName(name)}="`),
      after: names.length === 0 ? '' : '"]',
    }),
    context: (context) => element('trace', { span_id: context.spanId, trace_id: context.traceId }),
    line(line) {
      line.head();
      const data = line.written;
      line.series();
      line.fields();
      line.context();
      line.put(line.written === data ? NO_DATA : SPACE);
      line.message();
      line.put(LF);
    },
  });
}

/** One SD-ELEMENT, or nothing when there are no parameters. */
function element(name: string, params: Readonly<Record<string, string>>): string {
  const keys = Object.keys(params).sort();
  if (keys.length === 0) return '';
  return `[${name}@${ENTERPRISE_NUMBER}${keys.map((k) => ` ${paramName(k)}="${escapeParam(params[k]!)}"`).join('')}]`;
}

/**
 * A PARAM-NAME (an SD-NAME): 1 to 32 printable US-ASCII characters other than `=`, space, `]` and `"`. Longer names
 * are cut and other characters become `_`, since a receiver drops the whole structured data of a message with one
 * bad name (rsyslog's mmpstrucdata does); two names made alike are allowed, as an SD-PARAM may repeat.
 */
function paramName(name: string): string {
  return name.replace(/[^\x21-\x7e]|[="\]]/gu, '_').slice(0, 32) || '_';
}

/** A PARAM-VALUE: `"`, `\` and `]` escaped, on one line as a message is (a line feed would end the record). */
function escapeParam(value: string): string {
  return oneLine(value.replace(/["\\\]]/g, '\\$&'));
}

/** Text with each line feed (and the CR before it) written as the two characters `\n`. */
function oneLine(text: string): string {
  return text.replace(/\r?\n/g, '\\n');
}

/** A header field, or the NILVALUE `-` when empty. */
function nil(value: string): string {
  return value === '' ? '-' : value.replace(/\s/g, '_');
}
