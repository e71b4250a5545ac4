import { oneOf, stringWhere, strict, type Codec } from '../../language/combinators.js';
import { SYSLOG_FACILITIES } from '../../language/fields.js';
import { syslog } from '../syslog.js';
import { defineEncoder } from './kind.js';

/** RFC 5424 header fields: printable US-ASCII, no spaces. */
function printable(max: number): Codec<string> {
  return stringWhere((s) => /^[\x21-\x7e]+$/.test(s) && s.length <= max, `printable ASCII without spaces, 1 to ${max} characters`);
}

export const syslogKind = defineEncoder({
  type: 'syslog',
  codec: strict('syslog encoder', { type: oneOf(['syslog']) }, { hostname: printable(255), app_name: printable(48), facility: oneOf(SYSLOG_FACILITIES) }),
  carries: ['logs'],
  logs: (config) => syslog(config),
});
