import { labelsJson } from './json-lines.js';
import { logLines, type TextLogEncoder } from './log-lines.js';

/**
 * JSON Lines encoder of log records: one object per line,
 * `{"timestamp":"…","severity":"info","message":"…","labels":{…},"fields":{…}}`, fields in
 * that order, labels and fields sorted by key, timestamp RFC 3339 UTC with milliseconds.
 */
export function jsonLinesLogs(): TextLogEncoder {
  return logLines({
    series: (series) => `,"labels":${labelsJson(series.labels)},"fields":`,
    stamp: (ms) => `{"timestamp":"${new Date(ms).toISOString()}","severity":"`,
    line: (stamp, labels, severity, message, fields) => `${stamp}${severity}","message":${JSON.stringify(message)}${labels}${labelsJson(fields)}}\n`,
  });
}
