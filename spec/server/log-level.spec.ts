import { expect } from 'chai';
import { logLevelOf } from '../../lib/server/log-level.js';
import { spawnServerProcess } from '../support/server-process.js';

describe('svc-server log level (SVC_LOG_LEVEL, else RUST_LOG, else info)', () => {
  it('takes SVC_LOG_LEVEL first, then the first level RUST_LOG names, then info', () => {
    expect(logLevelOf({ SVC_LOG_LEVEL: 'debug', RUST_LOG: 'error' })).to.equal('debug');
    expect(logLevelOf({ SVC_LOG_LEVEL: ' WARNING ' })).to.equal('warn');
    expect(logLevelOf({ RUST_LOG: 'svc=trace,hyper=info' })).to.equal('trace');
    expect(logLevelOf({ RUST_LOG: 'off' })).to.equal('silent');
    expect(logLevelOf({ SVC_LOG_LEVEL: '', RUST_LOG: 'error' })).to.equal('error');
    expect(logLevelOf({})).to.equal('info');
  });

  it('skips a RUST_LOG that names no level (it may be meant for another program)', () => {
    expect(logLevelOf({ RUST_LOG: 'my_crate' })).to.equal('info');
  });

  it('refuses an SVC_LOG_LEVEL that names no level, naming the variable, instead of logging at info', () => {
    expect(() => logLevelOf({ SVC_LOG_LEVEL: 'verbose', RUST_LOG: 'debug' })).to.throw(
      'SVC_LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got "verbose"',
    );
  });

  it('stops svc-server at start with exit code 2 for such an SVC_LOG_LEVEL', async function () {
    this.timeout(20_000);
    const child = spawnServerProcess({ env: { SVC_LOG_LEVEL: 'verbose' } });
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
    const stopper = setTimeout(() => child.kill(), 10_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(stopper);
    expect(code).to.equal(2);
    expect(out).to.equal('');
    expect(err).to.match(/^Usage Error: SVC_LOG_LEVEL: expected one of trace, .*, got "verbose"/);
  });
});
