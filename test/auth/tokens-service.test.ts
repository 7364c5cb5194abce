import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';
import type { RevocationWatch } from '../../src/db/token-revocations.js';
import { now } from '../../src/lib/time.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** A revocation watch whose epoch the test moves by hand. */
function manualWatch(): RevocationWatch & { move(): void } {
  let epoch = 0;
  return { epoch: () => epoch, move: () => void (epoch += 1), close: async () => {} };
}

for (const engine of ENGINES) {
  describe(`token check (${engine})`, () => {
    let database: TestDatabase;
    let orgId: string;
    before(async () => {
      database = await createTestDatabase(engine);
      orgId = (await organizationsRepository(database.db).create('Tokens')).id;
    });
    after(() => database.drop());

    it('answers a kept token at once, without a promise, and a token seen for the first time after its lookup', async () => {
      const issued = await tokensService(database.db).create(orgId);
      const tokens = tokensService(database.db, manualWatch());
      const first = tokens.authenticate(issued.token);
      assert.ok(first instanceof Promise, 'looked up');
      assert.equal((await first).tokenId, issued.info.id);
      // The first use wrote last_used_date; from now on the kept row answers.
      const kept = tokens.authenticate(issued.token);
      assert.ok(!(kept instanceof Promise), 'kept');
      assert.deepEqual(kept, {
        orgId,
        tokenId: issued.info.id,
        scopes: ['read', 'write'],
        // The change stream names the token, by its name (the default one here), never its secret.
        actor: { type: 'token', id: issued.info.id, name: 'API token' },
      });
      assert.throws(() => tokens.authenticate('not a token'), /The access token is invalid/);
    });

    it('gathers first uses and writes them together, each token once a minute, without the request waiting', async () => {
      const [a, b] = [await tokensService(database.db).create(orgId), await tokensService(database.db).create(orgId)];
      // Gathered for an hour: only the flush below writes.
      const tokens = tokensService(database.db, manualWatch(), { lastUseGatherMs: 3_600_000 });
      const lastUses = async () =>
        Object.fromEntries(
          (await database.db.selectFrom('access_tokens').select(['id', 'last_used_date']).where('id', 'in', [a.info.id, b.info.id]).execute()).map(
            (row) => [row.id, row.last_used_date],
          ),
        );
      const before = now();
      const callers = await Promise.all(Array.from({ length: 10 }, async (_, n) => tokens.authenticate((n % 2 === 0 ? a : b).token)));
      assert.deepEqual(new Set(callers.map((caller) => caller.tokenId)), new Set([a.info.id, b.info.id]));
      // Answered, and nothing written yet.
      assert.deepEqual(await lastUses(), { [a.info.id]: null, [b.info.id]: null });
      assert.equal(await tokens.flushLastUses(), 2, 'one write for each token, whatever its requests');
      const written = await lastUses();
      const after = now();
      for (const id of [a.info.id, b.info.id])
        assert.ok(written[id]! >= before && written[id]! <= after, `${id}: ${written[id]} within the requests`);
      // Within the minute, further uses write nothing; the listing shows the use written.
      for (const issued of [a, b]) assert.equal((await tokens.authenticate(issued.token)).tokenId, issued.info.id);
      assert.equal(await tokens.flushLastUses(), 0);
      const listed = await tokensService(database.db).list(orgId);
      assert.equal(listed.find((info) => info.id === a.info.id)?.lastUsedDate, written[a.info.id]);
    });

    it('writes the last use gathered by the API when the server closes, and shows it in the token list', async () => {
      const issued = await tokensService(database.db).create(orgId);
      const app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: database.db });
      const before = now();
      try {
        const response = await app.inject({ method: 'GET', url: '/api/v5/users?limit=1', headers: { authorization: `Bearer ${issued.token}` } });
        assert.equal(response.statusCode, 200);
      } finally {
        await app.close();
      }
      const listed = (await tokensService(database.db).list(orgId)).find((info) => info.id === issued.info.id);
      assert.ok(listed?.lastUsedDate && listed.lastUsedDate >= before && listed.lastUsedDate <= now(), JSON.stringify(listed));
    });

    it('does not keep a row whose lookup ran while a revocation was noticed', async () => {
      const watch = manualWatch();
      const tokens = tokensService(database.db, watch);
      const [racing, other] = [await tokensService(database.db).create(orgId), await tokensService(database.db).create(orgId)];
      // The lookup of `racing` is under way when a revocation moves the epoch and another request notices it.
      const lookup = tokens.authenticate(racing.token);
      watch.move();
      const noticing = tokens.authenticate(other.token);
      await Promise.all([lookup, noticing]);
      // Revoked behind the service's back (another process, whose notice is the move above): a kept row would still pass.
      await database.db.updateTable('access_tokens').set({ revoked_date: now() }).where('id', '=', racing.info.id).execute();
      await assert.rejects(async () => tokens.authenticate(racing.token), /The access token has been revoked/);
    });
  });
}
