/** The benchmark's child processes: the API server, the floor and reference servers, the load generator. */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
/** The package root, from dist/bench. */
export const ROOT = path.resolve(benchDir, '..', '..');
export const CLI = path.join(ROOT, 'bin', 'training-api.js');

/** A process and its children: a server started with WORKERS=n is its primary and n workers. */
function withChildren(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return [pid, ...(children ? children.split(' ').map(Number) : [])];
  } catch {
    return [pid];
  }
}

function sumOver(pid: number, measure: (pid: number) => number): number | undefined {
  try {
    return withChildren(pid).reduce((total, each) => total + measure(each), 0);
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) of a process and its children so far, in seconds; undefined off Linux. */
export function cpuSeconds(pid: number): number | undefined {
  return sumOver(pid, (each) => {
    // Fields after the command name (which may hold spaces, hence the last parenthesis): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${each}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks of 1/100 s on Linux
  });
}

/** A memory figure of /proc/<pid>/status of a process and its children, in bytes; undefined off Linux. */
function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  return sumOver(pid, (each) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${each}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  });
}

/** Resident memory of a process and its children in bytes; undefined off Linux. */
export const rssBytes = (pid: number) => statusBytes(pid, 'VmRSS');

/** The most resident memory a process (and each of its children) has had since it started, in bytes; undefined off Linux. */
export const peakRssBytes = (pid: number) => statusBytes(pid, 'VmHWM');

/** A child that answers each message sent with `call` by one message carrying the same id. */
export interface Worker {
  pid: number;
  call<T>(message: object): Promise<T>;
  /** The first message the child sends by itself (a server's port). */
  ready: Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export function forkWorker(module: string, args: string[] = [], execArgv: string[] = []): Worker {
  const child = fork(path.join(benchDir, module), args, { serialization: 'advanced', execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let onReady: (message: Record<string, unknown>) => void;
  let onFailure: (error: Error) => void;
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    onReady = resolve;
    onFailure = reject;
  });
  // Handled here so that a worker stopped without ever being awaited does not end the run.
  ready.catch(() => {});
  child.on('message', (message: { id?: number; result?: unknown; error?: string }) => {
    if (message.id === undefined) return onReady(message);
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiting?.reject(new Error(message.error));
    else waiting?.resolve(message.result);
  });
  child.on('exit', (code) => {
    // Once ready has settled this changes nothing; before, it ends the wait of a worker that died starting.
    onFailure(new Error(`${module} exited with code ${code} before it was ready`));
    for (const waiting of pending.values()) waiting.reject(new Error(`${module} exited with code ${code}`));
    pending.clear();
  });
  return {
    pid: child.pid!,
    call<T>(message: object) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ ...message, id });
      });
    },
    ready,
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export interface ApiServer {
  pid: number;
  origin: string;
  stop(): Promise<void>;
}

export interface ApiServerOptions {
  databaseUrl: string;
  dataDir: string;
  certFile: string;
  keyFile: string;
  /** Extra node flags, such as --cpu-prof. */
  nodeArgs?: string[];
  /** Extra settings, such as the webhooks'. */
  env?: Record<string, string>;
}

/**
 * `training-api serve` as a user runs it, with the request log on (to /dev/null) and the per-token
 * rate limit off (it would stop the load long before the server does).
 */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      DATA_DIR: options.dataDir,
      TLS_CERT_FILE: options.certFile,
      TLS_KEY_FILE: options.keyFile,
      HOST: '127.0.0.1',
      PORT: '0',
      RATE_LIMIT: 'off',
      LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const origin = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving (https:\/\/[^/\s]+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`The server exited with code ${code} before serving:\n${stderr}`)));
  });
  return { pid: child.pid!, origin, stop: () => stopChild(child) };
}

/** Runs the command line to completion; returns its standard output, or throws with its standard error. */
export function runCli(args: string[], env: Record<string, string>, showProgress = false, nodeArgs: string[] = []): Promise<string> {
  const child = spawn(process.execPath, [...nodeArgs, CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', showProgress ? 'inherit' : 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`training-api ${args.join(' ')} failed (${code}): ${stderr}`))));
  });
}

/** A database of its own, named `<prefix>_<time>`, on the server `url` names; returns its URL and how to drop it. */
export async function postgresDatabase(url: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    url: own.toString(),
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
