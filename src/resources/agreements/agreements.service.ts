import type { Kysely } from 'kysely';
import { changeTime, inTransaction } from '../../db/unit-of-work.js';
import type { Database } from '../../db/schema.js';
import { dateRangeOf } from '../../lib/date-filter.js';
import { type FieldErrors, Invalid, NotFound } from '../../lib/domain-errors.js';
import { isId } from '../../lib/ids.js';
import { findById, found } from '../../lib/find-by-id.js';
import type { Paging } from '../../lib/paging.js';
import type { Caller } from '../../auth/caller.js';
import { recordUpdate } from '../../events/outbox.js';
import { usersRepository } from '../users/users.repository.js';
import { agreementsRepository, type AgreementOfUser, type AgreementPatch, type AgreementRow } from './agreements.repository.js';
import {
  AGREEMENT_TYPES,
  type Agreement,
  type AgreementQuery,
  type AgreementType,
  type PutAgreement,
  type UserAgreement,
  type UserAgreementQuery,
} from './agreements.schemas.js';

function isAgreementType(type: string): type is AgreementType {
  return (AGREEMENT_TYPES as readonly string[]).includes(type);
}

function toResponse(row: AgreementRow): Agreement {
  const agreement: Agreement = {
    type: row.type,
    title: row.title,
    text: row.text,
    createdDate: row.created_date,
    required: row.required,
  };
  if (row.updated_date) agreement.updatedDate = row.updated_date;
  return agreement;
}

/** Once agreed, the user sees the title and text they agreed to, whatever revisions came later. */
function toUserResponse(row: AgreementOfUser): UserAgreement {
  if (row.agreed_date === null) {
    return { type: row.type, title: row.title, text: row.text, createdDate: row.created_date, agreed: false };
  }
  return {
    type: row.type,
    title: row.agreed_title!,
    text: row.agreed_text!,
    createdDate: row.created_date,
    agreed: true,
    agreedDate: row.agreed_date,
  };
}

/** The active users of an organization by what they agreed to of one agreement. */
export interface AgreementCounts {
  active: number;
  agreedToCurrent: number;
  agreedToEarlier: number;
  neverAgreed: number;
}

export function agreementsService(db: Kysely<Database>) {
  const agreements = agreementsRepository(db);
  const users = usersRepository(db);

  async function requireUser(orgId: string, userId: string): Promise<void> {
    await findById(userId, (id) => users.find(orgId, id));
  }

  return {
    async list(caller: Caller, query: AgreementQuery, paging: Paging): Promise<Agreement[]> {
      return (await agreements.list(caller.orgId, { updatedDate: dateRangeOf(query.updatedDate) }, paging)).map(toResponse);
    },

    async get(caller: Caller, type: string): Promise<Agreement> {
      return toResponse(found(isAgreementType(type) ? await agreements.find(caller.orgId, type) : undefined));
    },

    /**
     * Defines the agreement (title and text required the first time) or revises what is sent. Only
     * what differs is a revision: PUTting back what was read changes nothing, updatedDate included.
     */
    async put(caller: Caller, type: string, input: PutAgreement): Promise<void> {
      if (!isAgreementType(type)) throw new NotFound();
      const { orgId } = caller;
      await inTransaction(db, caller.actor, async (trx) => {
        const repository = agreementsRepository(trx);
        const locked = async () => {
          await repository.lock(orgId, type);
          return repository.find(orgId, type);
        };
        let current = await locked();
        const fieldErrors: FieldErrors = {};
        if (type === 'custom' && input.required === false) fieldErrors.required = 'the custom agreement is always required';
        if (!current) {
          if (input.title === undefined) fieldErrors.title = 'required';
          if (input.text === undefined) fieldErrors.text = 'required';
        }
        if (Object.keys(fieldErrors).length > 0) throw new Invalid(fieldErrors);

        const at = changeTime(trx);
        if (!current) {
          const { title, text, required = true } = input;
          const row: AgreementRow = { org_id: orgId, type, title: title!, text: text!, required, created_date: at, updated_date: null };
          if (await repository.define(row)) {
            // Defined: every property is new, previously absent.
            recordUpdate(trx, orgId, 'agreement.updated', {}, toResponse(row));
            return;
          }
          current = (await locked())!; // a concurrent request defined it first: this one revises it
        }
        const patch: AgreementPatch = {};
        if (input.title !== undefined && input.title !== current.title) patch.title = input.title;
        if (input.text !== undefined && input.text !== current.text) patch.text = input.text;
        if (input.required !== undefined && input.required !== current.required) patch.required = input.required;
        if (Object.keys(patch).length === 0) return;
        await repository.update(orgId, type, { ...patch, updated_date: at });
        recordUpdate(trx, orgId, 'agreement.updated', toResponse(current), toResponse({ ...current, ...patch, updated_date: at }));
      });
    },

    /**
     * For each agreement, who a revision of its title or text asks again among the active users: those
     * who agreed to it as it reads now; those who agreed to an earlier revision or never agreed are asked
     * already while it is required. An undefined custom agreement has none who agreed.
     */
    async agreementCounts(caller: Caller): Promise<Record<AgreementType, AgreementCounts>> {
      const { active, ...byType } = await agreements.agreementCounts(caller.orgId);
      const of = ({ current, earlier }: { current: number; earlier: number }): AgreementCounts => ({
        active,
        agreedToCurrent: current,
        agreedToEarlier: earlier,
        neverAgreed: active - current - earlier,
      });
      return { standard: of(byType.standard), custom: of(byType.custom) };
    },

    async listForUser(caller: Caller, userId: string, _query: UserAgreementQuery, paging: Paging): Promise<UserAgreement[]> {
      await requireUser(caller.orgId, userId);
      return (await agreements.ofUser(caller.orgId, userId, undefined, paging)).map(toUserResponse);
    },

    async getForUser(caller: Caller, userId: string, type: string): Promise<UserAgreement> {
      await requireUser(caller.orgId, userId);
      const [row] = isAgreementType(type) ? await agreements.ofUser(caller.orgId, userId, type) : [];
      return toUserResponse(found(row));
    },

    /**
     * Records that the user agrees (to the agreement as it reads now) or no longer agrees. Agreeing
     * again to the text already agreed to changes nothing, not even `agreedDate`. What a user agreed
     * to is part of the user: its updatedDate moves, and the event carries it, as userfield values' do.
     */
    async setForUser(caller: Caller, userId: string, type: string, agreed: boolean): Promise<void> {
      if (!isId(userId) || !isAgreementType(type)) throw new NotFound();
      const { orgId } = caller;
      await inTransaction(db, caller.actor, async (trx) => {
        // Locked so that the user cannot be deleted before the record is written.
        const updatedDate = (await usersRepository(trx).lockUpdatedDates(orgId, [userId])).get(userId);
        if (updatedDate === undefined) throw new NotFound();
        const repository = agreementsRepository(trx);
        const [agreement] = await repository.ofUser(orgId, userId, type);
        const { title, text, agreed_title: agreedTitle, agreed_text: agreedText, agreed_date: agreedDate } = found(agreement);
        if (agreed ? agreedTitle === title && agreedText === text : agreedDate === null) return;
        const at = changeTime(trx);
        if (agreed) await repository.agree({ org_id: orgId, user_id: userId, type, title, text, agreed_date: at });
        else await repository.withdraw(orgId, userId, type);
        await usersRepository(trx).update(orgId, userId, { updated_date: at });
        const [changed] = await repository.ofUser(orgId, userId, type);
        recordUpdate(
          trx,
          orgId,
          'useragreement.updated',
          { userId, ...toUserResponse(agreement!), updatedDate },
          { userId, ...toUserResponse(changed!), updatedDate: at },
        );
      });
    },
  };
}

export type AgreementsService = ReturnType<typeof agreementsService>;
