import { X509Certificate } from 'node:crypto';
import type { Server as TlsServer } from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import { TLS_PROFILE, type CertificatePair } from './tls-certificate.js';

interface ReloadableTls {
  server: TlsServer;
  /** Reads the certificate and key again (from TLS_CERT_FILE and TLS_KEY_FILE, or the self-signed pair). */
  load(): Promise<CertificatePair>;
}

/**
 * On SIGHUP (which would otherwise end the process), reads the certificate and key again and gives them
 * to the TLS server: connections made from then on present the new certificate, open ones keep theirs. A
 * pair that cannot be read or used leaves the previous one in use. Behind a TLS-terminating proxy there is
 * nothing to reload. Returns the function that stops listening for SIGHUP.
 */
export function reloadCertificateOnHangup(log: FastifyBaseLogger, tls: ReloadableTls | undefined): () => void {
  const reload = async () => {
    if (!tls) {
      log.info('SIGHUP: TLS is terminated by the proxy; nothing to reload');
      return;
    }
    try {
      const pair = await tls.load();
      // setSecureContext replaces the whole context, so the protocol profile is given again with the pair.
      tls.server.setSecureContext({ ...TLS_PROFILE, ...pair });
      const certificate = new X509Certificate(pair.cert);
      log.info({ subject: certificate.subject, validTo: certificate.validTo, fingerprint: certificate.fingerprint256 }, 'TLS certificate reloaded');
    } catch (error) {
      log.error({ err: error }, 'TLS certificate not reloaded; the previous one stays in use');
    }
  };
  const onHangup = () => void reload();
  process.on('SIGHUP', onHangup);
  return () => process.off('SIGHUP', onHangup);
}
