import { expect } from 'chai';
import { jsonLinesLogs } from '../../lib/encoders/json-lines-logs.js';
import { syslog } from '../../lib/encoders/syslog.js';
import { createLogEncoder } from '../../lib/encoders/index.js';
import { logBatch, textOf as text } from '../support/batches.js';

const AT = Date.parse('2026-03-04T05:06:07.089Z');

describe('json_lines log encoder', () => {
  it('writes timestamp, severity, message, labels and fields in that order, sorted, escaped', () => {
    const out = text(
      jsonLinesLogs().encode(
        logBatch(
          [{ severity: 'warn', message: 'say "hi"\n', fields: { z: '1', a: '2' }, labels: { pod: 'p0', app: 'x' } }],
          AT,
        ),
      ),
    );
    expect(out).to.equal(
      '{"timestamp":"2026-03-04T05:06:07.089Z","severity":"warn","message":"say \\"hi\\"\\n","labels":{"app":"x","pod":"p0"},"fields":{"a":"2","z":"1"}}\n',
    );
    expect(JSON.parse(out)).to.deep.equal({
      timestamp: '2026-03-04T05:06:07.089Z',
      severity: 'warn',
      message: 'say "hi"\n',
      labels: { app: 'x', pod: 'p0' },
      fields: { a: '2', z: '1' },
    });
  });

  it('moves the timestamp with each record', () => {
    const lines = text(
      jsonLinesLogs().encode(
        logBatch(
          [
            { severity: 'info', message: 'a' },
            { severity: 'info', message: 'b' },
          ],
          AT,
        ),
      ),
    )
      .trimEnd()
      .split('\n');
    expect(lines.map((l) => JSON.parse(l).timestamp)).to.deep.equal([
      '2026-03-04T05:06:07.089Z',
      '2026-03-04T05:06:07.090Z',
    ]);
  });
});

describe('syslog encoder', () => {
  it('writes RFC 5424 lines: PRI from facility and severity, header, structured data, message', () => {
    const encoder = syslog({ hostname: 'web-1', app_name: 'shop', facility: 'local3' });
    const out = text(
      encoder.encode(
        logBatch(
          [
            {
              severity: 'error',
              message: 'payment failed',
              labels: { env: 'prod', app: 'x' },
              fields: { order: '42' },
            },
            { severity: 'info', message: 'plain' },
          ],
          AT,
        ),
      ),
    );
    expect(out).to.equal(
      '<155>1 2026-03-04T05:06:07.089Z web-1 shop - - [labels@32473 app="x" env="prod"][fields@32473 order="42"] payment failed\n' +
        '<158>1 2026-03-04T05:06:07.090Z web-1 shop - - - plain\n',
    );
  });

  it('maps every severity, defaults to facility user and app svc', () => {
    const severities = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
    const out = text(
      syslog({ hostname: 'h' }).encode(logBatch(severities.map((severity) => ({ severity, message: 'm' })))),
    );
    expect(
      out
        .trimEnd()
        .split('\n')
        .map((l) => l.split(' ')[0]),
    ).to.deep.equal(['<15>1', '<15>1', '<14>1', '<12>1', '<11>1', '<10>1']);
    expect(out).to.include(' h svc - - - m');
  });

  it('escapes structured data values and keeps one record on one line', () => {
    const out = text(
      syslog({ hostname: 'h' }).encode(
        logBatch([
          {
            severity: 'info',
            message: 'two\nlines',
            labels: { app: 'a\r\nb' },
            fields: { q: 'a"b\\c]d', stack: 'at f()\nat g()' },
          },
        ]),
      ),
    );
    expect(out).to.equal(
      '<14>1 1970-01-01T00:00:00.000Z h svc - - [labels@32473 app="a\\nb"][fields@32473 q="a\\"b\\\\c\\]d" stack="at f()\\nat g()"] two\\nlines\n',
    );
  });

  it('writes every label and field name as a valid SD-NAME: at most 32 printable characters, none of = space ] "', () => {
    const long = 'a_label_name_longer_than_32_characters';
    const out = text(
      syslog({ hostname: 'h' }).encode(
        logBatch([
          {
            severity: 'info',
            message: 'm',
            labels: { [long]: 'v' },
            fields: { 'user id': '1', 'a=b"c]d': '2', zoë: '3', '': '4' },
          },
        ]),
      ),
    );
    expect(out).to.equal(
      '<14>1 1970-01-01T00:00:00.000Z h svc - - [labels@32473 a_label_name_longer_than_32_char="v"]' +
        '[fields@32473 _="4" a_b_c_d="2" user_id="1" zo_="3"] m\n',
    );
    const names = [...out.matchAll(/ ([^ =]+)="/g)].map((m) => m[1]!);
    for (const name of names) expect(name).to.match(/^[\x21-\x7e]{1,32}$/);
  });

  it('is chosen by createLogEncoder, which refuses metric-only encoders', () => {
    expect(
      text(createLogEncoder({ type: 'syslog', hostname: 'h' }).encode(logBatch([{ severity: 'info', message: 'x' }]))),
    ).to.match(/^<14>1 /);
    expect(() => createLogEncoder({ type: 'metrics_text' })).to.throw(/cannot encode log records/);
  });
});
