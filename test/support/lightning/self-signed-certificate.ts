import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CertificateAndKey {
  certificatePem: string;
  keyPem: string;
}

/**
 * A fresh self-signed certificate for localhost, as LND and clnrest make for themselves: the stand-ins
 * serve real TLS, so the backends' certificate pinning is exercised.
 */
export function makeSelfSignedCertificate(): CertificateAndKey {
  const dir = mkdtempSync(join(tmpdir(), 'lnswap-tls-'));
  try {
    const keyFile = join(dir, 'tls.key');
    const certificateFile = join(dir, 'tls.cert');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        keyFile,
        '-out',
        certificateFile,
      ],
      { stdio: 'ignore' },
    );
    return { certificatePem: readFileSync(certificateFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
