import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../lib/config-error.js';

export interface CertificatePair {
  key: string;
  cert: string;
}

const VALIDITY_YEARS = 10;

export async function ensureSelfSignedCertificate(dir: string): Promise<CertificatePair & { generated: boolean }> {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');

  const existing = await readPairIfPresent(certFile, keyFile);
  if (existing) return { ...existing, generated: false };

  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate);
  notAfterDate.setFullYear(notAfterDate.getFullYear() + VALIDITY_YEARS);

  // Loaded here, when a certificate is made: with its X.509 and ASN.1 libraries it is ~80 modules every start would load.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      // ECDSA keys sign the handshake; keyEncipherment only applies to RSA.
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });

  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(keyFile, pems.private, { mode: 0o600 });
  await writeFile(certFile, pems.cert, { mode: 0o644 });
  // The creation mode is filtered by the umask and ignored when a lone key.pem already existed.
  await chmod(keyFile, 0o600);
  await chmod(certFile, 0o644);
  return { key: pems.private, cert: pems.cert, generated: true };
}

/** Reads the PEM files that TLS_CERT_FILE and TLS_KEY_FILE name; a file that cannot serve is a setting mistake. */
export async function loadCertificate(certFile: string, keyFile: string): Promise<CertificatePair> {
  const [cert, key] = await Promise.all([readPem(certFile, 'TLS_CERT_FILE'), readPem(keyFile, 'TLS_KEY_FILE')]);
  try {
    new X509Certificate(cert);
  } catch {
    throw new ConfigError(`TLS_CERT_FILE "${certFile}" does not hold a PEM certificate`);
  }
  try {
    createPrivateKey(key);
  } catch {
    throw new ConfigError(`TLS_KEY_FILE "${keyFile}" does not hold an unencrypted PEM private key`);
  }
  return { key, cert };
}

async function readPairIfPresent(certFile: string, keyFile: string): Promise<CertificatePair | null> {
  try {
    const [key, cert] = await Promise.all([readFile(keyFile, 'utf8'), readFile(certFile, 'utf8')]);
    return { key, cert };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function readPem(file: string, setting: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`Cannot read ${setting} "${file}": ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Mozilla's "intermediate" profile: TLS 1.3, and TLS 1.2 with ECDHE key exchange and AEAD ciphers
 * only (AES-GCM, ChaCha20-Poly1305); no CBC, SHA-1, CCM or ARIA suites. The client picks among them.
 */
export const TLS_PROFILE = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  ecdhCurve: 'X25519:prime256v1:secp384r1',
  honorCipherOrder: false,
} as const;
