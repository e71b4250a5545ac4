import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../lib/server/logger.js';
import { isSecretHeader, MASK, redactAnswer, redactConfig, redactText, sentSecrets } from '../lib/redact.js';

describe('redact', () => {
  describe('redactText', () => {
    it('masks the password of URL userinfo and keeps the user, host and path', () => {
      expect(redactText('http://admin:hunter2@vm:8428/api/v1/import')).to.equal(
        `http://admin:${MASK}@vm:8428/api/v1/import`,
      );
    });

    it('masks the whole userinfo up to its last @, as URL parsers split it, so a password with an @ shows nothing', () => {
      for (const url of ['http://user:s3c@ret@127.0.0.1:1/', 'http://user:s3cret@127.0.0.1:1@evil/x']) {
        const { host } = new URL(url);
        expect(redactText(url)).to.equal(`http://user:${MASK}@${host}/${url.endsWith('x') ? 'x' : ''}`);
      }
    });

    it('masks user:password@ written without a scheme, as an address of a tcp, broker or gRPC sink would carry it', () => {
      expect(redactText('tcp.address: expected host:port, got "user:s3cret@127.0.0.1:1"')).to.equal(
        `tcp.address: expected host:port, got "user:${MASK}@127.0.0.1:1"`,
      );
      expect(redactText('app:pw@kafka:9092')).to.equal(`app:${MASK}@kafka:9092`);
      for (const text of ['mail ann@example.com', 'at 10:30 on host a', 'tcp 127.0.0.1:514'])
        expect(redactText(text)).to.equal(text);
    });

    it('masks a lone user name, which is often a token', () => {
      expect(redactText('https://ghp_abc123@example.com/x')).to.equal(`https://${MASK}@example.com/x`);
    });

    it('masks every URL of a message, and Bearer and Basic credentials', () => {
      const text =
        'POST http://a:b@h1/x failed, then https://c:d@h2 (header Authorization: Bearer s3cr3t.tok-en, Basic dXNlcjpw)';
      const shown = redactText(text);
      for (const secret of [':b@', ':d@', 's3cr3t', 'dXNlcjpw']) expect(shown).not.to.include(secret);
      expect(shown).to.include('http://a:***@h1/x').and.include('Bearer ***').and.include('Basic ***');
    });

    it('leaves text without credentials as it is, including an @ in a path or query', () => {
      for (const text of [
        'http://host:9090/api',
        'tcp 127.0.0.1:514',
        'mail me at ann@example.com',
        'http://h/a?x=@b',
      ]) {
        expect(redactText(text)).to.equal(text);
      }
    });
    it('masks the values of query parameters that name a credential, and leaves the others as written', () => {
      expect(redactText('http://influx:8086/write?db=metrics&u=ann&p=hunter2&precision=ms')).to.equal(
        `http://influx:8086/write?db=metrics&u=ann&p=${MASK}&precision=ms`,
      );
      expect(
        redactText('POST https://h/push?api_key=abc123&access_token=t0k#top failed; see https://h/x?tenant=a'),
      ).to.equal(`POST https://h/push?api_key=${MASK}&access_token=${MASK}#top failed; see https://h/x?tenant=a`);
      expect(redactText('https://acct.blob/c?sv=2022&sig=Zm9v%3D&se=2027')).to.equal(
        `https://acct.blob/c?sv=2022&sig=${MASK}&se=2027`,
      );
      expect(redactConfig({ url: 'http://h/?Token=s3cret' })).to.deep.equal({ url: `http://h/?Token=${MASK}` });
      for (const text of ['http://h/api/v1/query?query=up&time=1', 'http://h/?design=a&keep=', 'a?b=c'])
        expect(redactText(text)).to.equal(text);
    });

    it('keeps the punctuation after a masked parameter, and a masked text as it is when masked again', () => {
      // svc new --from masks its message, and the error: line masks it again.
      const once = redactText('--from: cannot read http://u:pw@h/m?api_key=k3y: HTTP 401 Unauthorized');
      expect(once).to.equal(`--from: cannot read http://u:${MASK}@h/m?api_key=${MASK}: HTTP 401 Unauthorized`);
      expect(redactText(once)).to.equal(once);
    });
  });

  describe('isSecretHeader', () => {
    it("is true for names with auth, token, key, secret, password, credential or signature, in any case, and Honeycomb's and DSN headers", () => {
      for (const name of [
        'Authorization',
        'proxy-authorization',
        'X-Api-Key',
        'x-auth-token',
        'Client-Secret',
        'X-Password',
        'X-Auth',
        'Authentication',
        'X-Goog-Credential',
        'X-Signature',
        // OTLP backends' API keys under names that say none of those.
        'x-honeycomb-team',
        'X-Honeycomb-Team',
        'uptrace-dsn',
      ]) {
        expect(isSecretHeader(name), name).to.equal(true);
      }
    });

    it('is false for ordinary headers', () => {
      for (const name of ['Content-Type', 'X-Scope-OrgID', 'Accept'])
        expect(isSecretHeader(name), name).to.equal(false);
    });

    it('is true for Cookie, whose value is a session credential (it was shown as written)', () => {
      for (const name of ['Cookie', 'cookie']) expect(isSecretHeader(name), name).to.equal(true);
      expect(redactConfig({ headers: { Cookie: 'session=c00kie-value' } })).to.deep.equal({
        headers: { Cookie: MASK },
      });
    });
  });

  describe('redactConfig', () => {
    it('masks secret headers, passwords and URL credentials in a copy, leaving the rest and the original intact', () => {
      const sink = {
        type: 'http_push',
        url: 'http://admin:hunter2@vm:8428/x',
        headers: { Authorization: 'Bearer t0k', 'X-Scope-OrgID': 'team-a', 'X-Api-Key': 'k3y' },
        sasl: { mechanism: 'plain', username: 'svc', password: 'pw' },
        brokers: ['kafka://u:p@b1:9092', 'b2:9092'],
        key: 'host',
        batch_size: 512,
      };
      const original = structuredClone(sink);
      expect(redactConfig(sink)).to.deep.equal({
        type: 'http_push',
        url: 'http://admin:***@vm:8428/x',
        headers: { Authorization: MASK, 'X-Scope-OrgID': 'team-a', 'X-Api-Key': MASK },
        sasl: { mechanism: 'plain', username: 'svc', password: MASK },
        brokers: ['kafka://u:***@b1:9092', 'b2:9092'],
        key: 'host',
        batch_size: 512,
      });
      expect(sink).to.deep.equal(original);
    });
  });

  describe("a receiver's answer", () => {
    it('masks the credentials a sink sent wherever the answer repeats them, longest first', () => {
      const secrets = sentSecrets(
        { Authorization: 'Bearer tok-1234', 'X-Api-Key': 'k3y-value', 'X-Scope-OrgID': 'team-a', 'x-token': 'abc' },
        new URL('http://svc:p%40ss@host/push?tenant=team-a&token=q%2Bsecret'),
      );
      // The tenant is no secret; a three-character token is too short to look for in text.
      expect(secrets).to.have.members([
        'Bearer tok-1234',
        'tok-1234',
        'k3y-value',
        'p%40ss',
        'p@ss',
        'q%2Bsecret',
        'q+secret',
        Buffer.from('svc:p@ss').toString('base64'),
      ]);
      expect(redactAnswer('got tok-1234, k3y-value, p@ss and p%40ss for team-a', secrets)).to.equal(
        `got ${MASK}, ${MASK}, ${MASK} and ${MASK} for team-a`,
      );
      expect(redactAnswer('header was "Bearer tok-1234"', secrets)).to.equal(`header was "${MASK}"`);
      // What redactText masks anyway, whatever was sent.
      expect(redactAnswer('try Bearer other-token', [])).to.equal(`try Bearer ${MASK}`);
    });
  });

  describe('the server logger', () => {
    it('masks secrets in messages, fields and serialized errors', () => {
      const out: string[] = [];
      const logger = createLogger(
        'info',
        new Writable({ write: (chunk, _, done) => (out.push(String(chunk)), done()) }),
      );
      logger.warn('sink http://a:pw1@h is slow');
      logger.info({ sink: { url: 'http://b:pw2@h', headers: { authorization: 'Bearer pw3' } } }, 'started');
      logger.error({ err: new Error('POST http://c:pw4@h failed') }, 'sink failed');
      const text = out.join('');
      for (const secret of ['pw1', 'pw2', 'pw3', 'pw4']) expect(text).not.to.include(secret);
      expect(out).to.have.length(3);
      expect(JSON.parse(out[2]!).err.message).to.equal('POST http://c:***@h failed');
    });
  });
});
