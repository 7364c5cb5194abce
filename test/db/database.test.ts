import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { engineSkip } from '../helpers/database.js';

describe('SQLite files', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'training-api-files-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function synchronousOf(url: string, options: Parameters<typeof openDatabase>[1] = {}): Promise<number> {
    const database = openDatabase(url, options);
    try {
      return (await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db)).rows[0]!.synchronous;
    } finally {
      await database.close();
    }
  }

  it('syncs every commit to disk (synchronous=FULL) unless NORMAL is asked for', async () => {
    const url = `sqlite:${join(dir, 'durability.db')}`;
    assert.equal(await synchronousOf(url), 2);
    assert.equal(await synchronousOf(url, { sqliteSynchronous: 'full' }), 2);
    assert.equal(await synchronousOf(url, { sqliteSynchronous: 'normal' }), 1);
  });

  it('creates the database, its WAL and shared-memory files 0600 in a new directory of mode 0700', async () => {
    const dataDir = join(dir, 'nested', 'data');
    const file = join(dataDir, 'training-api.db');
    const database = openDatabase(`sqlite:${file}`);
    try {
      await migrateToLatest(database.db);
      assert.equal((await stat(join(dir, 'nested'))).mode & 0o777, 0o700);
      assert.equal((await stat(dataDir)).mode & 0o777, 0o700);
      for (const name of [file, `${file}-wal`, `${file}-shm`]) assert.equal((await stat(name)).mode & 0o777, 0o600, name);
    } finally {
      await database.close();
    }
  });
});

describe('PostgreSQL connections', { skip: engineSkip('postgres') }, () => {
  async function synchronousCommitOf(options: Parameters<typeof openDatabase>[1] = {}): Promise<string> {
    const database = openDatabase(process.env.TEST_POSTGRES_URL!, { poolSize: 1, ...options });
    try {
      return (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(database.db)).rows[0]!.synchronous_commit;
    } finally {
      await database.close();
    }
  }

  it("keep the server's synchronous_commit unless asked to let commits return before their WAL is on disk", async () => {
    const server = await synchronousCommitOf();
    assert.equal(await synchronousCommitOf({ postgresSynchronousCommit: true }), server);
    assert.equal(await synchronousCommitOf({ postgresSynchronousCommit: false }), 'off');
    assert.equal(await synchronousCommitOf({ postgresSynchronousCommit: false, schema: 'public' }), 'off');
  });
});
