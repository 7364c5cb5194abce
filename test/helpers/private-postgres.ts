import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** The directory of initdb and pg_ctl: pg_config's answer, else the newest Debian-style install. */
function findBinaries(): string | undefined {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(join(dir, 'initdb'))) return dir;
  } catch {
    // no pg_config on the PATH
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((version) => existsSync(join(root, version, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

const BINARIES = findBinaries();
const IS_ROOT = process.getuid?.() === 0;

/** Why fault tests that need their own PostgreSQL server cannot run here, or false when they can. */
export const PRIVATE_POSTGRES_SKIP: string | false = BINARIES ? false : 'needs PostgreSQL server binaries (initdb, pg_ctl)';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** PostgreSQL refuses to run as root: as root, its commands run as the postgres user. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return IS_ROOT ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * A PostgreSQL server of a test's own, in a temporary directory on a free port, for faults that must
 * never touch the shared one: restart, stop, freeze. Not durable (fsync off): its crashes are
 * the server's, not the machine's.
 */
export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** A new server; `settings` are added to its configuration (synchronous_standby_names, ...). */
  static async start(settings: string[] = []): Promise<PrivatePostgres> {
    const server = await PrivatePostgres.#create();
    await server.#pg('initdb', ['-D', server.dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '-N', '--no-instructions']);
    server.#configure(settings);
    await server.startServer();
    return server;
  }

  /**
   * A streaming standby of `primary`, made by pg_basebackup -R, connected as `name` (its
   * application_name, which synchronous_standby_names may list); hot, so it serves reads.
   */
  static async standbyOf(primary: PrivatePostgres, name = 'standby', settings: string[] = []): Promise<PrivatePostgres> {
    const server = await PrivatePostgres.#create();
    await server.#pg('pg_basebackup', [
      '-D',
      server.dataDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
    ]);
    // -R appended primary_conninfo to the copy of the primary's settings: those are rewritten below.
    const conninfo = readFileSync(join(server.dataDir, 'postgresql.auto.conf'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('primary_conninfo'));
    server.#configure([...conninfo, `cluster_name = '${name}'`, 'hot_standby_feedback = on', ...settings]);
    await server.startServer();
    return server;
  }

  static async #create(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'training-api-pg-'));
    if (IS_ROOT)
      chownSync(
        dir,
        Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
        Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
      );
    return new PrivatePostgres(dir, await freePort());
  }

  #configure(extra: string[]): void {
    const settings = [
      `port = ${this.port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${this.dir}'`,
      'fsync = off',
      'max_connections = 60',
      'shared_buffers = 16MB',
      ...extra,
    ];
    writeFileSync(join(this.dataDir, 'postgresql.auto.conf'), `${settings.join('\n')}\n`);
  }

  /** A URL for `database` on this server. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async createDatabase(name: string): Promise<string> {
    await this.query(`create database ${name}`);
    return this.url(name);
  }

  async query(text: string, database = 'postgres'): Promise<pg.QueryResult> {
    const client = new pg.Client({ connectionString: this.url(database), connectionTimeoutMillis: 5000 });
    // A server restarting under the test (its backends reset) must reject this query, not crash the test
    // process: without a listener, the client's 'error' event is an uncaught exception.
    client.on('error', () => {});
    await client.connect();
    try {
      return await client.query(text);
    } finally {
      await client.end();
    }
  }

  async startServer(): Promise<void> {
    await this.#pg('pg_ctl', ['-D', this.dataDir, '-l', join(this.dir, 'server.log'), '-w', '-t', '30', 'start']);
  }

  /** A fast shutdown: sessions are ended, in-flight transactions rolled back. */
  async stopServer(): Promise<void> {
    await this.#pg('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
  }

  /** The machine dies: the postmaster and every process of the server are killed at once, nothing is shut down. */
  kill(): void {
    this.#signalAll('SIGKILL');
  }

  /** Ends recovery on a standby: it becomes a primary that accepts writes. */
  async promote(): Promise<void> {
    await this.#pg('pg_ctl', ['-D', this.dataDir, '-w', '-t', '30', 'promote']);
  }

  /** The postmaster and every backend, stopped with SIGSTOP: connections stay open, nothing answers. */
  freeze(): void {
    this.#signalAll('SIGSTOP');
  }

  thaw(): void {
    this.#signalAll('SIGCONT');
  }

  async destroy(): Promise<void> {
    try {
      if (existsSync(join(this.dataDir, 'postmaster.pid'))) this.thaw();
      await this.#pg('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  async #pg(binary: string, args: string[]): Promise<void> {
    const [command, commandArgs] = asServerUser(join(BINARIES!, binary), args);
    await run(command, commandArgs, { cwd: this.dir });
  }

  /** The postmaster's pid is the first line of postmaster.pid; the backends are its children. */
  #signalAll(signal: NodeJS.Signals): void {
    const postmaster = this.#postmaster();
    const children = this.#children();
    // Children first on the way down, so none is left running under a stopped parent.
    const order = signal === 'SIGSTOP' ? [...children, postmaster] : [postmaster, ...children];
    for (const pid of order) signalProcess(pid, signal);
  }

  #postmaster(): number {
    return Number(readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  /** The postmaster's children: the backends and the auxiliary processes. */
  #children(): number[] {
    const postmaster = this.#postmaster();
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          // The parent pid is the second field after the command name, which is in parentheses.
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
        } catch {
          return false; // the process ended meanwhile
        }
      })
      .map(Number);
  }

  /** Stops a standby's WAL receiver (SIGSTOP): the standby falls behind as over a stalled network. */
  stallWalReceiver(): void {
    for (const pid of this.#childrenNamed('walreceiver')) signalProcess(pid, 'SIGSTOP');
  }

  /**
   * SIGKILLs a standby's WAL receiver: what it had received but not written is gone with it, and the
   * postmaster restarts every process. Resolves once the standby answers again from a new startup
   * process: a promotion asked before that would be lost with the old one.
   */
  async killWalReceiver(): Promise<void> {
    const [startup] = this.#childrenNamed('startup');
    for (const pid of this.#childrenNamed('walreceiver')) signalProcess(pid, 'SIGKILL');
    const deadline = performance.now() + 30_000;
    for (;;) {
      const restarted = this.#childrenNamed('startup').some((pid) => pid !== startup);
      if (
        restarted &&
        (await this.query('select 1').then(
          () => true,
          () => false,
        ))
      )
        return;
      if (performance.now() > deadline) throw new Error('the standby did not come back after its processes restarted');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  #childrenNamed(name: string): number[] {
    return this.#children().filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(name);
      } catch {
        return false; // ended meanwhile
      }
    });
  }
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ended meanwhile
  }
}
