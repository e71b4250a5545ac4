import { labelsJson } from './json-lines.js';
import { logLines, type TextLogEncoder } from './log-lines.js';
import { isoMillisecondsText } from '../protocols/epoch-text.js';

/** A lone surrogate (in a `u` regexp a pair is one character, not a surrogate). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * JSON Lines encoder of log records: one object per line,
 * `{"timestamp":"…","severity":"info","message":"…","labels":{…},"fields":{…}}`, fields in
 * that order (`"trace_id":"…","span_id":"…"` after the message when the record names a span), labels and fields sorted by key, timestamp RFC 3339 UTC with milliseconds.
 * Strings are escaped as JSON.stringify escapes them.
 */
export function jsonLinesLogs(): TextLogEncoder {
  const iso = isoMillisecondsText();
  return logLines({
    series: (series) => `","labels":${labelsJson(series.labels)},"fields":`,
    // The head also opens the message, and the fields end the line: fewer pieces to copy.
    head: (ms, severity) => `{"timestamp":"${iso(ms)}","severity":"${severity}","message":"`,
    // JSON.stringify escapes a lone surrogate, not a pair: pieces with none escape one by one as the whole would.
    messagePiece: (text) => (LONE_SURROGATE.test(text) ? undefined : jsonContent(text)),
    message: jsonContent,
    fieldValue: jsonContent,
    fields: (names) => ({
      before: names.map((name, k) => `${k === 0 ? '{' : '",'}${JSON.stringify(name)}:"`),
      after: names.length === 0 ? '{}}\n' : '"}}\n',
    }),
    // The message is still open: the series part closes it.
    context: ({ traceId, spanId }) => `","trace_id":"${traceId}","span_id":"${spanId}`,
    line(line) {
      line.head();
      line.message();
      line.context();
      line.series();
      line.fields();
    },
  });
}

/** A string as JSON writes it, without its quotes. */
function jsonContent(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
