import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { runCli } from '../helpers/cli.js';
import { ServerProcess } from '../helpers/server-process.js';

/** Writers posting users one after another for as long as the test runs. */
const WRITERS = 4;
/** Users acknowledged before the backup starts, so the copy has something to prove. */
const ACKNOWLEDGED_BEFORE = 40;

describe('training-api backup (SQLite)', () => {
  let dir: string;
  let server: ServerProcess;
  let restored: ServerProcess | undefined;
  let token: string;
  let databaseUrl: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'training-api-backup-'));
    server = await ServerProcess.start();
    token = await server.bootstrapToken();
    databaseUrl = `sqlite:${join(server.dataDir, 'training-api.db')}`;
  });
  after(async () => {
    await server.destroy();
    await restored?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('copies the database while the server writes; a server on the copy has every user acknowledged before', async () => {
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let writing = true;
    let sequence = 0;
    const writers = Array.from({ length: WRITERS }, async () => {
      while (writing) {
        const reply = await server.request('POST', 'users', { token, body: { email: `person${sequence++}@example.com`, firstName: 'Backed' } });
        if (reply.status === 201) acknowledged.push(String(reply.headers.location).split('/').at(-1)!);
        else failures.push(`${reply.status} ${reply.body}`);
      }
    });
    try {
      while (acknowledged.length < ACKNOWLEDGED_BEFORE && failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const before = [...acknowledged];
      const file = join(dir, 'copy.db');
      const backup = await runCli(databaseUrl, 'backup', '--to', file);
      const after = acknowledged.length;
      assert.equal(backup.code, 0, backup.err);
      assert.match(backup.out, /^Backed up .* to .*copy\.db: \d+ pages, [\d.]+ MB in [\d.]+ s; integrity check ok$/);
      // A small database can be copied between two commits; what matters is that the writers were never refused.
      for (let waited = 0; acknowledged.length === after && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(acknowledged.length > before.length, 'the server kept acknowledging writes during and after the backup');
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal(existsSync(`${file}.partial`), false);

      writing = false;
      await Promise.all(writers);
      assert.deepEqual(failures, []);

      restored = await ServerProcess.start({ DATABASE_URL: `sqlite:${file}` });
      for (const id of before) assert.equal((await restored.request('GET', `users/${id}`, { token })).status, 200, id);
      const copy = new BetterSqlite3(file, { readonly: true });
      const { count } = copy.prepare('select count(*) as count from users').get() as { count: number };
      copy.close();
      assert.ok(count >= before.length && count <= acknowledged.length, `${count} users in the copy`);
    } finally {
      writing = false;
      await Promise.all(writers);
    }
  });

  it('refuses to overwrite a file, or to back up a database that does not exist', async () => {
    const existing = join(dir, 'copy.db');
    const refused = await runCli(databaseUrl, 'backup', '--to', existing);
    assert.equal(refused.code, 2);
    assert.equal(refused.err, `training-api: --to: ${existing} already exists; back up into a new file`);

    const missing = join(dir, 'missing.db');
    const none = await runCli(`sqlite:${missing}`, 'backup', '--to', join(dir, 'other.db'));
    assert.equal(none.code, 2);
    assert.equal(none.err, `training-api: no database at ${missing}; set DATABASE_URL`);
    assert.equal(existsSync(missing), false);
  });

  it('explains pg_dump for PostgreSQL and refuses', async () => {
    const file = join(dir, 'postgres.db');
    const run = await runCli('postgres://postgres@127.0.0.1:5432/test', 'backup', '--to', file);
    assert.equal(run.code, 2);
    assert.match(run.err, /^training-api: backup copies SQLite databases; for PostgreSQL use .*pg_dump --format=custom .*pg_restore/);
    assert.equal(existsSync(file), false);
  });
});
