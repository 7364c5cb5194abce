import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../../src/db/database.js';
import { writeShare } from '../../src/imports/write-share.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'write-share-test-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

it("tells an import on SQLite of other connections' commits, and waits for the next one after its own", async () => {
  const file = path.join(dir, 'share.db');
  const handle = openDatabase(`sqlite:${file}`);
  const other = new BetterSqlite3(file);
  try {
    other.exec('create table t (n integer)');
    const share = writeShare(handle.db);
    assert.equal(await share.othersWrote(), false, 'the first look only starts counting');
    assert.equal(await share.othersWrote(), false, 'nobody wrote since');
    other.exec('insert into t values (1)');
    assert.equal(await share.othersWrote(), true, 'another connection committed');
    assert.equal(await share.othersWrote(), false);

    assert.equal(await share.handOff(), false, 'nobody writes: the import goes on after at most a few ms');
    setTimeout(() => other.exec('insert into t values (2)'), 2);
    assert.equal(await share.handOff(), true, 'a write of another connection ends the wait');
    assert.equal(await share.othersWrote(), false, 'the commit the hand-off saw is counted once');
  } finally {
    other.close();
    await handle.close();
  }
});
