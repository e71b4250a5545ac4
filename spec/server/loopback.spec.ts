import { expect } from 'chai';
import { isLoopback } from '../../lib/server/loopback.js';

describe('isLoopback: the one notion of a host only this machine reaches', () => {
  it('is true for localhost, 127.0.0.0/8 and ::1, also IPv4-mapped', () => {
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])
      expect(isLoopback(host), host).to.equal(true);
  });

  it('is false for other addresses, for every interface (0.0.0.0, ::) and for names', () => {
    for (const host of [
      '10.0.0.1',
      '192.168.1.1',
      '0.0.0.0',
      '::',
      '::ffff:10.0.0.1',
      'example.com',
      '127.0.0.1.example.com',
    ])
      expect(isLoopback(host), host).to.equal(false);
  });
});
