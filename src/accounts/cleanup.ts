import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { sessionsRepository } from './sessions.repository.js';

const CLEANUP_INTERVAL_MS = 10 * 60_000;

/** Deletes what ended before now: sessions past their absolute end, unused links of forgotten passwords, the provider's expired objects. */
export async function deleteEnded(db: Kysely<Database>, at = new Date()): Promise<void> {
  const iso = at.toISOString();
  await sessionsRepository(db).deleteEnded(iso);
  await db.deleteFrom('password_resets').where('expires_at', '<', iso).execute();
  await db.deleteFrom('oidc_payloads').where('expires_at', '<', iso).execute();
}

/**
 * The sign-in's housekeeping, every ten minutes: nothing depends on it (each row is checked for its end
 * when used), it only keeps the tables small. Every instance runs it; a second pass finds nothing.
 */
export function startSignInCleanup(db: Kysely<Database>, log: FastifyBaseLogger): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = deleteEnded(db).catch((error: unknown) => log.error({ err: error }, 'deleting ended sessions and sign-in objects failed'));
  }, CLEANUP_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
