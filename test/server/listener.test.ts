import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { listenPlain, listenTls, type RunningServer } from '../../src/server/listener.js';
import { ensureSelfSignedCertificate, loadCertificate } from '../../src/server/tls-certificate.js';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function collect(res: http.IncomingMessage, resolve: (reply: Reply) => void, reject: (err: Error) => void): void {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (body += chunk));
  res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
  res.on('error', reject);
}

/** Always connects to 127.0.0.1; `servername` (when given) is the name the certificate is checked against. */
function httpsGet(port: number, ca: string, servername?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: '/ping', ca, servername, agent: false }, (res) => collect(res, resolve, reject)).on('error', reject);
  });
}

function httpGet(port: number, path = '/ping'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => collect(res, resolve, reject)).on('error', reject);
  });
}

function rawClient(port: number, payload?: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      if (payload) socket.end(payload);
      else socket.destroy();
    });
    socket.on('data', () => {});
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
}

function buildApp(key: string, cert: string) {
  const app = Fastify({ https: { key, cert } });
  app.get('/ping', async () => ({ ok: true }));
  return app;
}

describe('TLS certificate', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tls-cert-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('generates once, then reuses the stored pair', async () => {
    const certDir = join(dir, 'nested', 'certs');
    const first = await ensureSelfSignedCertificate(certDir);
    const second = await ensureSelfSignedCertificate(certDir);
    assert.equal(first.generated, true);
    assert.equal(second.generated, false);
    assert.equal(second.cert, first.cert);
    assert.equal(second.key, first.key);
    assert.equal((await stat(join(certDir, 'key.pem'))).mode & 0o777, 0o600);
    assert.equal((await stat(join(certDir, 'cert.pem'))).mode & 0o777, 0o644);
    assert.equal((await stat(certDir)).mode & 0o777, 0o700);

    const x509 = new X509Certificate(first.cert);
    assert.match(x509.subject, /CN=localhost/);
    assert.equal(x509.checkHost('localhost'), 'localhost');
    assert.equal(x509.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(x509.checkIP('::1'), '::1');
    const years = (Date.parse(x509.validTo) - Date.parse(x509.validFrom)) / (365.25 * 24 * 3600 * 1000);
    assert.ok(years > 9.9 && years < 10.1, `validity ${years} years`);
  });

  test('loadCertificate reads files and names the missing one', async () => {
    const certDir = join(dir, 'load');
    const pair = await ensureSelfSignedCertificate(certDir);
    const loaded = await loadCertificate(join(certDir, 'cert.pem'), join(certDir, 'key.pem'));
    assert.deepEqual(loaded, { key: pair.key, cert: pair.cert });
    const missing = join(certDir, 'missing.pem');
    await assert.rejects(loadCertificate(join(certDir, 'cert.pem'), missing), (err: Error) => {
      assert.ok(err.message.includes(missing), err.message);
      return true;
    });
  });
});

describe('listenTls', () => {
  let dir: string;
  let cert: string;
  let server: RunningServer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tls-listener-'));
    const pair = await ensureSelfSignedCertificate(dir);
    cert = pair.cert;
    server = await listenTls(buildApp(pair.key, pair.cert), { host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('listens on a real port when asked for port 0', () => {
    assert.ok(server.port > 0);
  });

  test('serves HTTPS with a certificate valid for 127.0.0.1 and localhost', async () => {
    for (const servername of [undefined, 'localhost']) {
      const reply = await httpsGet(server.port, cert, servername);
      assert.equal(reply.status, 200);
      assert.deepEqual(JSON.parse(reply.body), { ok: true });
    }
  });

  test('answers plain HTTP with a JSON 403', async () => {
    const reply = await httpGet(server.port);
    assert.equal(reply.status, 403);
    assert.equal(reply.body, '{"errors":["HTTPS is required"]}');
    assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
    assert.match(String(reply.headers['x-request-id']), /^[0-9a-f]{32}$/);
    assert.equal(reply.headers.connection, 'close');
  });

  test('survives clients that close at once or send garbage', async () => {
    await rawClient(server.port);
    await rawClient(server.port, Buffer.from([0x16, 0x03, 0x01, 0xff, 0xff, 0x00, 0x13, 0x37]));
    await rawClient(server.port, Buffer.from('\x00\x01garbage\r\n\r\n'));
    await Promise.all(Array.from({ length: 5 }, () => rawClient(server.port)));
    const reply = await httpsGet(server.port, cert);
    assert.equal(reply.status, 200);
  });
});

test('close() ends open connections and frees the port', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tls-close-'));
  try {
    const { key, cert } = await ensureSelfSignedCertificate(dir);
    const server = await listenTls(buildApp(key, cert), { host: '127.0.0.1', port: 0 });

    // A keep-alive HTTPS connection and a silent TCP connection must not hold close() up.
    const agent = new https.Agent({ keepAlive: true, ca: cert });
    const reply = await new Promise<Reply>((resolve, reject) => {
      https.get({ host: '127.0.0.1', port: server.port, path: '/ping', agent }, (res) => collect(res, resolve, reject)).on('error', reject);
    });
    assert.equal(reply.status, 200);
    const idle = net.connect({ host: '127.0.0.1', port: server.port });
    idle.on('error', () => {});
    await new Promise((resolve) => idle.once('connect', resolve));

    await server.close();
    agent.destroy();
    await assert.rejects(
      new Promise<void>((resolve, reject) => {
        const probe = net.connect({ host: '127.0.0.1', port: server.port }, () => {
          probe.destroy();
          resolve();
        });
        probe.on('error', reject);
      }),
      { code: 'ECONNREFUSED' },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('close() lets a request in flight finish before closing its connection', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tls-drain-'));
  try {
    const { key, cert } = await ensureSelfSignedCertificate(dir);
    const app = buildApp(key, cert);
    let arrived!: () => void;
    const handling = new Promise<void>((resolve) => (arrived = resolve));
    app.get('/slow', async () => {
      arrived();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { finished: true };
    });
    const server = await listenTls(app, { host: '127.0.0.1', port: 0 });
    const inFlight = new Promise<Reply>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port: server.port, path: '/slow', ca: cert, agent: false }, (res) => collect(res, resolve, reject))
        .on('error', reject);
    });
    // Closed while the request is in its handler: it must still be answered.
    await handling;
    await server.close();
    const reply = await inFlight;
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { finished: true });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('listenPlain serves plain HTTP on a real port', async () => {
  const app = Fastify();
  app.get('/ping', async () => ({ ok: true }));
  const server = await listenPlain(app, { host: '127.0.0.1', port: 0 });
  try {
    assert.ok(server.port > 0);
    const reply = await httpGet(server.port);
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { ok: true });
  } finally {
    await server.close();
  }
});
