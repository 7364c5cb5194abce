import { passwordResetsService } from '../../accounts/password-resets.service.js';
import { RESET_LINK_MINUTES } from '../../accounts/settings.js';
import { profileService } from '../../accounts/profile.service.js';
import { usersRepository } from '../../resources/users/users.repository.js';
import { organizationOf, publicOrigin, required, UsageError, type Context } from '../command.js';

/**
 * `users reset-link`: a one-time link to choose a new password, for an administrator to hand on when no
 * mail can be sent (no SMTP_URL), or a person cannot read theirs. It replaces the person's earlier links.
 */
export async function resetLink({ db, values, config, print }: Context): Promise<number> {
  const orgId = await organizationOf(db, values.org);
  const email = required(values.email, '--email');
  const user = await usersRepository(db).credentials(orgId, email);
  if (!user) throw new UsageError(`No user of the organization has the email ${email}`);
  if (!user.active) throw new UsageError(`The user with the email ${email} is deactivated: reactivate it first (PUT /users/{id} {"active": true})`);
  const resets = passwordResetsService(db, profileService(db, config.passwordPolicy), { onMailError: () => undefined });
  const link = `${publicOrigin(config)}/o/${orgId}/reset-password/${await resets.make(orgId, user.id)}`;
  print({ userId: user.id, link, expiresInMinutes: RESET_LINK_MINUTES }, link);
  return 0;
}
