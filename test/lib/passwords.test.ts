import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { concurrencyGate, hashPassword, verifyPassword } from '../../src/lib/passwords.js';

/** A hash in the format stored before argon2id: `scrypt$N$r$p$salt$hash`. */
function legacyScryptHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFC'), salt, 32, { N: 16384, r: 8, p: 1 });
  return ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
}

describe('passwords', () => {
  it('hashes with argon2id, the parameters in the PHC string, a new salt each time', async () => {
    const first = await hashPassword('engine1');
    const second = await hashPassword('engine1');
    assert.match(first, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.notEqual(first, second);
    assert.equal(await verifyPassword('engine1', first), true);
    assert.equal(await verifyPassword('engine2', first), false);
  });

  it('treats composed and decomposed Unicode as the same password', async () => {
    const stored = await hashPassword('caf\u00e9 1');
    assert.equal(await verifyPassword('cafe\u0301 1', stored), true);
  });

  it('still verifies the scrypt hashes stored before argon2id', async () => {
    const stored = legacyScryptHash('letter1');
    assert.equal(await verifyPassword('letter1', stored), true);
    assert.equal(await verifyPassword('letter2', stored), false);
  });

  it('refuses anything that is not a hash it knows', async () => {
    for (const stored of ['', 'plain', 'scrypt$', 'bcrypt$2b$10$abc', '$argon2id$v=19$m=19456,t=2,p=1$broken']) {
      assert.equal(await verifyPassword('letter1', stored), false, stored);
    }
  });

  it('runs at most the gate limit of tasks at once, the rest in arrival order', async () => {
    const gate = concurrencyGate(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const releases: Array<() => void> = [];
    const tasks = Array.from({ length: 6 }, (_, i) =>
      gate(async () => {
        started.push(i);
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
        return i;
      }),
    );
    while (started.length < 6) {
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(running <= 2);
      releases.shift()?.();
    }
    releases.forEach((release) => release());
    assert.deepEqual(await Promise.all(tasks), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
    assert.equal(most, 2);
  });

  it('frees its place when a task fails', async () => {
    const gate = concurrencyGate(1);
    await assert.rejects(
      gate(() => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await gate(async () => 'next'), 'next');
  });
});
