import type { Kysely } from 'kysely';
import { lockOrdering } from '../../db/dense-order.js';
import { inTransaction } from '../../db/unit-of-work.js';
import type { Database } from '../../db/schema.js';
import { type FieldErrors, Invalid, NOT_FOUND_MESSAGE } from '../../lib/domain-errors.js';
import { isId } from '../../lib/ids.js';
import { now } from '../../lib/time.js';
import type { Caller } from '../../auth/caller.js';
import { userfieldsRepository, type UserfieldRow } from '../userfields/userfields.repository.js';
import { parseMappedAttribute, type MappedAttribute } from './mapped-attribute.js';
import { attributeMappingsRepository } from './attribute-mappings.repository.js';
import type { AttributeMappings, UpdateAttributeMappings } from './attribute-mappings.schemas.js';

/** A mapped attribute with the userfield it feeds, as the SCIM surface uses it. */
export interface MappedUserfield extends MappedAttribute {
  field: UserfieldRow;
}

export function attributeMappingsService(db: Kysely<Database>) {
  return {
    async get(caller: Caller): Promise<AttributeMappings> {
      const rows = await attributeMappingsRepository(db).list(caller.orgId);
      return Object.fromEntries(rows.map((row) => [row.attribute, row.userfield_id]));
    },

    /** The organization's mappings, parsed, with their userfields. */
    async resolve(orgId: string): Promise<MappedUserfield[]> {
      const rows = await attributeMappingsRepository(db).withUserfields(orgId);
      return rows.flatMap((row) => {
        const parsed = parseMappedAttribute(row.attribute);
        return typeof parsed === 'string' ? [] : [{ ...parsed, field: row.field }];
      });
    },

    /**
     * Adds, changes (a string) or removes (null) the mappings named; the others stay. All or nothing:
     * every refused entry is named in fieldErrors, keyed as sent. A userfield feeds one attribute at most.
     */
    async update(caller: Caller, input: UpdateAttributeMappings): Promise<void> {
      const { orgId } = caller;
      await inTransaction(db, caller.actor, async (trx) => {
        await lockOrdering(trx, orgId); // the organization's row: changes of its mappings apply one after another
        const mappings = attributeMappingsRepository(trx);
        const fieldErrors: FieldErrors = {};
        const current = new Map((await mappings.list(orgId)).map((row) => [row.attribute_key, row]));
        const saved: { attribute: MappedAttribute; userfieldId: string }[] = [];
        const removed: string[] = [];
        const fieldIds = Object.values(input).filter((id): id is string => typeof id === 'string' && isId(id));
        const fields = new Map((await userfieldsRepository(trx).findForValues(orgId, fieldIds)).map((field) => [field.id, field]));
        for (const [name, userfieldId] of Object.entries(input)) {
          const attribute = parseMappedAttribute(name);
          if (typeof attribute === 'string') {
            fieldErrors[name] = attribute;
          } else if (userfieldId === null) {
            removed.push(attribute.key);
          } else if (!fields.has(userfieldId)) {
            fieldErrors[name] = `userfield: ${NOT_FOUND_MESSAGE}`;
          } else if (fields.get(userfieldId)!.type === 'message') {
            fieldErrors[name] = 'a message userfield holds no value';
          } else {
            saved.push({ attribute, userfieldId });
          }
        }
        // The state after the change must map each userfield from one attribute only.
        for (const key of [...removed, ...saved.map((entry) => entry.attribute.key)]) current.delete(key);
        const feeding = new Map([...current.values()].map((row) => [row.userfield_id, row.attribute]));
        for (const { attribute, userfieldId } of saved) {
          const other = feeding.get(userfieldId);
          if (other !== undefined) fieldErrors[attribute.path] = `the userfield is already fed by ${other}`;
          feeding.set(userfieldId, attribute.path);
        }
        if (Object.keys(fieldErrors).length > 0) throw new Invalid(fieldErrors);
        await mappings.delete(orgId, removed);
        const at = now();
        for (const { attribute, userfieldId } of saved) {
          await mappings.save({
            org_id: orgId,
            attribute: attribute.path,
            attribute_key: attribute.key,
            userfield_id: userfieldId,
            created_date: at,
          });
        }
      });
    },
  };
}

export type AttributeMappingsService = ReturnType<typeof attributeMappingsService>;
