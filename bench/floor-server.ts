/**
 * The floor: a bare `node:https` server with the API's certificate that answers every request with
 * one pre-serialized response (the real server's status, Content-Type, Location and body bytes).
 * It also measures the other floor, the raw password hash (or verification) rate, with the very
 * functions the API hashes and verifies with, so the floor follows whatever algorithm, parameters and
 * concurrency src/lib/passwords.ts uses.
 *
 * argv: <cert file> <key file>. Sends {port} once listening; then answers `answer`, `hash` and `verify` calls.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { hashPassword, verifyPassword } from '../src/lib/passwords.js';

export interface FloorAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface HashRate {
  rate: number;
  /** The stored hash without salt and key: algorithm and parameters, e.g. `$argon2id$v=19$m=19456,t=2,p=1`. */
  scheme: string;
  cpuPercent: number;
}

let answer: FloorAnswer = { status: 204, headers: {}, body: new Uint8Array() };

const [certFile, keyFile] = process.argv.slice(2);
const server = https.createServer({ cert: readFileSync(certFile!), key: readFileSync(keyFile!) }, (request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(answer.status, { ...answer.headers, 'content-length': answer.body.byteLength });
    response.end(answer.body);
  });
});
// The API's listener keeps idle connections for as long as the client does; so does the floor.
server.keepAliveTimeout = 0;

/**
 * Hashes per second with `concurrency` hashes in flight (the thread pool runs four at a time), or
 * with `verify`, checks of a password against its stored hash per second (what a sign-in costs).
 */
async function hashRate(seconds: number, concurrency: number, verify = false): Promise<HashRate> {
  let hashes = 0;
  let sample = await hashPassword('benchmark1');
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        if (verify) {
          if (!(await verifyPassword('benchmark1', sample))) throw new Error('the password does not match its own hash');
        } else sample = await hashPassword('benchmark1');
        hashes += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { rate: hashes / elapsed, scheme: sample.split('$').slice(0, -2).join('$'), cpuPercent: ((cpu.user + cpu.system) / 1e6 / elapsed) * 100 };
}

process.on('message', (message: { id: number; type: 'answer' | 'hash' | 'verify'; answer?: FloorAnswer; seconds?: number; concurrency?: number }) => {
  if (message.type === 'answer') {
    answer = { ...message.answer!, body: Buffer.from(message.answer!.body) };
    process.send!({ id: message.id, result: true });
    return;
  }
  // A failure is an unhandled rejection: it ends this child.
  void hashRate(message.seconds!, message.concurrency!, message.type === 'verify').then((result) => process.send!({ id: message.id, result }));
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
