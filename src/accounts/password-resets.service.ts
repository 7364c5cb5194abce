import type { Kysely } from 'kysely';
import { hashSecret, isWellFormedSecret, newSecret, SECRET_PREFIXES } from '../auth/secrets.js';
import type { Database } from '../db/schema.js';
import { inTransaction } from '../db/unit-of-work.js';
import { SERVER_ACTOR } from '../lib/actors.js';
import { usersRepository } from '../resources/users/users.repository.js';
import type { Mail, Mailer } from './mailer.js';
import type { ProfileService } from './profile.service.js';

import { RESET_LINK_MINUTES } from './settings.js';

export { RESET_LINK_MINUTES };

/** What the mail of a link says, in the person's language: made by the pages, which know the words. */
export type ResetMail = (person: { email: string; locale: string | null }, link: string, minutes: number) => Omit<Mail, 'to'>;

export interface ResetSettings {
  /** Without one, no mail is sent; an administrator makes a link with `training-api users reset-link`. */
  mailer?: Mailer;
  /** Why a mail could not be sent (an SMTP server out of reach): the person's page says the same either way. */
  onMailError: (error: Error) => void;
  clock?: () => number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Forgotten passwords: a single-use link that works for 30 minutes, sent by mail. Asking for one says
 * nothing of whether the address has an account (the page answers the same, at once: the mail is sent
 * after the answer), and a link made later replaces the earlier ones. The link holds a random secret;
 * the database only its SHA-256.
 */
export function passwordResetsService(db: Kysely<Database>, profile: ProfileService, settings: ResetSettings) {
  const clock = settings.clock ?? Date.now;

  /** A new link's secret for the user, the earlier ones dropped. */
  async function make(orgId: string, userId: string): Promise<string> {
    const secret = newSecret(SECRET_PREFIXES.passwordReset);
    const at = clock();
    // A link is no change of the change stream.
    await inTransaction(db, SERVER_ACTOR, async (trx) => {
      await trx.deleteFrom('password_resets').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
      await trx
        .insertInto('password_resets')
        .values({ org_id: orgId, id: hashSecret(secret), user_id: userId, created_at: iso(at), expires_at: iso(at + RESET_LINK_MINUTES * 60_000) })
        .execute();
    });
    return secret;
  }

  /** The user a link's secret is for, while it works. */
  async function holder(orgId: string, secret: string): Promise<string | undefined> {
    if (!isWellFormedSecret(secret, SECRET_PREFIXES.passwordReset)) return undefined;
    const row = await db
      .selectFrom('password_resets')
      .select(['user_id', 'expires_at'])
      .where('org_id', '=', orgId)
      .where('id', '=', hashSecret(secret))
      .executeTakeFirst();
    return row && Date.parse(row.expires_at) > clock() ? row.user_id : undefined;
  }

  return {
    make,
    holder,
    mails: settings.mailer !== undefined,

    /**
     * Sends a link to the address if an active account of the organization has it; returns at once
     * either way, so that neither the answer nor its time tells whether one does.
     */
    request(orgId: string, email: string, linkOf: (secret: string) => string, compose: ResetMail): void {
      const mailer = settings.mailer;
      if (!mailer) return;
      const send = async () => {
        const user = await usersRepository(db).credentials(orgId, email);
        if (!user || !user.active) return;
        const found = await usersRepository(db).find(orgId, user.id);
        if (!found) return;
        const secret = await make(orgId, user.id);
        await mailer.send({ to: found.email, ...compose({ email: found.email, locale: found.locale }, linkOf(secret), RESET_LINK_MINUTES) });
      };
      send().catch((error: unknown) => settings.onMailError(error as Error));
    },

    /** Sets the new password of the link's holder and uses the link up; false when it no longer works. */
    async complete(orgId: string, secret: string, password: string): Promise<boolean> {
      const userId = await holder(orgId, secret);
      if (userId === undefined) return false;
      profile.checkPassword(password);
      // Used up before the password is set: of two uses at once, one only finds it.
      const used = await db.deleteFrom('password_resets').where('org_id', '=', orgId).where('id', '=', hashSecret(secret)).executeTakeFirst();
      if (used.numDeletedRows === 0n) return false;
      await profile.setPassword(orgId, userId, password);
      return true;
    },
  };
}

export type PasswordResetsService = ReturnType<typeof passwordResetsService>;
