import { expect } from 'chai';
import { otlpMessages, statusMessage } from '../../../lib/protocols/otlp.js';
import { exportReceipt } from '../../../lib/sinks/framing/otlp-requests.js';
import type { RecordRequest } from '../../../lib/sinks/framing/record-requests.js';

const encode = (type: 'ExportResponse' | 'Status', value: object): Buffer => {
  const message = otlpMessages().type(type);
  return Buffer.from(message.encode(message.fromObject(value)).finish());
};
const request = { size: 4, bytes: 100, body: new Uint8Array() } as unknown as RecordRequest;
const refusal = (answer: Uint8Array, contentType?: string) =>
  exportReceipt('otlp_http', 'metrics', answer, request, (text) => text, contentType);

describe('OTLP answers', () => {
  it('an ExportResponse cut at the 64 KiB svc keeps of a 2xx body still refuses its records, with the start of its message', () => {
    const answer = encode('ExportResponse', {
      partialSuccess: { rejected: 3, errorMessage: 'bad point; '.repeat(7000) },
    });
    const cut = refusal(answer.subarray(0, 64 * 1024));
    expect(cut?.rejected).to.equal(3);
    expect(cut?.error?.message).to.match(/^otlp_http sink: the collector refused 3 of 4 data points: "bad point; bad/);
    // Said on one line of a reasonable length, as every answer svc repeats, not 64 KiB of it.
    expect(cut?.error?.message).to.match(/…"$/);
    expect(cut?.error?.message.length).to.be.below(300);
    expect(refusal(answer)?.rejected).to.equal(3);
    // Bytes whose first field does not decode are no ExportResponse: the status said all there is.
    expect(refusal(Buffer.from('OK'))).to.equal(undefined);
  });

  it('a message cut inside a character ends before it, not in U+FFFD', () => {
    const status = encode('Status', { code: 3, message: 'é'.repeat(500) });
    const message = statusMessage(status.subarray(0, 800));
    expect(message).to.match(/^é+$/);
    // 8 bytes before the message: 101 bytes hold 46 é and the first byte of the 47th.
    const answer = encode('ExportResponse', { partialSuccess: { rejected: 1, errorMessage: 'é'.repeat(500) } });
    expect(refusal(answer.subarray(0, 101))?.error?.message).to.match(/data points: "é{46}"$/);
  });

  it('OTLP/JSON: only a whole count is one, said at most as the request holds; a message only when it is text; any case of media type', () => {
    const json = (partialSuccess: object, contentType = 'application/json') =>
      refusal(Buffer.from(JSON.stringify({ partialSuccess })), contentType)?.error?.message;
    for (const count of ['1.5', 'Infinity', '0x10', '', ' 2', -1, 1.5, 2 ** 53]) {
      expect(json({ rejectedDataPoints: count }), String(count)).to.equal(undefined);
      // With a message, the message is said, not that the collector took all.
      expect(
        refusal(
          Buffer.from(JSON.stringify({ partialSuccess: { rejectedDataPoints: count, errorMessage: 'bad points' } })),
          'application/json',
        ),
        String(count),
      ).to.deep.equal({
        warning:
          'otlp_http sink: the collector said "bad points" with no count of refused data points svc can read (all are counted as delivered) (said once: later warnings of this sink are not shown)',
      });
    }
    expect(
      refusal(encode('ExportResponse', { partialSuccess: { rejected: -1, errorMessage: 'bad points' } })),
    ).to.deep.equal({
      warning:
        'otlp_http sink: the collector said "bad points" with no count of refused data points svc can read (all are counted as delivered) (said once: later warnings of this sink are not shown)',
    });
    // Only an absent count (null in JSON) or 0 is "took all".
    for (const count of [undefined, null, 0, '0'])
      expect(
        refusal(
          Buffer.from(JSON.stringify({ partialSuccess: { rejectedDataPoints: count, errorMessage: 'w' } })),
          'application/json',
        ),
      ).to.deep.equal({
        warning:
          'otlp_http sink: the collector took all data points but warned: "w" (said once: later warnings of this sink are not shown)',
      });
    expect(json({ rejectedDataPoints: '2', errorMessage: { a: 1 } })).to.equal(
      'otlp_http sink: the collector refused 2 of 4 data points',
    );
    expect(json({ rejectedDataPoints: '99999999999999999999', errorMessage: 'quota' })).to.equal(
      'otlp_http sink: the collector refused 4 of 4 data points: "quota"',
    );
    expect(json({ rejectedDataPoints: 1 }, 'Application/JSON; charset=utf-8')).to.equal(
      'otlp_http sink: the collector refused 1 of 4 data points',
    );
  });

  it("a partial success refusing none is a warning, the collector's message masked and cut", () => {
    const warning = (message: string) =>
      encode('ExportResponse', { partialSuccess: { rejected: 0, errorMessage: message } });
    const answers = (answer: Uint8Array, request: RecordRequest, mask: (text: string) => string) =>
      exportReceipt('otlp_grpc', 'logs', answer, request, mask);
    const mask = (text: string) => text.replaceAll('tok-1', '***');
    const first = answers(warning(`attribute of key tok-1 dropped\n${'x'.repeat(300)}`), request, mask);
    expect(first).to.deep.equal({
      warning:
        'otlp_grpc sink: the collector took all log records but warned: "attribute of key *** dropped" (said once: later warnings of this sink are not shown)',
    });
    // A refusal is still one; no message and no refusal says nothing.
    expect(answers(encode('ExportResponse', { partialSuccess: { rejected: 1 } }), request, mask)?.rejected).to.equal(1);
    expect(answers(encode('ExportResponse', { partialSuccess: {} }), request, mask)).to.equal(undefined);
    // A long one is cut as every answer svc repeats.
    const long = answers(warning('w'.repeat(5000)), request, mask);
    expect(long?.warning?.length).to.be.below(400);
  });
});
