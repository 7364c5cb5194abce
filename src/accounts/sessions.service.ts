import type { Kysely } from 'kysely';
import { hashSecret, isWellFormedSecret, newSecret, SECRET_PREFIXES } from '../auth/secrets.js';
import type { Database } from '../db/schema.js';
import { inTransaction } from '../db/unit-of-work.js';
import { SERVER_ACTOR } from '../lib/actors.js';
import { usersRepository } from '../resources/users/users.repository.js';
import { sessionsRepository, type SessionWithUser } from './sessions.repository.js';

/** How long a session lasts: idle (since its last use) and at most (since the sign-in). */
export interface SessionLifetimes {
  idleMs: number;
  maxMs: number;
}

/** Where a session was started from, kept for the person's list of sessions. */
export interface SessionOrigin {
  address?: string;
  userAgent?: string;
}

/** How stale `last_seen_at` may get before a request writes it again (keeps page views free of writes). */
const LAST_SEEN_RESOLUTION_MS = 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** Why a stored session no longer counts, if it does not. */
function ended(session: SessionWithUser, at: number, lifetimes: SessionLifetimes): boolean {
  return (
    !session.active ||
    Date.parse(session.expires_at) <= at ||
    Date.parse(session.last_seen_at) + lifetimes.idleMs <= at ||
    (session.sessions_valid_after !== null && session.created_at <= session.sessions_valid_after)
  );
}

/**
 * People's sessions in browsers. The cookie holds a random secret (`tps_…`); the database holds its
 * SHA-256 only, so a copy of the database signs nobody in. A session ends at its idle or absolute end,
 * when its person is deactivated or deleted (the row goes with the user), when the password changes and
 * when the person signs out everywhere (both move the user's `sessions_valid_after`).
 */
export function sessionsService(db: Kysely<Database>, lifetimes: SessionLifetimes, clock: () => number = Date.now) {
  const sessions = sessionsRepository(db);
  return {
    /**
     * Starts a session for a person who just proved who they are. A session the browser held before is
     * ended: a new sign-in always gets a new secret, so a secret planted beforehand is worth nothing.
     */
    async start(orgId: string, userId: string, origin: SessionOrigin, previous?: string): Promise<{ secret: string; maxAgeSeconds: number }> {
      if (previous !== undefined && isWellFormedSecret(previous, SECRET_PREFIXES.session)) await sessions.delete(orgId, hashSecret(previous));
      const secret = newSecret(SECRET_PREFIXES.session);
      const at = clock();
      // A session counts when it was created after the person's cutoff (a password change, a sign-out
      // everywhere); the browser that just changed the password may start its own in the same millisecond.
      const cutoff = await usersRepository(db).sessionsValidAfter(orgId, userId);
      await sessions.insert({
        org_id: orgId,
        id: hashSecret(secret),
        user_id: userId,
        created_at: iso(cutoff === undefined ? at : Math.max(at, Date.parse(cutoff) + 1)),
        last_seen_at: iso(at),
        expires_at: iso(at + lifetimes.maxMs),
        address: origin.address ?? null,
        user_agent: origin.userAgent?.slice(0, 512) ?? null,
      });
      return { secret, maxAgeSeconds: Math.floor(lifetimes.maxMs / 1000) };
    },

    /** The session this secret holds, with its person, if it still counts; its use is noted. */
    async resume(orgId: string, secret: string | undefined): Promise<SessionWithUser | undefined> {
      if (secret === undefined || !isWellFormedSecret(secret, SECRET_PREFIXES.session)) return undefined;
      const session = await sessions.find(orgId, hashSecret(secret));
      const at = clock();
      if (!session) return undefined;
      if (ended(session, at, lifetimes)) {
        await sessions.delete(orgId, session.id);
        return undefined;
      }
      if (at - Date.parse(session.last_seen_at) >= LAST_SEEN_RESOLUTION_MS) {
        session.last_seen_at = iso(at);
        await sessions.touch(orgId, session.id, session.last_seen_at);
      }
      return session;
    },

    /** Ends the session this secret holds, if any. */
    async end(orgId: string, secret: string | undefined): Promise<void> {
      if (secret !== undefined && isWellFormedSecret(secret, SECRET_PREFIXES.session)) await sessions.delete(orgId, hashSecret(secret));
    },

    /**
     * Ends every session of the person, and every sign-in token issued to their applications before now
     * (the OpenID Connect provider checks `sessions_valid_after`).
     */
    async endEverywhere(orgId: string, userId: string): Promise<void> {
      // Sessions are no change of the change stream.
      await inTransaction(db, SERVER_ACTOR, async (trx) => {
        await usersRepository(trx).update(orgId, userId, { sessions_valid_after: iso(clock()) });
        await sessionsRepository(trx).deleteOfUser(orgId, userId);
      });
    },
  };
}

export type SessionsService = ReturnType<typeof sessionsService>;
