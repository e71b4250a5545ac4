import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireBinary } from './backends/binaries.js';

/** A certificate made for a spec: the paths of its PEM files, and the certificate's text. */
export interface SelfSigned {
  readonly cert: string;
  readonly key: string;
  readonly pem: string;
}

/**
 * A self-signed certificate of 127.0.0.1 (its own authority, as a private CA's server has one), made by openssl
 * into `dir` as cert.pem and key.pem; `altNames` (openssl's subjectAltName list) makes it out to other names.
 */
export function selfSigned(dir: string, altNames = 'IP:127.0.0.1'): SelfSigned {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  // Piped: openssl's key generation progress is no test output.
  execFileSync(
    requireBinary('openssl', 'openssl'),
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'],
      ...['-addext', `subjectAltName=${altNames}`, '-keyout', key, '-out', cert],
    ],
    { stdio: 'pipe' },
  );
  return { cert, key, pem: readFileSync(cert, 'utf8') };
}
