import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';

/** What a worker tells the primary once it listens. */
interface ServingMessage {
  type: 'serving';
  baseUrl: string;
  /** The address it listens on (`https://127.0.0.1:8443`), which differs from baseUrl's behind PUBLIC_URL. */
  listening: string;
}

/** Whether this process is one of the workers of a `WORKERS=n` server. */
export const isWorker = cluster.isWorker;

/** A worker's word to the primary that it serves. */
export function reportServing(baseUrl: string, listening: string): void {
  process.send?.({ type: 'serving', baseUrl, listening } satisfies ServingMessage);
}

/** A worker's last step once it has closed: the channel to the primary would keep it alive. */
export function leavePrimary(): void {
  if (isWorker) process.disconnect();
}

interface Workers {
  baseUrl: string;
  listening: string;
  /** SIGTERM to every worker (each finishes its requests in flight), resolved once all have exited. */
  stop(): Promise<void>;
}

/**
 * Forks `count` workers running this same command; they share the listening port (the primary
 * accepts the connections and hands them out in turn). Resolves once every worker serves, or
 * stops them all and throws if one exits before. A worker that exits later is replaced.
 */
export async function startWorkers(count: number, log: (line: string) => void): Promise<Workers> {
  const exits = new Map<Worker, Promise<unknown>>();
  let started = false;
  let stopping = false;

  const fork = (): Promise<ServingMessage> => {
    const worker = cluster.fork();
    exits.set(worker, once(worker, 'exit'));
    return new Promise((resolve, reject) => {
      worker.on('message', (message: ServingMessage) => {
        if (message?.type === 'serving') resolve(message);
      });
      worker.once('exit', (code: number | null, signal: string | null) => {
        exits.delete(worker);
        reject(new Error(`A worker exited with ${signal ?? code} before serving`));
        if (started && !stopping) {
          log(`Worker ${worker.process.pid} exited with ${signal ?? code}; starting another`);
          fork().catch((error: Error) => log(error.message));
        }
      });
    });
  };

  const stop = async (): Promise<void> => {
    stopping = true;
    const running = [...exits];
    for (const [worker] of running) worker.process.kill('SIGTERM');
    await Promise.all(running.map(([, exit]) => exit));
  };

  try {
    const [{ baseUrl, listening }] = (await Promise.all(Array.from({ length: count }, fork))) as [ServingMessage];
    started = true;
    return { baseUrl, listening, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
