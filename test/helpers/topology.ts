import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRIVATE_POSTGRES_SKIP, PrivatePostgres } from './private-postgres.js';
import type { ServerProcess } from './server-process.js';

const IS_ROOT = process.getuid?.() === 0;

function installed(binary: string): boolean {
  try {
    execFileSync('which', [binary], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why a topology test cannot run here (no PostgreSQL suite, or a program missing), or false when it can. */
export function topologySkip(...programs: string[]): string | false {
  if (!process.env.TEST_POSTGRES_URL) return 'PostgreSQL suites run only with TEST_POSTGRES_URL';
  if (PRIVATE_POSTGRES_SKIP) return PRIVATE_POSTGRES_SKIP;
  const missing = programs.filter((program) => !installed(program));
  return missing.length > 0 ? `needs ${missing.join(' and ')} (Debian packages; .ci/run installs them)` : false;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A primary and a streaming standby of it (pg_basebackup -R) holding the database `training`; with
 * `synchronous`, every commit on the primary waits for the standby to have it (synchronous_commit on).
 * `standbySettings` go into the standby's configuration.
 */
export async function primaryAndStandby(
  synchronous: boolean,
  standbySettings: string[] = [],
): Promise<{ primary: PrivatePostgres; standby: PrivatePostgres }> {
  const primary = await PrivatePostgres.start(['wal_level = replica', 'max_wal_senders = 5']);
  let standby: PrivatePostgres | undefined;
  try {
    await primary.createDatabase('training');
    standby = await PrivatePostgres.standbyOf(primary, 'standby', standbySettings);
    if (synchronous) {
      await primary.query("alter system set synchronous_standby_names = 'standby'");
      await primary.query('select pg_reload_conf()');
    }
    const state = synchronous ? 'sync' : 'async';
    const deadline = performance.now() + 30_000;
    for (;;) {
      const { rows } = await primary.query(`select 1 from pg_stat_replication where application_name = 'standby' and sync_state = '${state}'`);
      if (rows.length > 0) break;
      if (performance.now() > deadline) throw new Error(`the standby did not stream as ${state} within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { primary, standby };
  } catch (error) {
    await standby?.destroy();
    await primary.destroy();
    throw error;
  }
}

/** Every event of the organization's feed, oldest first. */
export async function feedEvents(server: ServerProcess, token: string): Promise<{ id: string; type: string; data: Record<string, any> }[]> {
  const events = [];
  let path = 'events?limit=100';
  for (;;) {
    const reply = await server.request('GET', path, { token, timeoutMs: 15_000 });
    if (reply.status !== 200) throw new Error(`GET /events answered ${reply.status} ${reply.body}`);
    const page = JSON.parse(reply.body) as { results: any[]; next?: string };
    events.push(...page.results);
    if (!page.next) return events;
    path = page.next.slice(page.next.indexOf('/api/v5/') + '/api/v5/'.length);
  }
}

/** A program run by the tests in a directory of its own, owned by `postgres` when it must not run as root. */
abstract class TestDaemon {
  #child: ChildProcess | undefined;
  output = '';

  protected constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  protected static directory(prefix: string, ownedByPostgres: boolean): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    if (IS_ROOT && ownedByPostgres) {
      chownSync(
        dir,
        Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
        Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
      );
    }
    return dir;
  }

  protected async run(command: string, args: string[], asPostgres: boolean): Promise<void> {
    const ids =
      IS_ROOT && asPostgres
        ? {
            uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
            gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
          }
        : {};
    const child = spawn(command, args, { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'], ...ids });
    this.#child = child;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    const deadline = performance.now() + 15_000;
    while (!(await this.#accepts())) {
      if (child.exitCode !== null || performance.now() > deadline) {
        await this.destroy();
        throw new Error(`${command} did not start:\n${this.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async #accepts(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = net.connect(this.port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  }

  async destroy(): Promise<void> {
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** PgBouncer in transaction mode in front of `database` on `postgres`, on a port of its own. */
export class PgBouncer extends TestDaemon {
  /** Pools `database` alone, or with none named every database of `postgres`, each under its own name. */
  static async start(postgres: PrivatePostgres, database?: string): Promise<PgBouncer> {
    const bouncer = new PgBouncer(TestDaemon.directory('training-api-pgbouncer-', true), await freePort());
    writeFileSync(join(bouncer.dir, 'users.txt'), '"postgres" ""\n');
    const ini = [
      '[databases]',
      database ? `${database} = host=127.0.0.1 port=${postgres.port} dbname=${database}` : `* = host=127.0.0.1 port=${postgres.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${bouncer.port}`,
      "unix_socket_dir = ''",
      'auth_type = trust',
      `auth_file = ${join(bouncer.dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 200',
    ];
    writeFileSync(join(bouncer.dir, 'pgbouncer.ini'), `${ini.join('\n')}\n`);
    await bouncer.run('pgbouncer', [join(bouncer.dir, 'pgbouncer.ini')], true);
    return bouncer;
  }

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }
}

/**
 * HAProxy on a port of its own, balancing plain HTTP over the servers' HTTPS ports and checking
 * their /readyz every 200 ms: two failed checks take a server out, two good ones bring it back.
 */
export class HAProxy extends TestDaemon {
  #statsPort = 0;

  static async start(serverPorts: number[]): Promise<HAProxy> {
    const proxy = new HAProxy(TestDaemon.directory('training-api-haproxy-', false), await freePort());
    proxy.#statsPort = await freePort();
    const config = [
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      // A check answered late on a busy machine is not a failed one: without this, 'inter' bounds the whole check.
      '  timeout check 3s',
      '  retries 3',
      '  option redispatch',
      'frontend api',
      `  bind 127.0.0.1:${proxy.port}`,
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      '  option httpchk',
      '  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host 127.0.0.1',
      ...serverPorts.map((port, i) => `  server api${i + 1} 127.0.0.1:${port} ssl verify none check inter 200 fall 2 rise 2`),
      'frontend stats',
      `  bind 127.0.0.1:${proxy.#statsPort}`,
      '  stats enable',
      '  stats uri /stats',
    ];
    writeFileSync(join(proxy.dir, 'haproxy.cfg'), `${config.join('\n')}\n`);
    await proxy.run('haproxy', ['-db', '-f', join(proxy.dir, 'haproxy.cfg')], false);
    return proxy;
  }

  /** What HAProxy's checks say of the `n`th server (1-based): UP, DOWN, or a transition (`UP 1/2`). */
  async status(n: number): Promise<string> {
    const csv = await (await fetch(`http://127.0.0.1:${this.#statsPort}/stats;csv`)).text();
    const row = csv.split('\n').find((line) => line.startsWith(`instances,api${n},`));
    return row?.split(',')[17] ?? 'unknown';
  }

  /** Waits until HAProxy sends requests to the `n`th server again. */
  async untilUp(n: number, limitMs = 20_000): Promise<void> {
    const deadline = performance.now() + limitMs;
    while ((await this.status(n)) !== 'UP') {
      if (performance.now() > deadline) throw new Error(`HAProxy does not see server ${n} up within ${limitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
