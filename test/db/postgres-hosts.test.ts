import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { parsePostgresTarget } from '../../src/db/postgres-hosts.js';

describe('PostgreSQL URLs with several hosts', () => {
  it("reads libpq's host list and target_session_attrs, and leaves the rest to pg", () => {
    const target = parsePostgresTarget('postgres://app:s3cret@db1:5433,[::1],db3/training?sslmode=require&target_session_attrs=read-write');
    assert.deepEqual(target.hosts, [
      { host: 'db1', port: 5433 },
      { host: '::1', port: 5432 },
      { host: 'db3', port: 5432 },
    ]);
    assert.equal(target.writableOnly, true);
    assert.equal(target.url, 'postgres://app:s3cret@db1:5433/training?sslmode=require');
  });

  it('keeps a one-host URL as it is, a socket directory included', () => {
    const target = parsePostgresTarget('postgresql://app@localhost/training');
    assert.deepEqual(target, { hosts: [{ host: 'localhost', port: 5432 }], writableOnly: false, url: 'postgresql://app@localhost/training' });
    assert.equal(parsePostgresTarget('postgres:///training?host=/var/run/postgresql').url, 'postgres:///training?host=/var/run/postgresql');
  });

  it('refuses several hosts for the server without read-write, and an attribute it does not know', () => {
    assert.throws(() => parsePostgresTarget('postgres://app@db1,db2/training'), /target_session_attrs=read-write/);
    assert.throws(() => parsePostgresTarget('postgres://app@db1/training?target_session_attrs=standby'), /read-write, primary or any/);
    assert.equal(parsePostgresTarget('postgres://app@r1,r2/training', 'DATABASE_READ_URL', false).hosts.length, 2);
  });

  it('checks the topology settings when the configuration is read, without showing the password', () => {
    const base = { DATABASE_URL: 'postgres://app:s3cret@db1,db2/training?target_session_attrs=read-write' };
    const config = loadConfig({
      ...base,
      DATABASE_READ_URL: 'postgres://app@r1,r2/training',
      DATABASE_POOL_MODE: 'transaction',
      SHUTDOWN_DELAY: '5s',
    });
    assert.deepEqual(config.topology, {
      readUrl: 'postgres://app@r1,r2/training',
      readMaxLagMs: 5000,
      transactionPooler: true,
      preparedStatements: false,
    });
    assert.equal(config.shutdownDelayMs, 5000);
    assert.equal(loadConfig(base).shutdownDelayMs, 0);
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'postgres://app:s3cret@db1,db2/training' }),
      (error: Error) => !error.message.includes('s3cret'),
    );
    assert.throws(() => loadConfig({ ...base, DATABASE_POOL_MODE: 'statement' }), /DATABASE_POOL_MODE must be session or transaction/);
    assert.throws(() => loadConfig({ DATABASE_READ_URL: 'postgres://app@r1/training' }), /DATABASE_READ_URL needs a PostgreSQL DATABASE_URL/);
  });
});
