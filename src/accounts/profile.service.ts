import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import type { Database } from '../db/schema.js';
import { SERVER_ACTOR } from '../lib/actors.js';
import { Invalid, NOT_FOUND_MESSAGE } from '../lib/domain-errors.js';
import { isAcceptablePassword, passwordMessage, type PasswordPolicy } from '../lib/password-policy.js';
import { agreementsService } from '../resources/agreements/agreements.service.js';
import type { Agreement, AgreementType, UserAgreement } from '../resources/agreements/agreements.schemas.js';
import { userfieldValuesService } from '../resources/userfield-values/userfield-values.service.js';
import type { UserfieldValues } from '../resources/userfield-values/userfield-values.schemas.js';
import type { Userfield } from '../resources/userfields/userfields.schemas.js';
import { userfieldsService } from '../resources/userfields/userfields.service.js';
import type { User } from '../resources/users/users.schemas.js';
import { usersService } from '../resources/users/users.service.js';
import { personCaller } from './sign-in.service.js';

/** The caller of the pages' reads on a person's behalf, which write nothing. */
function reader(orgId: string): Caller {
  return { orgId, tokenId: 'session', scopes: ['read'], actor: SERVER_ACTOR };
}

/** What a person must do before getting through a sign-in (Keycloak's "required actions"). */
export interface PendingActions {
  /** An administrator asked for a new password at the next sign-in. */
  newPassword: boolean;
  /** Required fields of public categories that hold no value for the person. */
  fields: Userfield[];
  /** Required agreements not agreed to, or revised since the person agreed. */
  agreements: Agreement[];
}

export function hasPendingActions(actions: PendingActions): boolean {
  return actions.newPassword || actions.fields.length > 0 || actions.agreements.length > 0;
}

/** Every page of a service's list; a list gives one item more than a page when another page follows (lib/paging.ts). */
async function everyPage<T>(list: (paging: { limit: number; offset: number }) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await list({ limit: 100, offset });
    all.push(...page.slice(0, 100));
    if (page.length <= 100) return all;
  }
}

/** Whether a field holds a value worth the name: an empty list of checkboxes is none. */
function holdsValue(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
}

/**
 * What a person sees and changes of their own account, through the same services, checks and events
 * as the API: their name and locale, their password (changed with the current one), the userfields of
 * public categories (those of private categories are never shown nor taken), and their agreements.
 */
export function profileService(db: Kysely<Database>, passwordPolicy: PasswordPolicy) {
  const users = usersService(db, passwordPolicy);
  const userfields = userfieldsService(db);
  const values = userfieldValuesService(db);
  const agreements = agreementsService(db);

  /** Refuses a password the policy does not accept. */
  function checkPassword(password: string): void {
    if (!isAcceptablePassword(passwordPolicy, password)) throw new Invalid({ password: passwordMessage(passwordPolicy) });
  }

  /** The fields a person sees and fills in: those in public categories, in the form's order; message fields among them. */
  function publicFields(orgId: string): Promise<Userfield[]> {
    return everyPage((paging) => userfields.list(reader(orgId), { categoryType: 'public' }, paging));
  }

  return {
    publicFields,

    async user(orgId: string, userId: string): Promise<User> {
      return users.get(reader(orgId), userId);
    },

    /** The values of the person's public fields only. */
    async publicValues(orgId: string, userId: string, fields: readonly Userfield[]): Promise<UserfieldValues> {
      const all = await values.get(reader(orgId), userId);
      return Object.fromEntries(fields.filter((field) => field.id in all).map((field) => [field.id, all[field.id]]));
    },

    async agreements(orgId: string, userId: string): Promise<UserAgreement[]> {
      return everyPage((paging) => agreements.listForUser(reader(orgId), userId, {}, paging));
    },

    async pending(orgId: string, userId: string): Promise<PendingActions> {
      const caller = reader(orgId);
      const [user, fields, defined, agreed] = await Promise.all([
        users.get(caller, userId),
        publicFields(orgId),
        everyPage((paging) => agreements.list(caller, {}, paging)),
        everyPage((paging) => agreements.listForUser(caller, userId, {}, paging)),
      ]);
      const required = fields.filter((field) => field.required);
      const held = required.length > 0 ? await values.get(caller, userId) : {};
      const agreedTo = new Map(agreed.filter((agreement) => agreement.agreed).map((agreement) => [agreement.type, agreement]));
      return {
        newPassword: await users.passwordChangeRequired(caller, user.id),
        fields: required.filter((field) => !holdsValue(held[field.id])),
        agreements: defined.filter((agreement) => {
          const mine = agreedTo.get(agreement.type);
          return agreement.required && (mine === undefined || mine.title !== agreement.title || mine.text !== agreement.text);
        }),
      };
    },

    async updateProfile(orgId: string, userId: string, input: { firstName?: string; lastName?: string; locale?: string }): Promise<void> {
      await users.update(await personCaller(db, orgId, userId), userId, input);
    },

    /**
     * Sets the person's values of public fields, as PUT /users/{id}/userfieldvalues would; a field of a
     * private category, or none at all, is refused as an unknown one.
     */
    async updateFields(orgId: string, userId: string, input: Record<string, unknown>): Promise<void> {
      const visible = new Set((await publicFields(orgId)).map((field) => field.id));
      const hidden = Object.keys(input).filter((fieldId) => !visible.has(fieldId));
      if (hidden.length > 0) throw new Invalid(Object.fromEntries(hidden.map((fieldId) => [fieldId, NOT_FOUND_MESSAGE])));
      await values.update(await personCaller(db, orgId, userId), userId, input);
    },

    checkPassword,

    /** A new password, which the policy must accept; it also ends the person's sessions. */
    async setPassword(orgId: string, userId: string, password: string): Promise<void> {
      checkPassword(password);
      await users.update(await personCaller(db, orgId, userId), userId, { password, requirePasswordChange: false });
    },

    async agree(orgId: string, userId: string, types: readonly AgreementType[]): Promise<void> {
      const caller = await personCaller(db, orgId, userId);
      for (const type of types) await agreements.setForUser(caller, userId, type, true);
    },
  };
}

export type ProfileService = ReturnType<typeof profileService>;
