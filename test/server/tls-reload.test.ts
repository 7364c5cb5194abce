import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generate } from 'selfsigned';
import { ServerProcess } from '../helpers/server-process.js';

/** How long a reload may take to show on a busy machine; the test polls, it does not time. */
const RELOAD_DEADLINE_MS = 30_000;

async function certificatePair(commonName: string) {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  return { cert: pems.cert, key: pems.private, fingerprint: new X509Certificate(pems.cert).fingerprint256 };
}

interface Seen {
  status: number;
  fingerprint: string;
  /** The client's port: the same one means the same connection. */
  localPort: number;
}

function get(port: number, agent: https.Agent | false): Promise<Seen> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, path: '/healthz', agent, rejectUnauthorized: false }, (response) => {
        const socket = response.socket as TLSSocket;
        const seen = {
          status: response.statusCode ?? 0,
          fingerprint: String(socket.getPeerCertificate().fingerprint256),
          localPort: socket.localPort!,
        };
        response.resume();
        response.on('end', () => resolve(seen));
      })
      .on('error', reject);
  });
}

describe('SIGHUP reloads the TLS certificate', () => {
  let dir: string;
  let server: ServerProcess;
  let certFile: string;
  let keyFile: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'training-api-tls-reload-'));
    certFile = join(dir, 'cert.pem');
    keyFile = join(dir, 'key.pem');
  });
  after(async () => {
    await server?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  async function install(pair: { cert: string; key: string }) {
    await writeFile(certFile, pair.cert);
    await writeFile(keyFile, pair.key);
  }

  /** New connections until one presents `fingerprint`. */
  async function newConnectionsSee(fingerprint: string): Promise<void> {
    const deadline = Date.now() + RELOAD_DEADLINE_MS;
    let seen: Seen;
    do {
      seen = await get(server.port, false);
      if (seen.fingerprint === fingerprint) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } while (Date.now() < deadline);
    assert.equal(seen.fingerprint, fingerprint, `new connections still see the old certificate:\n${server.output}`);
  }

  it('presents the new certificate to new connections and keeps open ones', async () => {
    const [first, second] = [await certificatePair('first.example'), await certificatePair('second.example')];
    await install(first);
    server = await ServerProcess.start({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, LOG_LEVEL: 'info' });
    const kept = new https.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await get(server.port, kept);
      assert.deepEqual([before.status, before.fingerprint], [200, first.fingerprint]);

      await install(second);
      server.signal('SIGHUP');
      await newConnectionsSee(second.fingerprint);
      assert.match(server.output, /TLS certificate reloaded/);

      // The connection opened before the reload is still open and still answers.
      const after = await get(server.port, kept);
      assert.deepEqual([after.status, after.fingerprint, after.localPort], [200, first.fingerprint, before.localPort]);
      assert.ok(server.running);
    } finally {
      kept.destroy();
    }
  });

  it('keeps the current certificate when the new files do not hold a usable pair', async () => {
    const current = (await get(server.port, false)).fingerprint;
    await writeFile(keyFile, 'not a key\n');
    server.signal('SIGHUP');
    const deadline = Date.now() + RELOAD_DEADLINE_MS;
    while (!/TLS certificate not reloaded/.test(server.output) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.match(server.output, /TLS certificate not reloaded; the previous one stays in use/);
    assert.ok(server.running);
    const seen = await get(server.port, false);
    assert.deepEqual([seen.status, seen.fingerprint], [200, current]);
  });
});
