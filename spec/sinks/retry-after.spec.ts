import { expect } from 'chai';
import { retryAfterOf } from '../../lib/sinks/http/endpoint.js';

describe('Retry-After, as RFC 9110 writes it', () => {
  const now = Date.UTC(1994, 10, 6, 8, 49, 30);

  it('delay-seconds: digits only', () => {
    expect(retryAfterOf('7', now)).to.equal(7000);
    expect(retryAfterOf('0', now)).to.equal(0);
    expect(retryAfterOf('007', now)).to.equal(7000);
  });

  it('an HTTP-date: the time until then, in each of its three forms, all GMT; none for a date past', () => {
    expect(retryAfterOf('Sun, 06 Nov 1994 08:49:37 GMT', now)).to.equal(7000);
    expect(retryAfterOf('Sunday, 06-Nov-94 08:49:37 GMT', now)).to.equal(7000);
    // asctime names no zone: GMT, whatever the machine's (one east of it here, so that local time would differ).
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo';
    try {
      expect(retryAfterOf('Sun Nov  6 08:49:37 1994', now)).to.equal(7000);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    expect(retryAfterOf('Sun, 06 Nov 1994 08:49:00 GMT', now)).to.equal(0);
  });

  it('anything else is ignored (the backoff applies), though JavaScript reads it as a number or a date', () => {
    for (const header of [
      '1e3',
      '0x10',
      '1.5',
      '-1',
      '+5',
      'Infinity',
      '',
      'soon 5',
      '2026-12-01',
      '1 2',
      'Sun, 06 Nov 1994',
    ])
      expect(retryAfterOf(header, now), JSON.stringify(header)).to.equal(undefined);
    expect(retryAfterOf(undefined, now)).to.equal(undefined);
  });

  it('a huge one is read as 2^31 s, as an HTTP cache reads delta-seconds, not Infinity', () => {
    expect(retryAfterOf('9'.repeat(400), now)).to.equal(2 ** 31 * 1000);
    expect(retryAfterOf('2147483649', now)).to.equal(2 ** 31 * 1000);
    expect(retryAfterOf('360000', now)).to.equal(360_000_000);
    expect(retryAfterOf('Fri, 31 Dec 9999 23:59:59 GMT', now)).to.equal(2 ** 31 * 1000);
  });
});
