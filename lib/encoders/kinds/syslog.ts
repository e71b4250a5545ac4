import { oneOf, stringWhere, strict, type Codec } from '../../language/combinators.js';
import { SYSLOG_FACILITIES } from '../../language/fields.js';
import { syslog } from '../syslog.js';
import { defineEncoder } from './kind.js';

const PRINTABLE_PATTERN = '^[\\x21-\\x7e]+$';
const PRINTABLE = new RegExp(PRINTABLE_PATTERN);

/** RFC 5424 header fields: printable US-ASCII, no spaces. */
function printable(max: number): Codec<string> {
  return stringWhere(
    (s) => PRINTABLE.test(s) && s.length <= max,
    `printable ASCII without spaces, 1 to ${max} characters`,
    {
      pattern: PRINTABLE_PATTERN,
      maxLength: max,
    },
  );
}

export const syslogKind = defineEncoder({
  type: 'syslog',
  codec: strict(
    'syslog encoder',
    { type: oneOf(['syslog']) },
    {
      hostname: printable(255).describe("The HOSTNAME of every message; default the machine's name."),
      app_name: printable(48).describe('The APP-NAME of every message; default svc.'),
      facility: oneOf(SYSLOG_FACILITIES).describe('The facility of the PRI (RFC 5424 codes 0-23); default user.'),
    },
  ),
  carries: ['logs'],
  logs: (config) => syslog(config),
});
