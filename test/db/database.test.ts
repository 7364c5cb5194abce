import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';

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
