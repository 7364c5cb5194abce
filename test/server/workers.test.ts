import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';
import { ServerProcess } from '../helpers/server-process.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes that logged a completed request (pino puts its pid on every line). */
function servingPids(output: string): Set<number> {
  const pids = new Set<number>();
  for (const line of output.split('\n')) {
    if (!line.includes('"request completed"')) continue;
    pids.add((JSON.parse(line) as { pid: number }).pid);
  }
  return pids;
}

for (const engine of ALL_ENGINES) {
  describe(`WORKERS=2 (${engine})`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let token: string;

    before(async () => {
      database = await createTestDatabase(engine, { migrate: false });
      server = await ServerProcess.start({ DATABASE_URL: database.url, WORKERS: '2', LOG_LEVEL: 'info' });
      token = await server.bootstrapToken();
    });

    after(async () => {
      await server.destroy();
      await database.drop();
    });

    it('migrates once, then two worker processes serve reads and writes on one port', async () => {
      assert.equal(server.output.match(/training-api serving/g)?.length, 1, server.output);
      assert.match(server.output, /with 2 workers/);
      const created = await Promise.all(
        Array.from({ length: 24 }, (_, index) => server.request('POST', 'users', { token, body: { email: `worker-${index}@example.com` } })),
      );
      assert.deepEqual(
        created.map((reply) => reply.status),
        created.map(() => 201),
        created.map((reply) => reply.body).join('\n'),
      );
      const read = await Promise.all(
        created.map((reply) => server.request('GET', new URL(String(reply.headers.location), 'https://localhost').pathname, { token })),
      );
      assert.deepEqual(
        read.map((reply) => reply.status),
        read.map(() => 200),
      );
      assert.equal(servingPids(server.output).size, 2, server.output);
    });

    it('stops every worker on SIGTERM', async () => {
      const workers = [...servingPids(server.output)];
      assert.equal(workers.length, 2);
      await server.kill('SIGTERM');
      await eventually(() => !workers.some(alive), { what: `workers ${workers.join(', ')} to exit`, timeoutMs: 10_000, intervalMs: 100 });
    });
  });
}
