import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CertificateAndKey {
  certificatePem: string;
  keyPem: string;
}

/** A server certificate and the CA that signed it. */
export interface CaSignedCertificate extends CertificateAndKey {
  caPem: string;
}

const P256_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'];

/**
 * A fresh self-signed certificate for localhost, as LND and clnrest make for themselves: the stand-ins
 * serve real TLS, so the backends' certificate pinning is exercised.
 */
export function makeSelfSignedCertificate(): CertificateAndKey {
  return inTemporaryDirectory((dir) => {
    const keyFile = join(dir, 'tls.key');
    const certificateFile = join(dir, 'tls.cert');
    openssl([
      'req',
      '-x509',
      ...P256_KEY,
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certificateFile,
    ]);
    return { certificatePem: readFileSync(certificateFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8') };
  });
}

/**
 * What Core Lightning's clnrest serves by default: `server.pem`, signed by the node's own `ca.pem`, naming
 * only the host `cln` (not the address it is reached at), so host names play no part in accepting it.
 */
export function makeCaSignedCertificate(): CaSignedCertificate {
  return inTemporaryDirectory((dir) => {
    const file = (name: string) => join(dir, name);
    openssl([
      'req',
      '-x509',
      ...P256_KEY,
      '-subj',
      '/CN=cln Root CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout',
      file('ca-key.pem'),
      '-out',
      file('ca.pem'),
    ]);
    openssl([
      'req',
      '-new',
      ...P256_KEY,
      '-subj',
      '/CN=cln',
      '-keyout',
      file('server-key.pem'),
      '-out',
      file('server.csr'),
    ]);
    writeFileSync(file('server.ext'), 'basicConstraints=CA:FALSE\nsubjectAltName=DNS:cln\n');
    openssl([
      'x509',
      '-req',
      '-in',
      file('server.csr'),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca-key.pem'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      file('server.ext'),
      '-out',
      file('server.pem'),
    ]);
    return {
      caPem: readFileSync(file('ca.pem'), 'utf8'),
      certificatePem: readFileSync(file('server.pem'), 'utf8'),
      keyPem: readFileSync(file('server-key.pem'), 'utf8'),
    };
  });
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

function inTemporaryDirectory<T>(make: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'lnswap-tls-'));
  try {
    return make(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
