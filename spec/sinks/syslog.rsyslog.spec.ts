import { expect } from 'chai';
import type { Sink } from '../../operators/deliver.js';
import { syslog } from '../../lib/encoders/syslog.js';
import { tcpSink } from '../../lib/sinks/tcp.js';
import { udpSink } from '../../lib/sinks/udp.js';
import { logBatch } from '../support/batches.js';
import { startRsyslog, type ParsedMessage, type Rsyslog } from '../support/backends/rsyslog.js';

const AT = Date.parse('2026-03-01T12:00:00.250Z');

/** Records covering every severity, labels and fields with characters SD values must escape. */
interface LogRecord {
  severity: string;
  message: string;
  labels?: Record<string, string>;
  fields?: Record<string, string>;
  context?: { traceId: string; spanId: string; flags: number };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

const RECORDS: LogRecord[] = [
  {
    severity: 'info',
    message: 'Accepted password for alice from 203.0.113.5',
    labels: { service: 'sshd', pod: 'pod_0' },
    fields: { user: 'alice', ip: '203.0.113.5' },
  },
  {
    severity: 'warn',
    message: 'Failed password for root',
    labels: { service: 'sshd', pod: 'pod_1' },
    fields: { user: 'root' },
  },
  {
    severity: 'error',
    message: 'quote " backslash \\ bracket ] in fields',
    labels: { service: 'sshd' },
    fields: { odd: 'a"b\\c]d' },
    context: { traceId: TRACE_ID, spanId: SPAN_ID, flags: 1 },
  },
  { severity: 'fatal', message: 'two\nlines', labels: { service: 'sshd' }, fields: { stack: 'at f()\nat g()' } },
  { severity: 'debug', message: 'no structured data' },
  { severity: 'trace', message: 'trace maps to debug', context: { traceId: TRACE_ID, spanId: SPAN_ID, flags: 1 } },
];

/** auth facility (4): PRI = 4 × 8 + severity code. */
const PRI: Record<string, string> = { info: '38', warn: '36', error: '35', fatal: '34', debug: '39', trace: '39' };
const SD = [
  '[labels@32473 pod="pod_0" service="sshd"][fields@32473 ip="203.0.113.5" user="alice"]',
  '[labels@32473 pod="pod_1" service="sshd"][fields@32473 user="root"]',
  `[labels@32473 service="sshd"][fields@32473 odd="a\\"b\\\\c\\]d"][trace@32473 span_id="${SPAN_ID}" trace_id="${TRACE_ID}"]`,
  '[labels@32473 service="sshd"][fields@32473 stack="at f()\\nat g()"]',
  '-',
  `[trace@32473 span_id="${SPAN_ID}" trace_id="${TRACE_ID}"]`,
];

/** Sends the records through `sink` as the syslog encoder writes them (one chunk). */
async function send(sink: Sink): Promise<void> {
  const batch = logBatch(RECORDS, AT);
  await sink.write(syslog({ hostname: 'bastion-1', app_name: 'sshd', facility: 'auth' }).encode(batch));
  await sink.close();
}

function expectParsedBack(messages: ParsedMessage[]): void {
  // UDP may reorder in principle: match by message text.
  const byMsg = new Map(messages.map((m) => [m.msg, m]));
  RECORDS.forEach((record, i) => {
    const msg = record.message.replace('\n', '\\n');
    expect(byMsg.get(msg), msg).to.deep.equal({
      pri: PRI[record.severity],
      timereported: new Date(AT + i).toISOString(),
      hostname: 'bastion-1',
      app_name: 'sshd',
      procid: '-',
      msgid: '-',
      structured_data: SD[i],
      msg,
    });
  });
}

describe('syslog into a real rsyslog', function () {
  this.timeout(20_000);
  let rsyslog: Rsyslog;
  beforeEach(async () => (rsyslog = await startRsyslog()));
  afterEach(async () => rsyslog?.stop());

  it('over udp: every RFC 5424 field parsed back', async () => {
    await send(udpSink({ address: `127.0.0.1:${rsyslog.udpPort}` }));
    expectParsedBack(await rsyslog.waitForMessages(RECORDS.length));
  });

  it('over tcp (LF framing): every RFC 5424 field parsed back, in order', async () => {
    await send(tcpSink({ address: `127.0.0.1:${rsyslog.tcpPort}` }));
    const messages = await rsyslog.waitForMessages(RECORDS.length);
    expectParsedBack(messages);
    expect(messages.map((m) => m.msg)).to.deep.equal(RECORDS.map((r) => r.message.replace('\n', '\\n')));
  });

  it('over tcp (octet counting, RFC 6587): every RFC 5424 field parsed back, in order', async () => {
    await send(tcpSink({ address: `127.0.0.1:${rsyslog.tcpPort}`, framing: 'octet_counting' }));
    const messages = await rsyslog.waitForMessages(RECORDS.length);
    expectParsedBack(messages);
    expect(messages.map((m) => m.msg)).to.deep.equal(RECORDS.map((r) => r.message.replace('\n', '\\n')));
  });
});
