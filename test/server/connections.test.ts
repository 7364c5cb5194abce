import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { eventually } from '../helpers/eventually.js';
import { sleep } from '../helpers/load.js';
import { ServerProcess } from '../helpers/server-process.js';

interface Ending {
  /** Everything the server sent before the connection ended. */
  received: string;
  /** The socket error, if the connection did not end cleanly. */
  error?: string;
}

/** Resolves once `socket` has closed, with what it received. */
function ending(socket: net.Socket): Promise<Ending> {
  const result: Ending = { received: '' };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (result.received += chunk));
  socket.on('error', (error: NodeJS.ErrnoException) => (result.error = error.code ?? error.message));
  return once(socket, 'close').then(() => result);
}

/** `localAddress` is passed on to the TCP connection. */
function tlsConnect(port: number, options: tls.ConnectionOptions & { localAddress?: string } = {}): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** A TLS client that announces a 1000-byte body, sends a few bytes of it and stalls. */
async function stalledUpload(port: number, token: string, localAddress?: string): Promise<{ socket: tls.TLSSocket; ended: Promise<Ending> }> {
  const socket = await tlsConnect(port, { localAddress });
  const ended = ending(socket);
  socket.write(
    `POST /api/v5/users HTTP/1.1\r\nHost: localhost:${port}\r\nAuthorization: Bearer ${token}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"email":',
  );
  return { socket, ended };
}

/** A TCP connection from `localAddress` that sends nothing; resolves once connected. */
async function silentConnection(port: number, localAddress: string): Promise<{ socket: net.Socket; ended: Promise<Ending> }> {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress });
  const ended = ending(socket);
  await once(socket, 'connect');
  return { socket, ended };
}

/** GET /healthz over a new connection from `localAddress`. */
function healthz(port: number, ca: Buffer, localAddress: string): Promise<number> {
  return new Promise((resolve) => {
    https
      .get({ host: '127.0.0.1', port, path: '/healthz', ca, servername: 'localhost', localAddress, agent: false }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      })
      .on('error', () => resolve(0));
  });
}

/** A genuine ClientHello record, as tls.connect sends it first. */
async function clientHello(): Promise<Buffer> {
  const capture = net.createServer();
  capture.listen(0, '127.0.0.1');
  await once(capture, 'listening');
  const client = tls.connect({ host: '127.0.0.1', port: (capture.address() as net.AddressInfo).port, servername: 'localhost' });
  client.on('error', () => {});
  const [socket] = (await once(capture, 'connection')) as [net.Socket];
  let hello = Buffer.alloc(0);
  while (hello.length < 5 || hello.length < 5 + hello.readUInt16BE(3)) hello = Buffer.concat([hello, ((await once(socket, 'data')) as [Buffer])[0]]);
  client.destroy();
  socket.destroy();
  capture.close();
  return hello;
}

/**
 * Connects, waits `delayMs`, then sends `bytes` one every 50 ms until the server closes (or 5 s
 * pass); resolves with when the connection ended, counted from the connection, and how.
 */
async function trickle(port: number, bytes: Buffer, delayMs: number): Promise<{ closedAfterMs: number; error?: string; received: number }> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  const connected = performance.now();
  let received = 0;
  let error: string | undefined;
  let closedAfterMs = Infinity;
  socket.on('data', (chunk: Buffer) => (received += chunk.length));
  socket.on('error', (failure: NodeJS.ErrnoException) => (error = failure.code ?? failure.message));
  // The server's FIN: stop sending, and close this side too.
  socket.on('end', () => {
    closedAfterMs = performance.now() - connected;
    socket.end();
  });
  const closed = once(socket, 'close');
  await sleep(delayMs);
  for (let index = 0; index < bytes.length && closedAfterMs === Infinity && performance.now() - connected < 5000; index++) {
    socket.write(bytes.subarray(index, index + 1));
    await sleep(50);
  }
  if (closedAfterMs === Infinity) socket.destroy();
  await closed;
  return { closedAfterMs: Math.round(closedAfterMs), error, received };
}

function parseAnswer(received: string): { status: number; head: string; body: unknown } {
  const [lines = '', body = ''] = received.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(lines)?.[1] ?? 0), head: `${lines}\r\n`, body: body ? JSON.parse(body) : undefined };
}

describe('slow clients', { timeout: 60_000 }, () => {
  let server: ServerProcess;
  let token: string;

  before(async () => {
    server = await ServerProcess.start({ REQUEST_TIMEOUT: '2s', HEADERS_TIMEOUT: '1s', TLS_HANDSHAKE_TIMEOUT: '1s' });
    token = await server.bootstrapToken();
  });
  after(() => server?.destroy());

  it('answers a client that announces a body and stalls with 408, and closes its connection', async () => {
    const started = performance.now();
    const { ended } = await stalledUpload(server.port, token);
    const { received, error } = await ended;
    const answer = parseAnswer(received);
    assert.equal(answer.status, 408, received);
    assert.deepEqual(answer.body, { errors: ['The request did not arrive in time'] });
    assert.match(answer.head, /\r\nX-Request-Id: [0-9a-f]{32}\r\n/i);
    assert.match(answer.head, /\r\nConnection: close\r\n/i);
    assert.equal(error, undefined, 'closed cleanly, not reset');
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds >= 1.9, `closed after ${seconds} s, before the request timeout`);
  });

  it('answers a client that stalls within its headers, or says nothing after the handshake, with 408', async () => {
    const partial = await tlsConnect(server.port);
    const partialEnded = ending(partial);
    partial.write('GET /api/v5/users HTTP/1.1\r\nHost: localhost\r\n');
    const silent = await tlsConnect(server.port);
    for (const { received } of await Promise.all([partialEnded, ending(silent)])) {
      assert.equal(parseAnswer(received).status, 408, received);
    }
  });

  it('closes a connection that stalls in its TLS handshake, or never sends a byte', async () => {
    const handshake = net.connect({ host: '127.0.0.1', port: server.port });
    const handshakeEnded = ending(handshake);
    await once(handshake, 'connect');
    // The start of a ClientHello record, then nothing.
    handshake.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]));
    const { ended: silentEnded } = await silentConnection(server.port, '127.0.0.1');
    const [stalled, silent] = await Promise.all([handshakeEnded, silentEnded]);
    assert.equal(stalled.received, '');
    assert.equal(silent.received, '');
  });

  it('closes a TLS handshake sent one byte at a time at TLS_HANDSHAKE_TIMEOUT from the connection, cleanly', async () => {
    const hello = await clientHello();
    // Some send their first byte at once, others wait most of the timeout first: all are closed 1 s after connecting.
    const trickles = Array.from({ length: 10 }, (_, index) => trickle(server.port, hello, index % 2 === 0 ? 0 : 800));
    for (const { closedAfterMs, error, received } of await Promise.all(trickles)) {
      assert.equal(error, undefined, 'closed cleanly, not reset');
      assert.equal(received, 0);
      assert.ok(closedAfterMs >= 900 && closedAfterMs < 1900, `closed ${closedAfterMs} ms after connecting`);
    }
  });
});

describe('keep-alive timeout', { timeout: 60_000 }, () => {
  let server: ServerProcess;

  before(async () => {
    server = await ServerProcess.start({ KEEP_ALIVE_TIMEOUT: '5s' });
  });
  after(() => server?.destroy());

  it('closes an idle kept-alive connection at KEEP_ALIVE_TIMEOUT after the last answer, not a second later', async () => {
    const socket = await tlsConnect(server.port, { servername: 'localhost' });
    const ended = ending(socket);
    let answered = 0;
    socket.on('data', () => (answered = performance.now()));
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const { received, error } = await ended;
    const idleMs = Math.round(performance.now() - answered);
    assert.equal(parseAnswer(received).status, 200, received);
    // Clients that read the header close a second before the server does.
    assert.match(received, /\r\nkeep-alive: timeout=4\r\n/i);
    assert.equal(error, undefined);
    console.log(`KEEP_ALIVE_TIMEOUT=5s: closed ${idleMs} ms after the answer`);
    assert.ok(idleMs >= 4900 && idleMs < 5600, `closed ${idleMs} ms after the answer`);
  });
});

describe('connection caps', { timeout: 90_000 }, () => {
  const PER_ADDRESS = 5;
  const TOTAL = 8;
  let server: ServerProcess;
  let token: string;
  let ca: Buffer;

  before(async () => {
    // A long handshake timeout: a connection closed within seconds was closed by a cap.
    server = await ServerProcess.start({
      MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
      MAX_CONNECTIONS: String(TOTAL),
      TLS_HANDSHAKE_TIMEOUT: '60s',
    });
    token = await server.bootstrapToken();
    ca = await readFile(join(server.dataDir, 'tls', 'cert.pem'));
  });
  after(() => server?.destroy());

  it('closes connections over the per-address and total caps politely, and serves others meanwhile', async () => {
    const stalled = await Promise.all(Array.from({ length: PER_ADDRESS }, () => stalledUpload(server.port, token, '127.0.0.1')));

    const overAddress = await silentConnection(server.port, '127.0.0.1');
    const refused = await Promise.race([overAddress.ended, sleep(20_000).then(() => 'still open')]);
    assert.deepEqual(refused, { received: '' }, 'closed with a FIN, not a reset, and nothing sent');

    assert.equal(await healthz(server.port, ca, '127.0.0.2'), 200, 'another address is served');

    // Wait until the server has seen that connection close, then fill the server up from a third address.
    let others: Awaited<ReturnType<typeof silentConnection>>[];
    for (let attempt = 0; ; attempt += 1) {
      others = await Promise.all(Array.from({ length: TOTAL - PER_ADDRESS }, () => silentConnection(server.port, '127.0.0.3')));
      const overTotal = await silentConnection(server.port, '127.0.0.4');
      const overTotalEnded = await Promise.race([overTotal.ended, sleep(500).then(() => undefined)]);
      if (overTotalEnded) {
        assert.deepEqual(overTotalEnded, { received: '' });
        break;
      }
      // One of the earlier connections was still counted: let go and try again.
      for (const connection of [...others, overTotal]) connection.socket.destroy();
      assert.ok(attempt < 10, 'the total cap refused a connection');
      await sleep(200);
    }
    for (const connection of others) connection.socket.destroy();

    for (const { socket } of stalled) assert.ok(!socket.destroyed, 'the admitted connections stay open');
    for (const { socket } of stalled) socket.destroy();
    // Once they are gone, the address is served again.
    await eventually(async () => (await healthz(server.port, ca, '127.0.0.1')) === 200, {
      what: 'the address served again',
      timeoutMs: 5000,
      intervalMs: 100,
    });
  });
});

describe('TLS profile', { timeout: 60_000 }, () => {
  let server: ServerProcess;

  before(async () => {
    server = await ServerProcess.start();
  });
  after(() => server?.destroy());

  /** The negotiated protocol and cipher, or the error's code. */
  async function handshake(options: tls.ConnectionOptions): Promise<string> {
    try {
      const socket = await tlsConnect(server.port, options);
      const result = `${socket.getProtocol()} ${socket.getCipher().standardName}`;
      socket.destroy();
      return result;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code ?? String(error);
    }
  }

  it('offers TLS 1.3, and TLS 1.2 with ECDHE and AEAD ciphers', async () => {
    assert.match(await handshake({}), /^TLSv1\.3 TLS_/);
    for (const [cipher, standardName] of [
      ['ECDHE-ECDSA-AES128-GCM-SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
      ['ECDHE-ECDSA-AES256-GCM-SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
      ['ECDHE-ECDSA-CHACHA20-POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
    ]) {
      assert.equal(await handshake({ maxVersion: 'TLSv1.2', ciphers: cipher }), `TLSv1.2 ${standardName}`);
    }
  });

  it('refuses CBC, SHA-1 and CCM suites, and TLS 1.1', async () => {
    for (const cipher of [
      'ECDHE-ECDSA-AES128-SHA',
      'ECDHE-ECDSA-AES128-SHA256',
      'ECDHE-ECDSA-AES256-SHA384',
      'ECDHE-ECDSA-AES128-CCM8',
      'AES128-GCM-SHA256',
    ]) {
      // At the lowest security level the client offers the suite whatever its OpenSSL's defaults (Node.js 24's
      // no longer offer CCM8), so only the server can refuse it.
      assert.match(await handshake({ maxVersion: 'TLSv1.2', ciphers: `${cipher}:@SECLEVEL=0` }), /HANDSHAKE_FAILURE/, cipher);
    }
    // The client offers TLS 1.1 at the lowest security level, so only the server can refuse it.
    assert.match(await handshake({ minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' }), /PROTOCOL_VERSION/);
  });

  it('answers bytes that are neither TLS nor HTTP with a JSON 400 and a clean close', async () => {
    const socket = net.connect({ host: '127.0.0.1', port: server.port });
    const ended = ending(socket);
    socket.write('\x00\x01 not a protocol\r\n\r\n');
    const { received, error } = await ended;
    const answer = parseAnswer(received);
    assert.equal(answer.status, 400, received);
    assert.deepEqual(answer.body, { message: 'The request is not valid HTTP', errors: ['The request is not valid HTTP'] });
    assert.match(answer.head, /\r\nX-Request-Id: [0-9a-f]{32}\r\n/i);
    assert.equal(error, undefined);
  });
});
