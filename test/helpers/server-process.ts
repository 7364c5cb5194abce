import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from dist/test/helpers/. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Generous: a loaded machine starting WORKERS=n on PostgreSQL (migrations, then each worker) takes its time. */
const START_TIMEOUT_MS = 90_000;

/** Settings the test environment might carry that would steer a server away from what a test gives it. */
const INHERITED_SETTINGS = [
  'DATABASE_URL',
  'DATA_DIR',
  'HOST',
  'PORT',
  'PUBLIC_URL',
  'TRUST_PROXY',
  'REDIS_URL',
  'RATE_LIMIT',
  'OAUTH_RATE_LIMIT',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'LOG_LEVEL',
];

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Milliseconds from sending to the end of the answer. */
  ms: number;
}

/** How the server is started: `command` gets `--port <PORT, else 0> --data-dir <dir>` appended. */
export interface Launch {
  command: string[];
  cwd: string;
}

/** This checkout's own command line. */
const CHECKOUT: Launch = { command: [process.execPath, join(ROOT, 'bin/training-api.js'), 'serve'], cwd: ROOT };

export interface ServerRequest {
  token?: string;
  body?: unknown;
  /** Sent form-encoded instead of `body`. */
  form?: Record<string, string>;
  /** More request headers (Authorization: Basic ...). */
  headers?: Record<string, string>;
  /** Give up after this long (the reply then has status 0). */
  timeoutMs?: number;
}

/**
 * A real `training-api serve` process on a free port, with its own data directory (kept across
 * restarts) and a client that trusts exactly its certificate.
 */
/** The id a 201 names in its Location; undefined for any other answer. */
export function createdId(reply: Reply): string | undefined {
  return reply.status === 201 ? String(reply.headers.location).split('/').pop() : undefined;
}

export class ServerProcess {
  /** Everything the process wrote to stderr and stdout. */
  output = '';
  port = 0;
  #child!: ChildProcess;
  #exit!: Promise<void>;
  #agent!: https.Agent;

  private constructor(
    readonly dataDir: string,
    private readonly env: Record<string, string>,
    private readonly launch: Launch,
  ) {}

  /**
   * `env` holds the server's settings (DATABASE_URL, ...); the data directory is a new temporary one.
   * `launch` runs another installation of the server (this checkout's by default).
   */
  static async start(env: Record<string, string> = {}, launch: Launch = CHECKOUT): Promise<ServerProcess> {
    const server = new ServerProcess(await mkdtemp(join(tmpdir(), 'training-api-server-')), env, launch);
    await server.restart();
    return server;
  }

  /** Starts the process again on the same data directory (after `kill`), on a new port unless `PORT` names one. */
  async restart(): Promise<void> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of INHERITED_SETTINGS) delete env[name];
    Object.assign(env, { LOG_LEVEL: 'warn', RATE_LIMIT: 'off' }, this.env);
    this.output = '';
    const [command, ...args] = this.launch.command;
    this.#child = spawn(command!, [...args, '--port', this.env.PORT ?? '0', '--data-dir', this.dataDir], {
      cwd: this.launch.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own, so a signal reaches the server behind a launcher such as `npm start`.
      detached: true,
    });
    this.#exit = once(this.#child, 'exit').then(() => undefined);
    this.port = await new Promise<number>((resolvePort, reject) => {
      const timer = setTimeout(() => {
        // A server that never announced itself must not outlive its test (its pipes would keep the test process waiting).
        process.kill(-this.#child.pid!, 'SIGKILL');
        reject(new Error(`no server after ${START_TIMEOUT_MS} ms:\n${this.output}`));
      }, START_TIMEOUT_MS);
      const collect = (chunk: string) => {
        this.output += chunk;
        // Behind PUBLIC_URL, the address it listens on follows the public one.
        const match = /training-api serving (?:\S+ \(listening on )?https:\/\/[^\s]+:(\d+)(?:\/api\/v5|\))/.exec(this.output);
        if (match) {
          clearTimeout(timer);
          resolvePort(Number(match[1]));
        }
      };
      this.#child.stdout!.setEncoding('utf8').on('data', collect);
      this.#child.stderr!.setEncoding('utf8').on('data', collect);
      void this.#exit.then(() => {
        clearTimeout(timer);
        reject(new Error(`the server exited with ${this.#child.exitCode ?? this.#child.signalCode}:\n${this.output}`));
      });
    });
    this.#agent?.destroy();
    // Each data directory has its own self-signed certificate: trust exactly that one.
    this.#agent = new https.Agent({
      keepAlive: true,
      maxSockets: 64,
      ca: await readFile(this.env.TLS_CERT_FILE ?? join(this.dataDir, 'tls', 'cert.pem')),
    });
  }

  /** Sends `signal` to the server, which keeps running unless the signal ends it. */
  signal(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }

  /** Whether any process of its group is still running: the server behind a launcher such as `npm start` too. */
  get groupRunning(): boolean {
    try {
      process.kill(-this.#child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** Whether the process is still running. */
  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The bootstrap token the first start wrote. */
  async bootstrapToken(): Promise<string> {
    return (await readFile(join(this.dataDir, 'bootstrap-token'), 'utf8')).trim();
  }

  /** An HTTPS request to `path` (under /api/v5 unless it starts with a slash); network errors come back as status 0. */
  request(method: string, path: string, options: ServerRequest = {}): Promise<Reply> {
    const payload = options.form
      ? new URLSearchParams(options.form).toString()
      : options.body === undefined
        ? undefined
        : JSON.stringify(options.body);
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (payload !== undefined) headers['content-type'] = options.form ? 'application/x-www-form-urlencoded' : 'application/json';
    Object.assign(headers, options.headers);
    const started = performance.now();
    return new Promise((resolveReply) => {
      const done = (status: number, responseHeaders: Reply['headers'], body: string) =>
        resolveReply({ status, headers: responseHeaders, body, ms: performance.now() - started });
      const request = https.request(
        {
          host: '127.0.0.1',
          port: this.port,
          servername: 'localhost',
          path: path.startsWith('/') ? path : `/api/v5/${path}`,
          method,
          headers,
          agent: this.#agent,
          timeout: options.timeoutMs,
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => done(response.statusCode ?? 0, response.headers, text));
          response.on('error', (error) => done(0, {}, String(error)));
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
      request.on('error', (error) => done(0, {}, String(error)));
      request.end(payload);
    });
  }

  /** Sends `signal` (SIGKILL unless told) and waits for the process to end. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.running) {
      process.kill(-this.#child.pid!, signal);
      await this.#exit;
    } else if (this.groupRunning) {
      // A launcher gone before what it started (npm start): the group's rest must not outlive the test.
      process.kill(-this.#child.pid!, 'SIGKILL');
    }
    this.#agent.destroy();
  }

  /** Stops the process (SIGTERM) and removes its data directory. */
  async destroy(): Promise<void> {
    if (this.#child) await this.kill('SIGTERM');
    await rm(this.dataDir, { recursive: true, force: true });
  }
}
