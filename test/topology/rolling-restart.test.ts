import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/lib/ids.js';
import { underLoad } from '../helpers/load.js';
import { PrivatePostgres } from '../helpers/private-postgres.js';
import { ServerProcess } from '../helpers/server-process.js';
import { freePort, HAProxy, topologySkip } from '../helpers/topology.js';

const CLIENTS = 8;

describe('Rolling restart of two instances behind HAProxy', { skip: topologySkip('haproxy') }, () => {
  let postgres: PrivatePostgres;
  let proxy: HAProxy;
  const servers: ServerProcess[] = [];
  let token: string;

  before(async () => {
    postgres = await PrivatePostgres.start();
    const url = await postgres.createDatabase('training');
    // Both instances start together, as a deployment's do: one of them creates the organization and writes the token.
    const ports = [await freePort()];
    while (ports.length < 2) ports.push(...[await freePort()].filter((port) => !ports.includes(port)));
    // HAProxy starts meanwhile too: its checks find the instances as they come up.
    const [proxyStarted, ...started] = await Promise.allSettled([
      HAProxy.start(ports).then((started) => (proxy = started)),
      // Longer than HAProxy takes to see /readyz fail (two checks, 200 ms apart, each answered within 3 s).
      ...ports.map((port) => ServerProcess.start({ DATABASE_URL: url, PORT: String(port), SHUTDOWN_DELAY: '3s', ALLOWED_HOSTS: '*' })),
    ]);
    for (const result of started) if (result.status === 'fulfilled') servers.push(result.value);
    const failed = [proxyStarted, ...started].find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const tokens = await Promise.allSettled(servers.map((server) => server.bootstrapToken()));
    const written = tokens.filter((result) => result.status === 'fulfilled');
    assert.equal(written.length, 1, 'exactly one of the instances starting together bootstraps the database');
    token = written[0]!.value;
    await proxy.untilUp(1);
    await proxy.untilUp(2);
  });

  after(async () => {
    await proxy?.destroy();
    for (const server of servers) await server.destroy();
    await postgres?.destroy();
  });

  it('answers every request while each instance in turn is stopped with SIGTERM and started again', async (t) => {
    const base = `http://127.0.0.1:${proxy.port}/api/v5`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const ids: string[] = [];
    const failures: string[] = [];
    const outcomes = await underLoad(
      CLIENTS,
      async (client, step) => {
        const write = step % 4 === 0 || ids.length === 0;
        try {
          const response = write
            ? await fetch(`${base}/users`, {
                method: 'POST',
                headers,
                body: JSON.stringify({ email: `rolling-${newId()}@example.com`, firstName: 'Rolling' }),
              })
            : await fetch(`${base}/users/${ids[(client + step) % ids.length]}`, { headers });
          const body = await response.text();
          if (response.status === 201) ids.push(response.headers.get('location')!.split('/').pop()!);
          if (response.status >= 300) failures.push(`${response.status} ${body}`);
          return { kind: write ? 'create' : 'read', reply: { status: response.status, headers: {}, body, ms: 0 } };
        } catch (error) {
          failures.push(String((error as Error).cause ?? error));
          return { kind: write ? 'create' : 'read', reply: { status: 0, headers: {}, body: String(error), ms: 0 } };
        }
      },
      async () => {
        for (const [i, server] of servers.entries()) {
          await server.kill('SIGTERM');
          await server.restart();
          await proxy.untilUp(i + 1);
        }
      },
    );
    assert.deepEqual(failures, [], `${failures.length} of ${outcomes.length} requests failed`);
    t.diagnostic(`two instances restarted in turn under ${CLIENTS} clients: ${outcomes.length} requests, ${failures.length} failed`);
  });
});
