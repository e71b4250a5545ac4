import { expect } from 'chai';
import { certificateCodeOf, networkError, SinkError } from '../../../lib/sinks/core/errors.js';
import { collectGarbage } from '../../support/memory.js';
import { settle } from '../../support/clock.js';

const failure = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('networkError', () => {
  it('a failed certificate check is final, and says what to do; a refused connection is retried', () => {
    const said = (code: string, message?: string) => {
      const error = networkError('otlp_http', 'collector:4318', 'collector', failure(code, message));
      return { retryable: error.retryable, message: error.message };
    };
    expect(said('UNABLE_TO_VERIFY_LEAF_SIGNATURE')).to.deep.equal({
      retryable: false,
      message:
        'otlp_http sink: the TLS certificate of collector:4318 is not signed by a CA this machine trusts, or the server does not send its intermediate certificates: for a private CA, name its PEM file in the environment variable NODE_EXTRA_CA_CERTS',
    });
    expect(said('CERT_HAS_EXPIRED')).to.deep.equal({
      retryable: false,
      message:
        "otlp_http sink: the TLS certificate of collector:4318 has expired: renew it on the server (or check this machine's clock)",
    });
    const altname =
      "Hostname/IP does not match certificate's altnames: Host: collector. is not in the cert's altnames: DNS:other";
    expect(said('ERR_TLS_CERT_ALTNAME_INVALID', altname)).to.deep.equal({
      retryable: false,
      message: `otlp_http sink: the TLS certificate of collector:4318 is not made out to "collector" (${altname}): address the server by a name its certificate holds`,
    });
    for (const code of [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      'CERT_NOT_YET_VALID',
    ])
      expect(said(code).retryable, code).to.equal(false);
    expect(said('ECONNREFUSED').retryable).to.equal(true);
  });

  it("certificateCodeOf: Node's words of each failed certificate check give its code (grpc-js keeps only the words)", () => {
    const words = {
      'self-signed certificate': 'DEPTH_ZERO_SELF_SIGNED_CERT',
      'self-signed certificate in certificate chain': 'SELF_SIGNED_CERT_IN_CHAIN',
      'unable to get local issuer certificate': 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      'unable to verify the first certificate': 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'certificate has expired': 'CERT_HAS_EXPIRED',
      'certificate is not yet valid': 'CERT_NOT_YET_VALID',
      "Hostname/IP does not match certificate's altnames: IP: 10.0.0.1 is not in the cert's list: ":
        'ERR_TLS_CERT_ALTNAME_INVALID',
    };
    for (const [said, code] of Object.entries(words))
      expect(certificateCodeOf(`No connection established. Last error: Error: ${said}. Resolution note:`)).to.equal(
        code,
      );
    expect(
      certificateCodeOf('No connection established. Last error: Error: write EPROTO wrong version number'),
    ).to.equal(undefined);
  });
});

/**
 * Whether a 1 MiB body is still held once `made(body)` has made the error that is kept, and that error: the body is
 * dropped, then a full collection runs.
 */
async function bodyHeldBy<E>(made: (body: Uint8Array) => E): Promise<{ held: boolean; kept: E }> {
  let body: Uint8Array | undefined = new Uint8Array(1 << 20);
  const bodyRef = new WeakRef(body);
  const kept = made(body);
  body = undefined;
  // A WeakRef holds its target until the current job ends.
  await settle();
  collectGarbage();
  return { held: bodyRef.deref() !== undefined, kept };
}

describe('SinkError', () => {
  it('keeps nothing of the closures it was made in (the body of the request that failed), nor does its cause', async () => {
    // As the HTTP endpoint makes one: in a callback of the request, whose closure holds the request's body; its
    // cause too, as a client's error is made in a closure of the request (else the cause's half could not fail).
    const made = (body: Uint8Array) => {
      const hangUp = () => new Error(`socket hang up after ${body.length} bytes`);
      const fail = () =>
        new SinkError('http_push', `cannot send ${body.length} bytes`, { cause: hangUp(), retryable: true });
      return fail();
    };
    // Kept, as a sink keeps its last error.
    const { held, kept } = await bodyHeldBy(made);
    expect(held, 'the body, held through the error').to.equal(false);
    expect(kept.message).to.equal('http_push sink: cannot send 1048576 bytes');
  });

  it("nor does its cause's cause (otlp_grpc wraps grpc-js's error so), and a chain of causes that loops ends", async () => {
    const made = (body: Uint8Array) => {
      const refused = () => new Error(`call of ${body.length} bytes refused`);
      const cause = new Error('self-signed certificate', { cause: refused() });
      return new SinkError('otlp_grpc', 'the TLS certificate is not trusted', { cause });
    };
    const { held, kept } = await bodyHeldBy(made);
    expect(held, 'the body, held through the cause of the cause').to.equal(false);
    expect(kept.cause).to.be.an('error');

    const first = new Error('first');
    first.cause = new Error('second', { cause: first });
    expect(new SinkError('http_push', 'looped', { cause: first }).cause).to.equal(first);
  });
});
